package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/internal/version"
)

// studyModels are the sweep spec models other than the split, each read
// by its package into an experiments.Model and drawn by it: the seam where
// further models plug in.
var studyModels = map[string]struct {
	read    func(path string) (study experiments.Model, name string, err error)
	figures func(t *experiments.Table, caption string) []experiments.NamedFigure
}{
	drl.ModelName: {
		read: func(path string) (experiments.Model, string, error) {
			s, err := drl.ReadStudy(path)
			if err != nil {
				return nil, "", err
			}
			return s, s.Name, nil
		},
		figures: drl.SweepFigures,
	},
	clientstudy.ClientsModel: {
		read: func(path string) (experiments.Model, string, error) {
			s, err := clientstudy.ReadClientsStudy(path, drl.ClientsDesigns{})
			if err != nil {
				return nil, "", err
			}
			return s, s.Name, nil
		},
		figures: clientstudy.ClientsSweepFigures,
	},
}

// specModel returns the model of the spec file at path ("split" when it
// names none).
func specModel(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("experiments: %w", err)
	}
	defer f.Close()
	data, err := experiments.ReadSpecData(f, path)
	if err != nil {
		return "", err
	}
	return experiments.SpecModel(data, path)
}

// runModelSweep runs the sweep of a spec of another model than the split
// (model: drl, clients): every point and replication through experiments.RunModel,
// the results table written to results.csv and results.json (or the
// shard's files), and the model's figures for a whole sweep.
func runModelSweep(cmd *cobra.Command, f *sweepFlags, path, model string) error {
	m, ok := studyModels[model]
	if !ok {
		names := []string{experiments.SplitModel}
		for n := range studyModels {
			names = append(names, n)
		}
		slices.Sort(names[1:])
		return fmt.Errorf("%s: model %q: want one of %s", path, model, strings.Join(names, ", "))
	}
	changed := cmd.Flags().Changed
	for _, fl := range []string{"builtin", "name", "arrivals", "load", "rate", "burst", "k", "rate-shares", "burst-shares", "dispatch",
		"traffic-shares", "order", "jobs-per-replication", "warmup", "jobs", "replications", "seed", "grid", "print-spec"} {
		if changed(fl) && !(fl == "builtin" && isModelBuiltin(f.builtin)) {
			return fmt.Errorf("--%s applies to split specs: a %s spec (%s) sets its parameters in the file", fl, model, path)
		}
	}
	study, name, err := m.read(path)
	if err != nil {
		return err
	}
	shard, stem, err := f.runFlags()
	if err != nil {
		return err
	}
	mine := 0
	for p := range study.NumPoints() {
		if shard.Has(p) {
			mine++
		}
	}
	if err := f.checkNotInputs([]string{stem + ".csv", stem + ".json"}, path); err != nil {
		return err
	}
	var names []string
	if !f.resume {
		names = []string{stem + ".csv", stem + ".json"}
	}
	if err := f.prepareOut(names...); err != nil {
		return err
	}
	digest := ""
	if data, err := os.ReadFile(path); err == nil {
		digest = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	var done *experiments.Table
	if prevPath := filepath.Join(f.out, stem+".json"); f.resume {
		if _, err := os.Stat(prevPath); err == nil {
			if done, err = experiments.ReadTable(prevPath); err != nil {
				return fmt.Errorf("--resume: %w", err)
			}
			vi := version.Get()
			cols := append([]string{"point"}, study.Columns()...)
			if err := done.CheckResume(model, digest, study.RootSeed(), study.NumReplications(), cols, shard, vi.Version, vi.GoVersion, vi.Commit()); err != nil {
				return fmt.Errorf("--resume: %s: %w (use --force to start over)", prevPath, err)
			}
		}
	}
	left := mine
	if done != nil {
		left -= len(done.Points)
	}
	stderr := cmd.ErrOrStderr()
	reps := study.NumReplications()
	if !f.quiet {
		resumed := ""
		if done != nil {
			resumed = fmt.Sprintf(" (resumed: %d finished, %d to run)", len(done.Points), left)
		}
		fmt.Fprintf(stderr, "ratesim: sweep %s (model %s): %s × %s on %s%s\n", path, model, count(mine, "point"), count(reps, "replication"), count(f.threads, "worker"), resumed)
	}
	progress, stop := f.progress(stderr, mine-left, mine, left*reps)
	start := time.Now()
	t, runErr := experiments.RunModel(cmd.Context(), name, model, study, experiments.SweepOptions{
		Workers: f.threads, Shard: shard, DoneTable: done, Progress: progress,
	})
	stop()
	if t == nil || (runErr != nil && !t.Interrupted) {
		return runErr
	}
	t.SpecDigest = digest
	csvPath, jsonPath := filepath.Join(f.out, stem+".csv"), filepath.Join(f.out, stem+".json")
	if err := t.WriteFiles(csvPath, jsonPath); err != nil {
		return err
	}
	paths := []string{csvPath, jsonPath}
	if t.Interrupted {
		fmt.Fprintf(stderr, "ratesim: interrupted after %.1f s: %d of %d points finished, written to %s; add --resume to the same command to run the rest\n", time.Since(start).Seconds(), len(t.Points), mine, strings.Join(paths, ", "))
		return runErr
	}
	caption := path
	if name != "" {
		caption = name + " (" + path + ")"
	}
	var figs []string
	dir := filepath.Join(f.out, "figures")
	if shard.Count == 0 {
		if figs, err = f.modelFigures(cmd, t, caption); err != nil {
			return err
		}
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	title := ""
	if name != "" {
		title = name + ": "
	}
	sh := ""
	if t.Shard != "" {
		sh = ", shard " + t.Shard
	}
	fmt.Fprintf(w, "sweep      %s%s × %s (model %s), %d rows, seed %d%s\n", title, count(len(t.Points), "point"), count(reps, "replication"), model, len(t.Rows), t.Seed, sh)
	fmt.Fprintf(w, "columns    %s\n", strings.Join(t.Columns, ", "))
	fmt.Fprintf(w, "wrote      %s", strings.Join(paths, ", "))
	if len(figs) > 0 {
		fmt.Fprintf(w, ", %d %s figures in %s", len(figs), f.format, dir+string(filepath.Separator))
	}
	fmt.Fprintln(w)
	if w.err != nil {
		return fmt.Errorf("writing the summary: %w", w.err)
	}
	return nil
}

// modelFigures replaces the figures of a model's sweep in --out/figures
// with those of t (none with --no-figures) and returns their paths.
func (o *outputFlags) modelFigures(cmd *cobra.Command, t *experiments.Table, caption string) ([]string, error) {
	dir := filepath.Join(o.out, "figures")
	for _, pattern := range sweepFigurePatterns {
		old, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range old {
			if ext := filepath.Ext(f); ext == ".png" || ext == ".svg" || ext == ".pdf" {
				os.Remove(f)
			}
		}
	}
	m, ok := studyModels[t.Model]
	if o.noFigures || !ok {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("--out %s: %w", o.out, err)
	}
	return experiments.SaveFiguresContext(cmd.Context(), m.figures(t, caption), dir, o.format)
}

// tableModel returns the model a results file names, "" for the split's
// results (which have none).
func tableModel(path string) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	var head struct {
		Model string `json:"model"`
	}
	json.Unmarshal(data, &head)
	return head.Model
}

// mergeTables merges the shards of a model's sweep (see runMerge).
func mergeTables(cmd *cobra.Command, f *outputFlags, args []string) error {
	var parts []*experiments.Table
	for _, path := range args {
		t, err := experiments.ReadTable(path)
		if err != nil {
			return err
		}
		parts = append(parts, t)
	}
	t, err := experiments.MergeTables(parts)
	if err != nil {
		return err
	}
	if err := f.checkNotInputs([]string{"results.csv", "results.json"}, args...); err != nil {
		return err
	}
	if err := f.prepareOut("results.csv", "results.json"); err != nil {
		return err
	}
	csvPath, jsonPath := filepath.Join(f.out, "results.csv"), filepath.Join(f.out, "results.json")
	if err := t.WriteFiles(csvPath, jsonPath); err != nil {
		return err
	}
	figs, err := f.modelFigures(cmd, t, t.Name)
	if err != nil {
		return err
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	fmt.Fprintf(w, "merged     %s, %s (model %s), %d rows\n", count(len(parts), "shard"), count(len(t.Points), "point"), t.Model, len(t.Rows))
	fmt.Fprintf(w, "wrote      %s, %s", csvPath, jsonPath)
	if len(figs) > 0 {
		fmt.Fprintf(w, ", %d %s figures in %s", len(figs), f.format, filepath.Join(f.out, "figures")+string(filepath.Separator))
	}
	fmt.Fprintln(w)
	if w.err != nil {
		return fmt.Errorf("writing the summary: %w", w.err)
	}
	return nil
}

// isModelBuiltin reports whether name is a built-in study of another
// model than the split.
func isModelBuiltin(name string) bool {
	_, _, ok := experiments.BuiltinModelSpec(name)
	return ok
}

// runBuiltinModelSweep runs a built-in study of another model than the
// split (--builtin metastability): its spec is written to
// --out/NAME.yaml, beside the results it describes, and run as a spec
// file; with --print-spec it is printed instead.
func runBuiltinModelSweep(cmd *cobra.Command, f *sweepFlags, text, model string) error {
	if f.printSpec {
		_, err := cmd.OutOrStdout().Write([]byte(text))
		return err
	}
	if err := os.MkdirAll(f.out, 0o755); err != nil {
		return flagError("out", f.out, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	path := filepath.Join(f.out, f.builtin+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("writing the built-in spec: %w", err)
	}
	return runModelSweep(cmd, f, path, model)
}
