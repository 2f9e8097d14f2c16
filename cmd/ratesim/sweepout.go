package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/plots"
)

// outputFlags are the output flags shared by sweep and merge.
type outputFlags struct {
	out       string
	force     bool
	format    string
	noFigures bool
	quiet     bool
	resume    bool // --resume: keep the finished points of --out
	canResume bool // the command has --resume
}

func (o *outputFlags) register(cmd *cobra.Command, what string) {
	fl := cmd.Flags()
	fl.StringVarP(&o.out, "out", "o", "ratesim-sweep", "output folder for results.csv, results.json and "+what)
	markOutput(cmd, "out", outputFolder)
	fl.BoolVar(&o.force, "force", false, "overwrite existing results in --out")
	fl.StringVar(&o.format, "plot-format", "png", "figure format: png, svg or pdf")
	fl.BoolVar(&o.noFigures, "no-figures", false, "write the results only, no figures")
	fl.BoolVarP(&o.quiet, "quiet", "q", false, "no progress bar or messages on standard error")
}

func (o *outputFlags) check() error {
	if !validFormat(o.format) {
		return flagError("plot-format", o.format, "png, svg or pdf")
	}
	if o.out == "" {
		return flagError("out", `""`, "a folder")
	}
	return nil
}

func validFormat(f string) bool {
	for _, x := range plots.Formats {
		if f == x {
			return true
		}
	}
	return false
}

// checkNotInputs refuses an --out folder where the named files or the
// figures would replace one of inputs, and claims it: as a whole, or,
// for the shard whose files are stem.csv and stem.json (stem
// shard-i-of-n), by a lock of the shard's own, so that the shards of a
// sweep can write one folder side by side.
func (o *outputFlags) checkNotInputs(stem string, names []string, inputs ...string) error {
	lock := atomicfile.LockName
	if stem != "results" {
		lock += "-" + stem
	}
	if err := checkDirNotInputAs("out", o.out, lock, names, inputs...); err != nil {
		return err
	}
	return checkDirNotInputAs("out", filepath.Join(o.out, "figures"), lock, []string{"*." + o.format}, inputs...)
}

// prepareOut creates the folder and refuses to overwrite the named files
// without --force.
func (o *outputFlags) prepareOut(names ...string) error {
	if err := os.MkdirAll(o.out, 0o777); err != nil {
		return flagError("out", o.out, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	if o.force {
		return nil
	}
	for _, n := range names {
		p := filepath.Join(o.out, n)
		if _, err := os.Stat(p); err == nil {
			how := "use --force to overwrite it"
			if o.canResume {
				how = "use --resume to run only the points it lacks, or --force to overwrite it"
			}
			return flagError("out", o.out, fmt.Sprintf("a folder without results: %s exists (%s)", p, how))
		}
	}
	return nil
}

// sweepFigurePatterns match the figures a sweep writes into --out/figures,
// of every model: a new sweep removes them first.
var sweepFigurePatterns = []string{"heatmap-*", "ratio-*", "delay-*", "drl-sweep-*", "clients-sweep-*"}

// removeSweepFigures removes the figures of any sweep (every model's, in
// any format) from --out/figures and returns that folder.
func (o *outputFlags) removeSweepFigures() string {
	dir := filepath.Join(o.out, "figures")
	for _, pattern := range sweepFigurePatterns {
		old, _ := filepath.Glob(filepath.Join(dir, pattern))
		for _, f := range old {
			if ext := filepath.Ext(f); ext == ".png" || ext == ".svg" || ext == ".pdf" {
				os.Remove(f)
			}
		}
	}
	return dir
}

// writeResults writes the CSV and JSON and, unless turned off, the figures;
// it returns the paths written.
func (o *outputFlags) writeResults(ctx context.Context, res *splitstudy.Results, stem string, figures bool) ([]string, int, error) {
	csvPath := filepath.Join(o.out, stem+".csv")
	jsonPath := filepath.Join(o.out, stem+".json")
	if err := res.WriteFiles(csvPath, jsonPath); err != nil {
		return nil, 0, err
	}
	paths := []string{csvPath, jsonPath}
	// Figures of an earlier study in the same folder (--force) would sit
	// beside the new results without belonging to them, even when these
	// get no figures (an interrupted sweep, a shard, --no-figures): remove
	// the sweep figures (heatmap-, ratio-, delay- in any format) first.
	dir := o.removeSweepFigures()
	if !figures || o.noFigures {
		return paths, 0, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return paths, 0, fmt.Errorf("--out %s: %w", o.out, err)
	}
	figs, err := experiments.SaveFigures(ctx, splitstudy.Named(splitstudy.SweepFigures(res)), dir, o.format)
	if err != nil {
		return paths, len(figs), err
	}
	return append(paths, dir+string(filepath.Separator)), len(figs), nil
}

// isTerminal reports whether w is a terminal.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runFlags checks the flags every sweep runs with (outputs, -j, --shard,
// --resume with --force, --progress-every) and returns the shard and the
// stem of its results files ("results", or "shard-I-of-N").
func (f *sweepFlags) runFlags() (shard experiments.Shard, stem string, err error) {
	if err := f.check(); err != nil {
		return shard, "", err
	}
	if f.threads == 0 {
		f.threads = runtime.GOMAXPROCS(0)
	}
	if f.threads < 1 || f.threads > 4096 {
		return shard, "", flagError("threads", f.threads, "between 1 and 4096 workers, or 0 for all cores")
	}
	stem = "results"
	if f.shard != "" {
		if shard, err = experiments.ParseShard(f.shard); err != nil {
			return shard, "", flagError("shard", f.shard, "i/n with 1 <= i <= n, e.g. 2/8")
		}
		stem = fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count)
	}
	if f.resume && f.force {
		return shard, "", fmt.Errorf("--resume keeps the finished points and --force discards them: give one")
	}
	if f.progressEvery < 0 {
		return shard, "", flagError("progress-every", f.progressEvery, "a duration >= 0, e.g. 1m (0: no progress lines)")
	}
	return shard, stem, nil
}

// progress returns the progress callback of a sweep (a bar on a terminal,
// a line every --progress-every otherwise, nothing with --quiet) with
// finished of points points already done and replications to run, and the
// function that ends it.
func (f *sweepFlags) progress(stderr io.Writer, finished, points, replications int) (func(experiments.SweepProgress), func()) {
	var bar *progressbar.ProgressBar
	var plog *progressLog
	switch {
	case f.quiet:
	case isTerminal(stderr):
		bar = progressbar.NewOptions(replications,
			progressbar.OptionSetWriter(stderr),
			progressbar.OptionSetDescription("replications"),
			progressbar.OptionShowCount(),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
		)
	case f.progressEvery > 0:
		plog = startProgressLog(stderr, f.progressEvery, experiments.SweepProgress{
			Points: finished, PointsTotal: points, ReplicationsTotal: replications})
	}
	update := func(p experiments.SweepProgress) {
		if bar != nil {
			bar.Set(p.Replications)
		}
		if plog != nil {
			plog.update(p)
		}
	}
	stop := func() {
		if bar != nil {
			bar.Exit()
		}
		if plog != nil {
			plog.close()
		}
	}
	return update, stop
}

// sweepSession is what every sweep does around its study's run: the shard
// and the stem of its result files, the shard's points, and the clock.
type sweepSession struct {
	f     *sweepFlags
	shard experiments.Shard
	stem  string // "results", or "shard-I-of-N"
	mine  int    // the points of the shard
	start time.Time
}

// startSweep checks the flags every sweep runs with, counts the shard's
// points of a sweep of points, and prepares --out: it refuses to replace
// inputs, or results without --force or --resume. With checkMem it
// refuses a shard whose results would not fit the machine's memory.
func (f *sweepFlags) startSweep(points int, checkMem bool, inputs ...string) (*sweepSession, error) {
	shard, stem, err := f.runFlags()
	if err != nil {
		return nil, err
	}
	mine := 0
	for p := range points {
		if shard.Has(p) {
			mine++
		}
	}
	if checkMem {
		if err := checkSweepMemory(mine); err != nil {
			return nil, err
		}
	}
	if err := f.checkNotInputs(stem, []string{stem + ".csv", stem + ".json"}, inputs...); err != nil {
		return nil, err
	}
	var names []string
	if !f.resume {
		names = []string{stem + ".csv", stem + ".json"}
	}
	if err := f.prepareOut(names...); err != nil {
		return nil, err
	}
	return &sweepSession{f: f, shard: shard, stem: stem, mine: mine}, nil
}

// resumePath is the results file --resume continues, "" when there is
// none (no --resume, or no results yet).
func (s *sweepSession) resumePath() string {
	p := filepath.Join(s.f.out, s.stem+".json")
	if !s.f.resume {
		return ""
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// begin prints the sweep's first line (unless --quiet), "resumed" with
// the points done when resumed, starts the clock and returns the
// progress callback and the function that ends it.
func (s *sweepSession) begin(stderr io.Writer, what string, reps, done int, resumed bool) (func(experiments.SweepProgress), func()) {
	if !s.f.quiet {
		note := ""
		if resumed {
			note = fmt.Sprintf(" (resumed: %d finished, %d to run)", done, s.mine-done)
		}
		fmt.Fprintf(stderr, "ratesim: sweep %s: %s × %s on %s%s\n", what, count(s.mine, "point"), count(reps, "replication"), count(s.f.threads, "worker"), note)
	}
	s.start = time.Now()
	return s.f.progress(stderr, done, s.mine, (s.mine-done)*reps)
}

// interrupted says what an interrupted sweep wrote.
func (s *sweepSession) interrupted(stderr io.Writer, elapsed time.Duration, finished int, paths []string) {
	fmt.Fprintf(stderr, "ratesim: interrupted after %.1f s: %d of %d points finished, written to %s; add --resume to the same command to run the rest\n",
		elapsed.Seconds(), finished, s.mine, strings.Join(paths, ", "))
}
