package main

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments"
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
}

// specModel returns the model of the spec file at path ("split" when it
// names none).
func specModel(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("experiments: %w", err)
	}
	return experiments.SpecModel(data, path)
}

// runModelSweep runs the sweep of a spec of another model than the split
// (model: drl): every point and replication through experiments.RunModel,
// the results table written to results.csv and results.json (or the
// shard's files), and the model's figures for a whole sweep.
func runModelSweep(cmd *cobra.Command, f *sweepFlags, path, model string) error {
	m, ok := studyModels[model]
	if !ok {
		names := []string{experiments.SplitModel}
		for n := range studyModels {
			names = append(names, n)
		}
		return fmt.Errorf("%s: model %q: want one of %s", path, model, strings.Join(names, ", "))
	}
	changed := cmd.Flags().Changed
	for _, fl := range []string{"builtin", "name", "arrivals", "load", "rate", "burst", "k", "rate-shares", "burst-shares", "dispatch",
		"traffic-shares", "order", "jobs-per-replication", "warmup", "jobs", "replications", "seed", "grid", "print-spec"} {
		if changed(fl) {
			return fmt.Errorf("--%s applies to split specs: a %s spec (%s) sets its parameters in the file", fl, model, path)
		}
	}
	if f.resume {
		return fmt.Errorf("--resume applies to split specs: a %s sweep cannot resume yet (run it again with --force, or run it as shards with --shard i/n)", model)
	}
	study, name, err := m.read(path)
	if err != nil {
		return err
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.threads == 0 {
		f.threads = runtime.GOMAXPROCS(0)
	}
	if f.threads < 1 || f.threads > 4096 {
		return flagError("threads", f.threads, "between 1 and 4096 workers, or 0 for all cores")
	}
	var shard experiments.Shard
	stem := "results"
	if f.shard != "" {
		if shard, err = experiments.ParseShard(f.shard); err != nil {
			return flagError("shard", f.shard, "i/n with 1 <= i <= n, e.g. 2/8")
		}
		stem = fmt.Sprintf("shard-%d-of-%d", shard.Index, shard.Count)
	}
	if f.progressEvery < 0 {
		return flagError("progress-every", f.progressEvery, "a duration >= 0, e.g. 1m (0: no progress lines)")
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
	if err := f.prepareOut(stem+".csv", stem+".json"); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	reps := study.NumReplications()
	if !f.quiet {
		fmt.Fprintf(stderr, "ratesim: sweep %s (model %s): %s × %s on %s\n", path, model, count(mine, "point"), count(reps, "replication"), count(f.threads, "worker"))
	}
	var bar *progressbar.ProgressBar
	var plog *progressLog
	switch {
	case f.quiet:
	case isTerminal(stderr):
		bar = progressbar.NewOptions(mine*reps, progressbar.OptionSetWriter(stderr), progressbar.OptionSetDescription("replications"),
			progressbar.OptionShowCount(), progressbar.OptionSetPredictTime(true), progressbar.OptionThrottle(200*time.Millisecond),
			progressbar.OptionFullWidth(), progressbar.OptionClearOnFinish())
	case f.progressEvery > 0:
		plog = startProgressLog(stderr, f.progressEvery, experiments.SweepProgress{PointsTotal: mine, ReplicationsTotal: mine * reps})
	}
	start := time.Now()
	t, runErr := experiments.RunModel(cmd.Context(), name, model, study, experiments.SweepOptions{
		Workers: f.threads,
		Shard:   shard,
		Progress: func(p experiments.SweepProgress) {
			if bar != nil {
				bar.Set(p.Replications)
			}
			if plog != nil {
				plog.update(p)
			}
		},
	})
	if bar != nil {
		bar.Exit()
	}
	if plog != nil {
		plog.close()
	}
	if t == nil || (runErr != nil && !t.Interrupted) {
		return runErr
	}
	csvPath, jsonPath := filepath.Join(f.out, stem+".csv"), filepath.Join(f.out, stem+".json")
	if err := t.WriteFiles(csvPath, jsonPath); err != nil {
		return err
	}
	paths := []string{csvPath, jsonPath}
	if t.Interrupted {
		fmt.Fprintf(stderr, "ratesim: interrupted after %.1f s: %d of %d points finished, written to %s\n", time.Since(start).Seconds(), len(t.Points), mine, strings.Join(paths, ", "))
		return runErr
	}
	dir := filepath.Join(f.out, "figures")
	var figs []string
	if shard.Count == 0 && !f.noFigures {
		old, _ := filepath.Glob(filepath.Join(dir, model+"-sweep-*."+f.format))
		for _, o := range old {
			os.Remove(o)
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("--out %s: %w", f.out, err)
		}
		caption := path
		if name != "" {
			caption = name + " (" + path + ")"
		}
		if figs, err = experiments.SaveFiguresContext(cmd.Context(), m.figures(t, caption), dir, f.format); err != nil {
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
