package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments/splitstudy"

	"github.com/ratesim/ratesim/experiments"
)

const smallSpec = "../../testdata/sweep-small.yaml"

func readFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestSweepCommand runs the small example spec: results and figures are
// written, the summary reports no violation, and a second run refuses to
// overwrite without --force.
func TestSweepCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	stdout, stderr, code := ratesim(t, "sweep", smallSpec, "-o", out, "-j", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for _, want := range []string{"sweep      small: 18 points × 4 replications of 4400 jobs (400 warm-up), seed 5", "0 violations", "least bad split", "ρ = 0.6", "6 png figures"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("summary lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "18 points × 4 replications on 2 workers") {
		t.Errorf("stderr %q", stderr)
	}
	csv := readFile(t, filepath.Join(out, "results.csv"))
	if n := bytes.Count(csv, []byte("\n")); n != 19 {
		t.Errorf("results.csv has %d lines, want 19", n)
	}
	var meta struct {
		Version string `json:"ratesim_version"`
		Go      string `json:"go_version"`
		Seed    uint64
		Spec    map[string]any
		Points  []map[string]any
	}
	if err := json.Unmarshal(readFile(t, filepath.Join(out, "results.json")), &meta); err != nil {
		t.Fatal(err)
	}
	if meta.Version == "" || !strings.HasPrefix(meta.Go, "go") || meta.Seed != 5 || meta.Spec["name"] != "small" || len(meta.Points) != 18 {
		t.Errorf("results.json metadata %+v", meta)
	}
	figs, _ := filepath.Glob(filepath.Join(out, "figures", "*.png"))
	if len(figs) != 6 {
		t.Errorf("%d figures, want 6", len(figs))
	}
	f, err := os.Open(figs[0])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := png.DecodeConfig(f); err != nil {
		t.Errorf("%s: %v", figs[0], err)
	}
	f.Close()

	_, stderr, code = ratesim(t, "sweep", smallSpec, "-o", out, "--quiet")
	if code != 2 || !strings.Contains(stderr, "--force") {
		t.Errorf("second run: exit %d, %q; want 2 and a hint about --force", code, stderr)
	}
	_, stderr, code = ratesim(t, "sweep", smallSpec, "-o", out, "--quiet", "--force", "--no-figures")
	if code != 0 || stderr != "" {
		t.Errorf("--force --quiet: exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
}

// TestSweepDeterminism: -j 1 and -j 2 write identical files, and the
// merged shards write the same files as the single run.
func TestSweepDeterminism(t *testing.T) {
	dir := t.TempDir()
	run := func(args ...string) {
		t.Helper()
		if _, stderr, code := ratesim(t, append([]string{"sweep", smallSpec, "--quiet", "--no-figures"}, args...)...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, stderr)
		}
	}
	run("-j", "1", "-o", filepath.Join(dir, "j1"))
	run("-j", "2", "-o", filepath.Join(dir, "j2"))
	for i := 1; i <= 3; i++ {
		run("-j", "2", "--shard", []string{"1/3", "2/3", "3/3"}[i-1], "-o", filepath.Join(dir, "shards"))
	}
	shards, _ := filepath.Glob(filepath.Join(dir, "shards", "shard-*-of-3.json"))
	if len(shards) != 3 {
		t.Fatalf("shard files %v, want 3", shards)
	}
	stdout, stderr, code := ratesim(t, append([]string{"merge", "-o", filepath.Join(dir, "merged"), "--no-figures"}, shards...)...)
	if code != 0 || !strings.Contains(stdout, "merged     3 shards, 18 points") {
		t.Fatalf("merge: exit %d, %s %s", code, stdout, stderr)
	}
	for _, name := range []string{"results.csv", "results.json"} {
		j1 := readFile(t, filepath.Join(dir, "j1", name))
		if !bytes.Equal(j1, readFile(t, filepath.Join(dir, "j2", name))) {
			t.Errorf("%s differs between -j 1 and -j 2", name)
		}
		if !bytes.Equal(j1, readFile(t, filepath.Join(dir, "merged", name))) {
			t.Errorf("%s differs between the single run and the merged shards", name)
		}
	}
	// Merging an incomplete set is an error that names the missing points.
	_, stderr, code = ratesim(t, "merge", "-o", filepath.Join(dir, "bad"), shards[0], shards[1])
	if code != 2 || !strings.Contains(stderr, "missing") {
		t.Errorf("merge of 2 of 3 shards: exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "bad", "results.csv")); err == nil {
		t.Error("a failed merge wrote results")
	}
}

// TestSweepUsageErrors: bad flags and specs exit 2 naming the flag or the
// file and line.
func TestSweepUsageErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	os.WriteFile(bad, []byte("name: x\nlaod: 0.9\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sweep", "--load", "-1"}, "--load"},
		{[]string{"sweep", "--grid", "lod=1"}, "--grid"},
		{[]string{"sweep", "--grid", "p=0.3,0.5"}, "--grid"}, // p needs dispatch weighted
		{[]string{"sweep", "--shard", "3/2"}, "--shard"},
		{[]string{"sweep", "--builtin", "nope"}, "--builtin"},
		{[]string{"sweep", "--plot-format", "gif"}, "--plot-format gif"},
		{[]string{"sweep", "-j", "-1"}, "-j -1: want"},
		{[]string{"sweep", "--rate-shares", "0.5,x"}, "--rate-shares"},
		{[]string{"sweep", "--rate", "10/x"}, "--rate 10/x: want a decimal such as 0.7 or a fraction such as 10/13"},
		{[]string{"sweep", "--load", "10/3"}, "--load 10/3: want a decimal number (--load: offered load ρ = λ/r (> 0)); this flag takes decimals"},
		{[]string{"sweep", "--progress-every", "1.5ns"}, "--progress-every 1.5ns: want a finite duration >= 0, " + engine.DurationSyntax + " (finer than 1 ns: 1ns or 2ns fit)"},
		{[]string{"sweep", bad}, "bad.yaml:2"},
		{[]string{"sweep", bad, "--builtin", "split-ratio"}, "not both"},
		{[]string{"merge", "x.csv"}, ".json"},
		{[]string{"plot", filepath.Join(dir, "none.json")}, "none.json"},
	} {
		_, stderr, code := ratesim(t, append(tc.args, "-o", filepath.Join(dir, "out"))...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %q", tc.args, code, stderr, tc.want)
		}
	}
}

// TestSweepPrintSpec: --print-spec writes YAML that reads back to the
// built-in study with the flags applied.
func TestSweepPrintSpec(t *testing.T) {
	stdout, _, code := ratesim(t, "sweep", "--builtin", "split-ratio", "--jobs-per-replication", "1000", "--print-spec")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	s, err := splitstudy.ParseSpec(strings.NewReader(stdout), "printed")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := splitstudy.Builtin("split-ratio")
	b.Jobs = 1000
	got, _ := json.Marshal(s)
	want, _ := json.Marshal(b)
	if !bytes.Equal(got, want) {
		t.Errorf("printed spec\n%s\nwant\n%s", got, want)
	}
}

// TestSweepInterrupt cancels a sweep that takes a few seconds: it exits
// 130 and keeps the finished points, marked interrupted.
func TestSweepInterrupt(t *testing.T) {
	out := filepath.Join(t.TempDir(), "i")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	root := newRootCmd()
	var stdout, stderr bytes.Buffer
	root.SetOut(&stdout)
	root.SetErr(&stderr)
	root.SetArgs([]string{"sweep", smallSpec, "--jobs-per-replication", "200000", "--replications", "2", "-j", "2", "-o", out})
	err := root.ExecuteContext(ctx)
	if !errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, context.Canceled) {
		t.Fatalf("error %v, want the context's", err)
	}
	if !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("stderr %q", stderr.String())
	}
	res, err := splitstudy.ReadResults(filepath.Join(out, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Interrupted || len(res.Points) >= 18 {
		t.Errorf("interrupted %v with %d points", res.Interrupted, len(res.Points))
	}
}

// TestSweepResume: a results folder holding some of the points (as an
// interrupted sweep leaves it) is completed by --resume into byte for byte
// the files of one uninterrupted run; results of another experiment are
// refused, and --resume with no results runs the whole sweep.
func TestSweepResume(t *testing.T) {
	dir := t.TempDir()
	whole := filepath.Join(dir, "whole")
	if _, stderr, code := ratesim(t, "sweep", smallSpec, "-o", whole, "-j", "2", "--no-figures", "--quiet"); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	full, err := splitstudy.ReadResults(filepath.Join(whole, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	part := filepath.Join(dir, "part")
	if err := os.Mkdir(part, 0o755); err != nil {
		t.Fatal(err)
	}
	cut := *full
	cut.Interrupted = true
	cut.Points = nil
	for i, p := range full.Points {
		if i%3 != 1 { // any subset: 12 of the 18 points
			cut.Points = append(cut.Points, p)
		}
	}
	if err := cut.WriteFiles(filepath.Join(part, "results.csv"), filepath.Join(part, "results.json")); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := ratesim(t, "sweep", smallSpec, "-o", part, "-j", "2", "--no-figures")
	if code != 2 || !strings.Contains(stderr, "use --resume to run only the points it lacks") {
		t.Errorf("without --resume: exit %d, %q; want 2 and a hint about --resume", code, stderr)
	}
	_, stderr, code = ratesim(t, "sweep", smallSpec, "-o", part, "-j", "2", "--no-figures", "--resume", "--seed", "6")
	if code != 2 || !strings.Contains(stderr, "seed 5 in the results, 6 in this run") || !strings.Contains(stderr, "--force") {
		t.Errorf("another seed: exit %d, %q; want 2 saying what differs", code, stderr)
	}
	_, stderr, code = ratesim(t, "sweep", smallSpec, "-o", part, "--resume", "--force")
	if code != 2 || !strings.Contains(stderr, "give one") {
		t.Errorf("--resume --force: exit %d, %q", code, stderr)
	}
	_, stderr, code = ratesim(t, "sweep", smallSpec, "-o", part, "-j", "1", "--no-figures", "--resume")
	if code != 0 || !strings.Contains(stderr, "on 1 worker (resumed: 12 finished, 6 to run)") || !strings.Contains(stderr, " s on 1 worker (") {
		t.Fatalf("--resume: exit %d, %q", code, stderr)
	}
	fresh := filepath.Join(dir, "fresh")
	if _, stderr, code := ratesim(t, "sweep", smallSpec, "-o", fresh, "-j", "2", "--no-figures", "--resume"); code != 0 {
		t.Fatalf("--resume into an empty folder: exit %d, %s", code, stderr)
	}
	for _, name := range []string{"results.csv", "results.json"} {
		want := readFile(t, filepath.Join(whole, name))
		for _, d := range []string{part, fresh} {
			if !bytes.Equal(readFile(t, filepath.Join(d, name)), want) {
				t.Errorf("%s of %s differs from the uninterrupted run's", name, filepath.Base(d))
			}
		}
	}
}

// TestProgressLine: the batch-log progress line counts points and
// replications and extrapolates the time left from the pace so far.
func TestProgressLine(t *testing.T) {
	p := experiments.SweepProgress{Points: 4, PointsTotal: 18, Replications: 18, ReplicationsTotal: 72}
	got := progressLine(p, 90*time.Second)
	want := "ratesim: progress: 4 of 18 points, 18 of 72 replications, 1m30s elapsed, ETA 4m30s"
	if got != want {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if got := progressLine(experiments.SweepProgress{PointsTotal: 1, ReplicationsTotal: 1}, time.Second); !strings.HasSuffix(got, "0 of 1 point, 0 of 1 replication, 1s elapsed, ETA unknown") {
		t.Errorf("nothing done yet: %q", got)
	}
}

// TestSweepWarningsPerPoint: the short-replication warning reads the jobs
// each point runs, here from --grid jobs=200,10000 with a warm-up of 1000:
// point 0 (200 < 10000 measured jobs) is short and quoted, point 1 is not;
// the summary gives the range of jobs the points ran (200 + 1000 to
// 10000 + 1000) and says the replications share their random numbers.
func TestSweepWarningsPerPoint(t *testing.T) {
	stdout, stderr, code := ratesim(t, "sweep", "--grid", "jobs=200,10000", "--warmup", "1000", "--replications", "2",
		"--load", "0.5", "-o", t.TempDir(), "--no-figures", "-j", "2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if want := "ratesim: warning: 1 of 2 points have short replications (point 0: 200 jobs after a warm-up of 1000)"; !strings.Contains(stderr, want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr)
	}
	for _, want := range []string{"2 points × 2 replications of 1200 to 11000 jobs (1000 warm-up)", "paired     common random numbers"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
}
