package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTrace writes a one-column trace "t" with the given lines.
func writeTrace(t *testing.T, lines ...string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(p, []byte("t\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestOverflowIsAnError: rates so small that grant instants or delay totals
// overflow float64 must give exit 2 with a message, never a panic, NaN
// results or a lost job (regressions found by a tester).
func TestOverflowIsAnError(t *testing.T) {
	four := writeTrace(t, "0", "0", "0", "0")
	zeros := make([]string, 13)
	for i := range zeros {
		zeros[i] = "0"
	}
	thirteen := writeTrace(t, zeros...)
	for _, tc := range []struct {
		args []string
		want string
	}{
		// 4 jobs at 0 with r = 1e-12, b = 1: the second job waits 1e12 s,
		// beyond the clock's 292 years: an error, on both paths.
		{[]string{"--trace", four, "--rate", "1e-12", "--burst", "1", "--k", "1"}, "beyond the clock's range"},
		{[]string{"--trace", four, "--rate", "1e-12", "--burst", "1", "--k", "1", "--engine"}, "beyond the clock's range"},
		{[]string{"--trace", thirteen, "--rate", "1e-11", "--burst", "2", "--k", "2", "--json"}, "beyond the clock's range"},
		// Rates whose exact value does not fit the model.
		{[]string{"--rate", "1e-320"}, "--rate 1e-320"},
		{[]string{"--rate", "5e-324"}, "--rate 5e-324"},
		{[]string{"--load", "1e-320"}, "--load 1e-320"},
	} {
		_, errOut, code := ratesim(t, append([]string{"run"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 mentioning %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestJobsOutSafety(t *testing.T) {
	trace := writeTrace(t, "0", "0", "1")
	before, _ := os.ReadFile(trace)
	// The input is never overwritten.
	if _, errOut, code := ratesim(t, "run", "--trace", trace, "--jobs-out", trace); code != 2 || !strings.Contains(errOut, "--jobs-out") {
		t.Errorf("--jobs-out = --trace: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(trace); !bytes.Equal(before, after) {
		t.Error("the trace was overwritten")
	}
	// A directory is refused before the run.
	if _, errOut, code := ratesim(t, "run", "--jobs", "10", "--jobs-out", t.TempDir()); code != 2 || !strings.Contains(errOut, "regular file") {
		t.Errorf("--jobs-out DIR: exit %d, %q", code, errOut)
	}
	// A symbolic link is written through: the link stays, its target gets
	// the rows, with the target's permissions.
	dir := t.TempDir()
	target, link := filepath.Join(dir, "target.csv"), filepath.Join(dir, "link.csv")
	os.WriteFile(target, []byte("old"), 0o640)
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if _, errOut, code := ratesim(t, "run", "--trace", trace, "--jobs-out", link); code != 0 {
		t.Fatalf("--jobs-out LINK: exit %d, %s", code, errOut)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v %v", fi.Mode(), err)
	}
	b, _ := os.ReadFile(target)
	if fi, _ := os.Stat(target); !strings.HasPrefix(string(b), "job,") || fi.Mode().Perm() != 0o640 {
		t.Errorf("target holds %q with mode %v, want the rows with mode 0640", b, fi.Mode().Perm())
	}
	// A new file is 0644.
	fresh := filepath.Join(dir, "fresh.csv")
	ratesim(t, "run", "--trace", trace, "--jobs-out", fresh)
	if fi, err := os.Stat(fresh); err != nil || fi.Mode().Perm() != 0o644 {
		t.Errorf("new --jobs-out file mode %v (%v), want 0644", fi.Mode().Perm(), err)
	}
	// "-" writes the rows to stdout and the summary to stderr.
	out, errOut, code := ratesim(t, "run", "--trace", trace, "--jobs-out", "-")
	if code != 0 || !strings.HasPrefix(out, "job,arrival_s,") || !strings.Contains(errOut, "check ") {
		t.Errorf("--jobs-out -: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestTraceFlagsNeedTrace: flags that only make sense with --trace are
// refused without it instead of being silently ignored.
func TestTraceFlagsNeedTrace(t *testing.T) {
	for _, args := range [][]string{
		{"--key-col", "k"}, {"--time-col", "t"}, {"--time-format", "bogus"}, {"--sub-col", "s"}, {"--sort"}, {"--skip-bad"},
		{"--dispatch", "hash"}, {"--dispatch", "column"},
		{"--k", "100000", "--burst", "1e6"},
	} {
		_, errOut, code := ratesim(t, append([]string{"run", "--jobs", "10"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "--"+strings.TrimPrefix(args[0], "--")) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 naming %s", args, code, errOut, args[0])
		}
	}
	trace := writeTrace(t, "0")
	if _, errOut, code := ratesim(t, "run", "--trace", trace, "--jobs", "0"); code != 2 || !strings.Contains(errOut, "--jobs 0") {
		t.Errorf("--trace --jobs 0: exit %d, %q", code, errOut)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("device full") }

// TestReportWriteError: a report that cannot be written is an error.
func TestReportWriteError(t *testing.T) {
	for _, args := range [][]string{{"run", "--jobs", "10"}, {"run", "--jobs", "10", "--json"}} {
		var errOut bytes.Buffer
		if code := Execute(args, failingWriter{}, &errOut); code != 2 || !strings.Contains(errOut.String(), "device full") {
			t.Errorf("%v to a failing writer: exit %d, %q", args, code, errOut.String())
		}
	}
}

// TestUndefinedRatio: when no job waits the ratio of means is undefined:
// the summary says so and the JSON has null.
func TestUndefinedRatio(t *testing.T) {
	trace := writeTrace(t, "0")
	out, _, _ := ratesim(t, "run", "--trace", trace)
	if !strings.Contains(out, "ratio undefined") {
		t.Errorf("summary: %s", out)
	}
	out, _, _ = ratesim(t, "run", "--trace", trace, "--json")
	if !strings.Contains(out, `"mean_delay_ratio": null`) {
		t.Errorf("JSON: %s", out)
	}
}

// TestInterruptDiscardsOutput: a run whose context is cancelled (as SIGINT
// does) stops, leaves no partial --jobs-out file (not even the temporary
// one), and maps to exit code 130.
func TestInterruptDiscardsOutput(t *testing.T) {
	dir := t.TempDir()
	root := newRootCmd()
	root.SetArgs([]string{"run", "--jobs", "100000000", "--jobs-out", filepath.Join(dir, "jobs.csv")})
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := root.ExecuteContext(ctx)
	if exitCode(err) != exitInterrupted {
		t.Errorf("cancelled run: err %v, exit %d, want %d", err, exitCode(err), exitInterrupted)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("files left behind: %v", left)
	}
}

// TestSecondReviewRegressions covers a second tester's findings: figures of
// a run where no job waits, statistics of a one-job trace, overlapping
// count intervals, and output paths refused before any work.
func TestSecondReviewRegressions(t *testing.T) {
	dir := t.TempDir()
	// Periodic arrivals below the rate: nobody waits, the CCDF is empty.
	if _, errOut, code := ratesim(t, "run", "--arrivals", "periodic", "--jobs", "100", "--plot", filepath.Join(dir, "figs")); code != 0 {
		t.Errorf("run --plot with no delays: exit %d, %s", code, errOut)
	}
	if figs, _ := filepath.Glob(filepath.Join(dir, "figs", "*.png")); len(figs) != 4 {
		t.Errorf("run --plot wrote %v, want 4 figures", figs)
	}
	one := writeTrace(t, "5")
	out, _, code := ratesim(t, "trace", "stats", one)
	if code != 0 || strings.Contains(out, "NaN") || !strings.Contains(out, "SCV undefined") {
		t.Errorf("trace stats of one job: exit %d:\n%s", code, out)
	}
	counts := filepath.Join(dir, "c.csv")
	os.WriteFile(counts, []byte("ts,count\n1700000000,12\n1700000030,1\n"), 0o644)
	if _, errOut, code := ratesim(t, "trace", "stats", counts, "--format", "counts"); code != 2 || !strings.Contains(errOut, "c.csv:3") || !strings.Contains(errOut, "overlap") {
		t.Errorf("overlapping count intervals: exit %d, %q", code, errOut)
	}
	if out, errOut, code := ratesim(t, "verify", "--instances", "10", "--out", counts); code != 2 || out != "" || !strings.Contains(errOut, "--out") {
		t.Errorf("verify --out FILE: exit %d, stdout %q, stderr %q; want exit 2 before any output", code, out, errOut)
	}
	for _, bad := range []string{filepath.Join(dir, "missing", "x.png"), filepath.Join(dir, "x.gif"), dir} {
		if out, errOut, code := ratesim(t, "trace", "stats", one, "--plot", bad); code != 2 || out != "" || !strings.Contains(errOut, "--plot") {
			t.Errorf("trace stats --plot %s: exit %d, stdout %q, stderr %q", bad, code, out, errOut)
		}
	}
}

// TestCountWords: counts agree with their nouns, and a ratio with no delay
// in the one bucket says so instead of printing +Inf.
func TestCountWords(t *testing.T) {
	for _, c := range []struct {
		got, want string
	}{{count(0, "violation"), "0 violations"}, {count(1, "violation"), "1 violation"}, {count(uint64(2), "Lemma 1 violation"), "2 Lemma 1 violations"}} {
		if c.got != c.want {
			t.Errorf("count: %q, want %q", c.got, c.want)
		}
	}
	trace := filepath.Join(t.TempDir(), "two.csv")
	if err := os.WriteFile(trace, []byte("t,sub\n0,0\n0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The one bucket (1, 2) passes both jobs; sub-bucket 0 of
	// (0.5, 1) + (0.5, 1) gets both and delays the second by 2 s.
	out, _, code := ratesim(t, "run", "--trace", trace, "--time-col", "t", "--sub-col", "sub", "--dispatch", "column", "--rate", "1", "--burst", "2", "--sub", "0.5:1,0.5:1")
	if code != 0 || !strings.Contains(out, "ratio undefined (no job waited in the one bucket; 1 job in the split)") || strings.Contains(out, "Inf") {
		t.Errorf("exit %d:\n%s", code, out)
	}
}

// TestRateAndWarmupLimits: a rate whose exact units cannot be built names
// --rate; a warm-up that leaves no job measured names --warmup; both exit 2.
func TestRateAndWarmupLimits(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "four.csv")
	if err := os.WriteFile(trace, []byte("t\n0\n1\n2\n3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "1e30"}, "--rate 1e30"},
		{[]string{"--warmup", "100"}, "--warmup 100: want fewer jobs than the 4"},
		{[]string{"--warmup", "-1"}, "--warmup -1"},
	} {
		_, errOut, code := ratesim(t, append([]string{"run", "--trace", trace, "--time-col", "t"}, c.args...)...)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}
