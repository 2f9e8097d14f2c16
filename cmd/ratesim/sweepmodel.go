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

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/experiments/drlstudy"
	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/internal/specfile"
	"github.com/ratesim/ratesim/internal/version"
)

// studyModels are the sweep spec models other than the split, each read
// by its package into an experiments.Model and drawn by it: the seam where
// further models plug in.
var studyModels = map[string]struct {
	read    func(path string) (study experiments.Model, name string, err error)
	figures func(t *experiments.Table, caption string) []experiments.NamedFigure
}{
	drlstudy.ModelName: {
		read: func(path string) (experiments.Model, string, error) {
			s, err := drlstudy.ReadStudy(path)
			if err != nil {
				return nil, "", err
			}
			return s, s.Name, nil
		},
		figures: drlstudy.SweepFigures,
	},
	clientstudy.ClientsModel: {
		read: func(path string) (experiments.Model, string, error) {
			s, err := clientstudy.ReadClientsStudy(path, drlstudy.ClientsDesigns{})
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
	data, err := specfile.Read(f, path)
	if err != nil {
		return "", err
	}
	return specfile.Model(data, path)
}

// runModelSweep runs the sweep of a spec of another model than the split
// (model: drl, clients): every point and replication through experiments.RunModel,
// the results table written to results.csv and results.json (or the
// shard's files), and the model's figures for a whole sweep.
func runModelSweep(cmd *cobra.Command, f *sweepFlags, path, model string) error {
	m, ok := studyModels[model]
	if !ok {
		names := []string{specfile.SplitModel}
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
	s, err := f.startSweep(study.NumPoints(), false, path)
	if err != nil {
		return err
	}
	digest := ""
	if data, err := os.ReadFile(path); err == nil {
		digest = fmt.Sprintf("%x", sha256.Sum256(data))
	}
	var done *experiments.Table
	if prevPath := s.resumePath(); prevPath != "" {
		if done, err = experiments.ReadTable(prevPath); err != nil {
			return fmt.Errorf("--resume: %w", err)
		}
		vi := version.Get()
		cols := append([]string{"point"}, study.Columns()...)
		if err := done.CheckResume(model, digest, study.RootSeed(), study.NumReplications(), cols, s.shard, vi.Version, vi.GoVersion, vi.Commit()); err != nil {
			return fmt.Errorf("--resume: %s: %w (use --force to start over)", prevPath, err)
		}
	}
	ndone := 0
	if done != nil {
		ndone = len(done.Points)
	}
	stderr := cmd.ErrOrStderr()
	progress, stop := s.begin(stderr, path+" (model "+model+")", study.NumReplications(), ndone, done != nil)
	t, runErr := experiments.RunModel(cmd.Context(), name, model, study, experiments.SweepOptions{
		Workers: f.threads, Shard: s.shard, DoneTable: done, Progress: progress,
	})
	stop()
	if t == nil || (runErr != nil && !t.Interrupted) {
		return runErr
	}
	t.SpecDigest = digest
	return f.finishModelSweep(cmd, s, t, path, runErr)
}

// finishModelSweep writes a model's sweep table (what finished, when
// interrupted; figures only for a whole sweep) and its summary.
func (f *sweepFlags) finishModelSweep(cmd *cobra.Command, s *sweepSession, t *experiments.Table, path string, runErr error) error {
	csvPath, jsonPath := filepath.Join(f.out, s.stem+".csv"), filepath.Join(f.out, s.stem+".json")
	if err := t.WriteFiles(csvPath, jsonPath); err != nil {
		return err
	}
	paths := []string{csvPath, jsonPath}
	if t.Interrupted {
		s.interrupted(cmd.ErrOrStderr(), time.Since(s.start), len(t.Points), paths)
		return runErr
	}
	caption, title := modelCaption(t), ""
	if t.Name != "" {
		title = t.Name + ": "
	}
	var figs []string
	dir := filepath.Join(f.out, "figures")
	if s.shard.Count == 0 {
		var err error
		if figs, err = f.modelFigures(cmd, t, caption); err != nil {
			return err
		}
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	sh := ""
	if t.Shard != "" {
		sh = ", shard " + t.Shard
	}
	fmt.Fprintf(w, "sweep      %s%s × %s (model %s), %d rows, seed %d%s\n", title, count(len(t.Points), "point"), count(t.Replications, "replication"), t.Model, len(t.Rows), t.Seed, sh)
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

// modelCaption opens the captions of a model's sweep figures with what
// its table holds, the spec's name (or, for a spec without one, the
// model), so that figures merged from shards equal a single run's byte
// for byte (issue 29; the spec's path, which merge cannot know, is left
// out).
func modelCaption(t *experiments.Table) string {
	if t.Name != "" {
		return t.Name
	}
	return "a sweep of the " + t.Model + " model"
}

// modelFigures replaces the figures of a model's sweep in --out/figures
// with those of t (none with --no-figures) and returns their paths.
func (o *outputFlags) modelFigures(cmd *cobra.Command, t *experiments.Table, caption string) ([]string, error) {
	dir := o.removeSweepFigures()
	m, ok := studyModels[t.Model]
	if o.noFigures || !ok {
		return nil, nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, fmt.Errorf("--out %s: %w", o.out, err)
	}
	return experiments.SaveFigures(cmd.Context(), m.figures(t, caption), dir, o.format)
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
	if err := f.checkNotInputs("results", []string{"results.csv", "results.json"}, args...); err != nil {
		return err
	}
	if err := f.prepareOut("results.csv", "results.json"); err != nil {
		return err
	}
	csvPath, jsonPath := filepath.Join(f.out, "results.csv"), filepath.Join(f.out, "results.json")
	if err := t.WriteFiles(csvPath, jsonPath); err != nil {
		return err
	}
	figs, err := f.modelFigures(cmd, t, modelCaption(t))
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
	_, _, ok := clientstudy.BuiltinSpec(name)
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
	if err := os.MkdirAll(f.out, 0o777); err != nil {
		return flagError("out", f.out, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	path := filepath.Join(f.out, f.builtin+".yaml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		return fmt.Errorf("writing the built-in spec: %w", err)
	}
	return runModelSweep(cmd, f, path, model)
}

// builtinNames lists the built-in studies of --builtin but the backoff
// study: the split model's and the clients model's, sorted.
func builtinNames() []string {
	names := append(splitstudy.BuiltinNames(), clientstudy.BuiltinNames()...)
	slices.Sort(names)
	return names
}
