package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var regen = flag.Bool("regen", false, "rewrite the golden files under testdata/")

// ratesim runs the command in-process and returns stdout, stderr and the
// exit code.
func ratesim(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := Execute(args, &out, &errOut)
	return out.String(), errOut.String(), code
}

// golden compares got with testdata/name, or rewrites it with -regen.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *regen {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -regen to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from the golden file:\n--- got ---\n%s\n--- want ---\n%s", name, got, want)
	}
}

// TestFourAtZero runs the hand-computed example of issue 2 end to end:
// r = 1, b = 2, four arrivals at 0; one bucket delays 0, 0, 1, 2; the
// round-robin split (0.5, 1) + (0.5, 1) delays 0, 0, 2, 2.
func TestFourAtZero(t *testing.T) {
	jobs := filepath.Join(t.TempDir(), "jobs.csv")
	out, errOut, code := ratesim(t, "run", "--trace", "testdata/four_at_zero.csv", "--rate", "1", "--burst", "2", "--sub", "0.5:1,0.5:1", "--jobs-out", jobs)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	got, err := os.ReadFile(jobs)
	if err != nil {
		t.Fatal(err)
	}
	want := "job,arrival_s,sub_bucket,delay_one_s,delay_split_s\n0,0,0,0,0\n1,0,1,0,0\n2,0,0,1,2\n3,0,1,2,2\n"
	if string(got) != want {
		t.Errorf("jobs CSV:\n%s\nwant:\n%s", got, want)
	}
	golden(t, "four_at_zero.summary.golden", out)

	out, _, code = ratesim(t, "run", "--trace", "testdata/four_at_zero.csv", "--rate", "1", "--burst", "2", "--sub", "0.5:1,0.5:1", "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d", code)
	}
	golden(t, "four_at_zero.json.golden", out)
	var res struct {
		Jobs  int64
		One   map[string]any
		Split map[string]any
		Check map[string]any
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 4 || res.One["mean_delay_s"] != 0.75 || res.Split["mean_delay_s"] != 1.0 ||
		res.One["total_delay_s"] != 3.0 || res.Split["max_delay_s"] != 2.0 || res.Check["violations"] != 0.0 || res.Check["events"] != 8.0 {
		t.Errorf("JSON result %+v", res)
	}
	for _, key := range []string{"mean_delay_s", "p50_delay_s", "p90_delay_s", "p99_delay_s", "max_delay_s", "total_delay_s", "quantiles"} {
		if _, ok := res.One[key]; !ok {
			t.Errorf("JSON one has no %q", key)
		}
	}
	if _, ok := res.Check["min_slack_s"]; !ok {
		t.Error(`JSON check has no "min_slack_s"`)
	}
}

// TestNegativeControl: one bucket (1, 1) against (0.5, 1) + (0.5, 1), bursts
// adding to 2 > 1, two arrivals at 0 sent to different sub-buckets. The one
// bucket delays the second job by 1 s (S = 1); the split delays none
// (S^(2) = 0): S(t) = t > S^(2)(t) = 0 for every t > 0, so run must
// report the violation's exact first instant, 0, found at the one bucket's
// grant at t = 1 s, and exit 1.
func TestNegativeControl(t *testing.T) {
	args := []string{"run", "--trace", "testdata/negative_control.csv", "--time-col", "t", "--sub-col", "sub", "--dispatch", "column",
		"--rate", "1", "--burst", "1", "--sub", "0.5:1,0.5:1"}
	_, errOut, code := ratesim(t, args...)
	if code != 2 || !strings.Contains(errOut, "--allow-unequal") {
		t.Errorf("without --allow-unequal: exit %d, stderr %q; want 2 and a hint", code, errOut)
	}
	out, errOut, code := ratesim(t, append(args, "--allow-unequal")...)
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %s", code, errOut)
	}
	want := "FIRST VIOLATION at t = 0 s (exact; S(t) > S^(k)(t) just after), found at t = 1 s: S = 1 s, S^(k) = 0 s, N = 0, sum N_l = 0 (Theorem 2)"
	if !strings.Contains(out, want) {
		t.Errorf("output lacks %q:\n%s", want, out)
	}
	if !strings.Contains(errOut, "theorem check failed") {
		t.Errorf("stderr %q lacks the failure", errOut)
	}
}

// TestTinyRate: rate 1e-9 tokens/s, burst 1, arrivals at 0 and 1: the
// second job waits for the token accrued at 1/1e-9 = 1e9 s, 1e9 - 1 s
// (31.7 years, within the clock's 292). At 1e-10 the wait, 1e10 - 1 s,
// would release the job beyond the clock: an error (TestOverflowIsAnError).
func TestTinyRate(t *testing.T) {
	jobs := filepath.Join(t.TempDir(), "jobs.csv")
	_, errOut, code := ratesim(t, "run", "--trace", "testdata/tiny_rate.csv", "--rate", "1e-9", "--burst", "1", "--k", "1", "--jobs-out", jobs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	got, _ := os.ReadFile(jobs)
	// The wait is a whole number of nanoseconds: written exactly, as a
	// plain decimal (strconv's shortest form was 9.99999999e+08).
	want := "job,arrival_s,sub_bucket,delay_one_s,delay_split_s\n0,0,0,0,0\n1,1,0,999999999,999999999\n"
	if string(got) != want {
		t.Errorf("jobs CSV:\n%s\nwant:\n%s", got, want)
	}
}

// TestOddRate: rate 10/13 tokens/s, burst 1, one arrival at 0: delay 0.
func TestOddRate(t *testing.T) {
	out, errOut, code := ratesim(t, "run", "--rate", "10/13", "--burst", "1", "--k", "1", "--arrivals", "periodic", "--jobs", "1", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, `"max_delay_s": 0,`) {
		t.Errorf("one arrival at 0 was delayed:\n%s", out)
	}
}

func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // the message must name the flag and the value
	}{
		{[]string{"--rate", "0"}, "--rate 0"},
		{[]string{"--rate", "-1"}, "--rate -1"},
		{[]string{"--rate", "NaN"}, "--rate NaN"},
		{[]string{"--rate", "Inf"}, "--rate Inf"},
		{[]string{"--rate", "1e-30"}, "fits the model"},
		{[]string{"--burst", "0"}, "--burst 0"},
		{[]string{"--burst", "0.5"}, "--burst 0.5"},
		{[]string{"--burst", "NaN"}, "--burst NaN"},
		{[]string{"--burst", "-Inf"}, "--burst -Inf"},
		{[]string{"--k", "0"}, "--k 0"},
		{[]string{"--k", "-3"}, "--k -3"},
		{[]string{"--k", "11"}, "--k 11"},
		{[]string{"--sub", "0.5:5,0.5"}, "--sub 0.5:5,0.5"},
		{[]string{"--sub", "0:5,1:5"}, "--sub 0:5,1:5"},
		{[]string{"--sub", "0.5:0.5,0.5:9.5"}, "--sub 0.5:0.5,0.5:9.5"},
		{[]string{"--sub", "0.3:5,0.3:5"}, "sum of sub-bucket rates"},
		{[]string{"--load", "0"}, "--load 0"},
		{[]string{"--load", "NaN"}, "--load NaN"},
		{[]string{"--jobs", "0"}, "--jobs 0"},
		{[]string{"--dispatch", "nope"}, "--dispatch nope"},
		{[]string{"--dispatch", "column"}, "--sub-col"},
		{[]string{"--order", "sjf"}, "--order sjf"},
		{[]string{"--arrivals", "bursty"}, "--arrivals bursty"},
		{[]string{"--k", "2", "--sub", "0.5:5,0.5:5"}, "k sub"},
		{[]string{"--rate", "x"}, "--rate"},
		{[]string{"extra"}, "unknown command"},
	} {
		_, errOut, code := ratesim(t, append([]string{"run"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("run %v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}

func TestBadTraces(t *testing.T) {
	for _, tc := range []struct {
		file  string
		extra []string
		want  string // file:line
	}{
		{"bad_number.csv", nil, "bad_number.csv:4"},
		{"backwards.csv", nil, "backwards.csv:4"},
		{"empty.csv", nil, "empty.csv:1"},
		{"header_only.csv", nil, "header_only.csv:"},
		{"four_at_zero.csv", []string{"--time-col", "when"}, "four_at_zero.csv:1"},
		{"four_at_zero.csv", []string{"--time-col", "7"}, "four_at_zero.csv:1"},
		{"negative_control.csv", []string{"--sub-col", "sub", "--dispatch", "column", "--k", "1"}, "negative_control.csv:3"},
		{"missing.csv", nil, "missing.csv"},
	} {
		jobs := filepath.Join(t.TempDir(), "jobs.csv")
		args := append([]string{"run", "--trace", filepath.Join("testdata", tc.file), "--jobs-out", jobs}, tc.extra...)
		_, errOut, code := ratesim(t, args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s %v: exit %d, stderr %q; want exit 2 naming %q", tc.file, tc.extra, code, errOut, tc.want)
		}
		if _, err := os.Stat(jobs); !os.IsNotExist(err) {
			t.Errorf("%s: --jobs-out file left behind after a failed run", tc.file)
		}
	}
	// --skip-bad skips the bad line and says so; --sort reorders.
	_, errOut, code := ratesim(t, "run", "--trace", "testdata/bad_number.csv", "--skip-bad")
	if code != 0 || !strings.Contains(errOut, "skipped 1 bad line of") {
		t.Errorf("--skip-bad: exit %d, stderr %q", code, errOut)
	}
	if _, errOut, code := ratesim(t, "run", "--trace", "testdata/backwards.csv", "--sort"); code != 0 {
		t.Errorf("--sort: exit %d, stderr %q", code, errOut)
	}
}

// TestHashDispatchKeyed runs hash dispatch on a keyed trace: jobs with the
// same key must land in the same sub-bucket.
func TestHashDispatchKeyed(t *testing.T) {
	jobs := filepath.Join(t.TempDir(), "jobs.csv")
	_, errOut, code := ratesim(t, "run", "--trace", "testdata/keyed.csv", "--time-col", "time", "--key-col", "key", "--dispatch", "hash", "--k", "5", "--jobs-out", jobs)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	b, _ := os.ReadFile(jobs)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	// Rows 1 and 3 have key "a"; the decimal 0.3 must come out exactly.
	r1, r3 := strings.Split(lines[1], ","), strings.Split(lines[3], ",")
	if r1[2] != r3[2] {
		t.Errorf("key a went to sub-buckets %s and %s", r1[2], r3[2])
	}
	if got := strings.Split(lines[2], ",")[1]; got != "0.3" {
		t.Errorf("arrival 1700000000.3 - 1700000000.0 = %s s, want 0.3", got)
	}
}

// TestDefaultRun runs the embedded default (10^6 Poisson jobs) and checks
// the theorem held and the JSON shape.
func TestDefaultRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs 10^6 jobs")
	}
	out, errOut, code := ratesim(t, "run", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Jobs int64
		One  struct {
			MeanDelayS float64 `json:"mean_delay_s"`
		}
		Split struct {
			MeanDelayS float64 `json:"mean_delay_s"`
		}
		Check struct{ Violations, Events int64 }
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 1_000_000 || res.Check.Violations != 0 || res.Check.Events < res.Jobs || !(res.Split.MeanDelayS >= res.One.MeanDelayS) {
		t.Errorf("default run: %+v", res)
	}
}

// TestBadSubInTheMiddle: a sub-bucket index out of range on line 300 of
// 600 is named by its own line, although the fast path reads the trace in
// batches of 256 jobs.
func TestBadSubInTheMiddle(t *testing.T) {
	var b strings.Builder
	b.WriteString("t,sub\n")
	for i := 2; i <= 601; i++ {
		sub := i % 2
		if i == 300 {
			sub = 5
		}
		fmt.Fprintf(&b, "%d,%d\n", i, sub)
	}
	path := filepath.Join(t.TempDir(), "subs.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := ratesim(t, "run", "--trace", path, "--time-col", "t", "--sub-col", "sub", "--dispatch", "column")
	if code != 2 || !strings.Contains(errOut, "subs.csv:300:") {
		t.Errorf("exit %d, stderr %q; want exit 2 naming subs.csv:300", code, errOut)
	}
}

// TestOverloadWarning: at load 0.9 (λ = 0.9 jobs/s) round-robin sends
// 0.45 jobs/s to the sub-bucket of rate 0.1: load 4.5, said on stderr;
// weighted by the rates both run at 0.9 and nothing is said.
func TestOverloadWarning(t *testing.T) {
	_, stderr, code := ratesim(t, "run", "--jobs", "2000", "--sub", "0.9:5,0.1:5", "--dispatch", "rr")
	if code != 0 || !strings.Contains(stderr, "sub-bucket 2 at 4.5 (λ = 0.9 jobs/s") {
		t.Errorf("rr: exit %d, stderr %q; want a warning that sub-bucket 2 is at load 4.5", code, stderr)
	}
	_, stderr, code = ratesim(t, "run", "--jobs", "2000", "--sub", "0.9:5,0.1:5", "--dispatch", "weighted")
	if code != 0 || strings.Contains(stderr, "warning") {
		t.Errorf("weighted: exit %d, stderr %q; want no warning", code, stderr)
	}
}

// TestRunFlagsThatDoNotApply: flags that would change nothing are refused
// (exit 2) naming what they apply with, instead of being ignored.
func TestRunFlagsThatDoNotApply(t *testing.T) {
	trace := "testdata/four_at_zero.csv"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--trace", trace, "--sub-col", "s"}, "--sub-col applies with --dispatch column"},
		{[]string{"--trace", trace, "--key-col", "s", "--dispatch", "least-loaded"}, "--key-col applies with --dispatch hash"},
		{[]string{"--plot-format", "svg"}, "--plot-format applies with --plot DIR"},
		{[]string{"--jobs-out="}, "--jobs-out '': want a file name, or - for standard output"},
	} {
		_, stderr, code := ratesim(t, append([]string{"run"}, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("run %v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
	// A trace shorter than --jobs runs whole, and says so.
	_, stderr, code := ratesim(t, "run", "--trace", trace, "--jobs", "10")
	if code != 0 || !strings.Contains(stderr, "has 4 jobs, fewer than --jobs 10: all of them were run") {
		t.Errorf("--jobs 10 on 4 jobs: exit %d, stderr %q", code, stderr)
	}
}
