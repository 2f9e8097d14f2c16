package report

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/internal/version"
	"github.com/ratesim/ratesim/plots"
)

// Config says what Write writes and where.
type Config struct {
	// Out is the output folder (created if absent): Out/README.md and
	// Out/figures/*.svg, *.png, with the experiment specs and small inputs
	// the commands in the report read (Out/specs, Out/data). Files of Out
	// that the report does not write are left alone.
	Out string
	// Quick makes the small version: fewer jobs, replications and
	// instances, the same sections and the same qualitative results.
	Quick bool
	// Seed is the root seed of every random stream (ratesim's default is 1).
	Seed uint64
	// Traces is the folder of the real traces (../shared/traces); a trace
	// that is absent is left out, with a note in the report.
	Traces string
	// Workers bounds the goroutines of sweeps and searches; 0 means
	// GOMAXPROCS. The report does not depend on it.
	Workers int
	// Log, when not nil, receives one line per step (progress).
	Log io.Writer
	// Compare is the folder of a full version of the report (with its
	// conclusions.json): the quick version says which of its conclusions
	// differ from that version's. Read before anything is written, so it
	// may be Out itself. "" or a folder without a full version: the
	// quick version says it could not compare. Unused without Quick.
	Compare string
}

// Write runs the experiments of the report and writes it to cfg.Out. Every
// file is written into a staging folder beside Out first and moved into Out
// only when all are done, so an error or a cancelled ctx leaves Out as it
// was. It returns the first error: bad configuration, a failed experiment,
// a theorem check that failed (the report would contradict itself), or an
// I/O error naming the file.
func Write(ctx context.Context, cfg Config) error {
	if cfg.Out == "" {
		return fmt.Errorf("report: no output folder")
	}
	parent := filepath.Dir(filepath.Clean(cfg.Out))
	if err := os.MkdirAll(parent, 0o777); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	stage, err := os.MkdirTemp(parent, ".ratesim-paper-*")
	if err != nil {
		return fmt.Errorf("report: staging folder: %w", err)
	}
	// Removed however the run ends: on return, or by
	// atomicfile.RemoveTemporary when a signal's backstop exits at once.
	defer atomicfile.TrackDir(stage)()
	defer os.RemoveAll(stage)
	d := newDoc(cfg, stage)
	if cfg.Quick {
		d.reference, d.referenceWhy = readReference(cfg.Compare)
	}
	for _, sec := range []func(context.Context, *doc) error{
		sectionIntro, sectionModel, sectionTheorem, sectionLemma, sectionCost, sectionOrder, sectionBeyond, sectionDRL, sectionOverload, sectionCaveats,
		func(_ context.Context, d *doc) error { return sectionConclusions(d) },
	} {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := sec(ctx, d); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(stage, "README.md"), d.buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	return install(stage, cfg.Out, d.files)
}

// install moves the staged files (paths relative to stage) into out,
// each by a rename (README.md last, so that a reader never finds a report
// whose figures are missing).
func install(stage, out string, files []string) error {
	files = append(slices.Clone(files), "README.md")
	for _, f := range files {
		dst := filepath.Join(out, f)
		if err := os.MkdirAll(filepath.Dir(dst), 0o777); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := os.Rename(filepath.Join(stage, f), dst); err != nil {
			return fmt.Errorf("report: %w", err)
		}
	}
	return nil
}

// doc is the report being written: its Markdown and the files beside it.
type doc struct {
	cfg    Config
	stage  string
	buf    bytes.Buffer
	files  []string // staged, relative to stage
	footer string   // provenance line under every figure
	out    string   // cfg.Out as written in commands
	nfig   int
	ntab   int

	sample    *poissonRun // section 2's sample path, reused by 3 and 5
	traceRuns []*traceRun // section 2's trace runs, reused by 4

	conclusions  []conclusion    // see claims.go
	reference    *conclusionsDoc // the full version's, for a quick one
	referenceWhy string          // why reference is nil
}

func newDoc(cfg Config, stage string) *doc {
	d := &doc{cfg: cfg, stage: stage, out: filepath.ToSlash(filepath.Clean(cfg.Out))}
	d.footer = provenance()
	if cfg.Quick {
		d.footer = strings.TrimPrefix(d.footer+"; ratesim paper --quick", "; ")
	}
	return d
}

// provenance names the build: the version unless it is "(devel)", the
// commit when the build recorded one; "" when neither is known.
func provenance() string {
	v := version.Get()
	var parts []string
	if v.Version != "" && v.Version != "(devel)" {
		parts = append(parts, "ratesim "+v.Version)
	}
	if v.Revision != "" {
		rev := v.Revision
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if v.Modified {
			rev += " (modified)"
		}
		parts = append(parts, "commit "+rev)
	}
	return strings.Join(parts, ", ")
}

func (d *doc) logf(format string, args ...any) {
	if d.cfg.Log != nil {
		fmt.Fprintf(d.cfg.Log, "paper: "+format+"\n", args...)
	}
}

// p writes a paragraph.
func (d *doc) p(format string, args ...any) {
	fmt.Fprintf(&d.buf, format, args...)
	d.buf.WriteString("\n\n")
}

// h writes a heading of the given level.
func (d *doc) h(level int, title string) {
	d.buf.WriteString(strings.Repeat("#", level) + " " + title + "\n\n")
}

// cmd writes the command that regenerates the table or figure above it.
func (d *doc) cmd(lines ...string) {
	d.buf.WriteString("Regenerate:\n\n```sh\n")
	for _, l := range lines {
		d.buf.WriteString(l + "\n")
	}
	d.buf.WriteString("```\n\n")
}

// table writes a Markdown table under a numbered caption.
func (d *doc) table(caption string, header []string, rows [][]string) {
	d.ntab++
	fmt.Fprintf(&d.buf, "**Table %d.** %s\n\n", d.ntab, caption)
	d.buf.WriteString("| " + strings.Join(header, " | ") + " |\n|")
	for range header {
		d.buf.WriteString("---|")
	}
	d.buf.WriteString("\n")
	for _, r := range rows {
		d.buf.WriteString("| " + strings.Join(r, " | ") + " |\n")
	}
	d.buf.WriteString("\n")
}

// figure saves f as figures/name.svg and .png (with the provenance footer)
// and writes it into the report under a numbered caption saying what to
// see.
func (d *doc) figure(name string, f plots.Figure, see string) error {
	setFooter(f, d.footer)
	for _, ext := range []string{"svg", "png"} {
		rel := "figures/" + name + "." + ext
		if slices.Contains(d.files, rel) {
			return fmt.Errorf("report: figure %s twice", rel)
		}
		path := filepath.Join(d.stage, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
			return fmt.Errorf("report: %w", err)
		}
		if err := f.Save(path); err != nil {
			return fmt.Errorf("report: figure %s: %w", rel, err)
		}
		d.files = append(d.files, rel)
	}
	d.nfig++
	fmt.Fprintf(&d.buf, "![Figure %d](figures/%s.svg)\n\n**Figure %d** ([PNG](figures/%s.png)). %s\n\n", d.nfig, name, d.nfig, name, see)
	return nil
}

// setFooter puts the provenance line under figures that have one.
func setFooter(f plots.Figure, footer string) {
	switch f := f.(type) {
	case *plots.LinePlot:
		f.Footer = footer
	case *plots.Stack:
		f.Footer = footer
	case *plots.HeatMap:
		f.Footer = footer
	}
}

// file stages a small file (a spec, an input) at rel and returns the path
// commands name it by.
func (d *doc) file(rel string, data []byte) (string, error) {
	path := filepath.Join(d.stage, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(path), 0o777); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return "", fmt.Errorf("report: %w", err)
	}
	d.files = append(d.files, rel)
	return d.out + "/" + rel, nil
}

// spec stages an experiment spec as YAML and returns its path for
// commands.
func (d *doc) spec(name string, s *splitstudy.Spec) (string, error) {
	y, err := s.YAML()
	if err != nil {
		return "", err
	}
	head := fmt.Sprintf("# %s: written by ratesim paper; run with ratesim sweep %s/specs/%s.yaml\n", name, d.out, name)
	return d.file("specs/"+name+".yaml", append([]byte(head), y...))
}

// sweep runs a staged spec.
func (d *doc) sweep(ctx context.Context, s *splitstudy.Spec) (*splitstudy.Results, error) {
	d.logf("sweep %s: %d points", s.Name, s.NumPoints())
	res, err := splitstudy.RunSweep(ctx, s, experiments.SweepOptions{Workers: d.cfg.Workers}, nil)
	if err != nil {
		return nil, err
	}
	res.Version = version.Get().Version
	for _, p := range res.Points {
		if p.Violations != 0 || p.LemmaViolations != 0 {
			return nil, fmt.Errorf("report: sweep %s point %d: Theorem 2 or Lemma 1 failed", s.Name, p.Index)
		}
	}
	return res, nil
}

// pick returns quick in quick mode, full otherwise.
func pick[T any](d *doc, quick, full T) T {
	if d.cfg.Quick {
		return quick
	}
	return full
}
