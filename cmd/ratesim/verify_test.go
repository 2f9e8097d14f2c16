package main

import (
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments/verify"
)

// replayArgs reads DIR/name.cmd and returns its arguments after "ratesim"
// (the written commands quote nothing for the temp paths used here).
func replayArgs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var line string
	for _, l := range strings.Split(string(b), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			line = l // the known library's files start with # comment lines
		}
	}
	f := strings.Fields(line)
	if f[0] != "ratesim" {
		t.Fatalf("%s: %q does not start with ratesim", path, b)
	}
	return f[1:]
}

// jobDelays reads a jobs CSV into per-job delays of both systems.
func jobDelays(t *testing.T, path string) (one, split []float64) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs[1:] {
		a, _ := strconv.ParseFloat(r[3], 64)
		b, _ := strconv.ParseFloat(r[4], 64)
		one, split = append(one, a), append(split, b)
	}
	return
}

// TestVerifyReplays runs a search, then replays every counterexample it
// wrote with the command it printed, and checks from the replayed per-job
// delays (computed here, independently of the search) that the split system
// is indeed strictly better in the claimed respect.
func TestVerifyReplays(t *testing.T) {
	out := t.TempDir()
	stdout, errOut, code := ratesim(t, "verify", "--instances", "5000", "--seed", "3", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"Theorem 2          0 violations", "Lemma 1            0 violations", "stronger claims"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	// The time goes to stderr: the same seed prints the same bytes.
	if !strings.Contains(errOut, "verify took") || strings.Contains(stdout, "took") {
		t.Errorf("the time is not on stderr alone:\nstdout:\n%s\nstderr:\n%s", stdout, errOut)
	}
	cmds, _ := filepath.Glob(filepath.Join(out, "claim-*.cmd"))
	if len(cmds) == 0 {
		t.Fatalf("no counterexample written (the per-job claim is false):\n%s", stdout)
	}
	for _, c := range cmds {
		claim := strings.Split(strings.TrimPrefix(filepath.Base(c), "claim-"), "-")[0]
		jobs := filepath.Join(t.TempDir(), "jobs.csv")
		_, errOut, code := ratesim(t, append(replayArgs(t, c), "--jobs-out", jobs)...)
		if code != 0 {
			t.Fatalf("replay %s: exit %d: %s", c, code, errOut)
		}
		one, split := jobDelays(t, jobs)
		// The replay is exact; its delays are written rounded to float64,
		// and real differences on these millisecond instances are far
		// beyond that rounding.
		const eps = 1e-9
		better := false
		switch claim {
		case "job":
			for i := range one {
				better = better || split[i] < one[i]-eps
			}
		case "max":
			better = maxOf(split) < maxOf(one)-eps
		case "p50", "p90", "p99":
			pct := map[string]int{"p50": 50, "p90": 90, "p99": 99}[claim]
			better = rank(split, pct) < rank(one, pct)-eps
		case "delayed":
			better = positive(split) < positive(one)
		case "squares":
			better = squares(split) < squares(one)-eps
		case "topm":
			a, b := slices.Clone(one), slices.Clone(split)
			slices.Sort(a)
			slices.Sort(b)
			sa, sb := 0.0, 0.0
			for m := len(a) - 1; m >= 0 && !better; m-- {
				sa, sb = sa+a[m], sb+b[m]
				better = sb < sa-eps
			}
		}
		if !better {
			t.Errorf("replay of %s does not show the split system better (one %v, split %v)", c, one, split)
		}
	}
}

// rank is the nearest-rank pct-th percentile: the ceil(pct·n/100)-th
// smallest.
func rank(xs []float64, pct int) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[max(1, (pct*len(s)+99)/100)-1]
}

func maxOf(xs []float64) float64 {
	m := 0.0
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

func positive(xs []float64) int {
	n := 0
	for _, x := range xs {
		if x > 1e-12 {
			n++
		}
	}
	return n
}

func squares(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return s
}

// TestVerifyNegativeControlCLI: --inflate burst must find a violation, exit
// 1, and write a replay that ratesim run reproduces (exit 1 as well).
func TestVerifyNegativeControlCLI(t *testing.T) {
	out := t.TempDir()
	stdout, _, code := ratesim(t, "verify", "--inflate", "burst", "--claims", "none", "--out", out)
	if code != 1 || !strings.Contains(stdout, "first violation") {
		t.Fatalf("exit %d, want 1 with a violation:\n%s", code, stdout)
	}
	args := replayArgs(t, filepath.Join(out, "violation.cmd"))
	if !strings.Contains(strings.Join(args, " "), "--allow-unequal") {
		t.Errorf("replay %v lacks --allow-unequal", args)
	}
	rout, _, code := ratesim(t, args...)
	if code != 1 || !strings.Contains(rout, "FIRST VIOLATION") {
		t.Errorf("replay: exit %d, want 1:\n%s", code, rout)
	}
}

// TestVerifyDeterministic: the same seed gives the same report (but for the
// time taken).
func TestVerifyDeterministic(t *testing.T) {
	timeLine := regexp.MustCompile(`(?m)^time .*$`)
	a, _, _ := ratesim(t, "verify", "--instances", "2000", "--exact", "--out", t.TempDir())
	b, _, _ := ratesim(t, "verify", "--instances", "2000", "--exact", "--out", t.TempDir())
	strip := func(s string) string {
		s = timeLine.ReplaceAllString(s, "")
		return regexp.MustCompile(`/tmp/\S+`).ReplaceAllString(s, "DIR")
	}
	if strip(a) != strip(b) {
		t.Errorf("two runs differ:\n%s\n---\n%s", a, b)
	}
}

func TestVerifyBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--instances", "0"}, "--instances 0"},
		{[]string{"--max-k", "1"}, "--max-k 1"},
		{[]string{"--max-jobs", "0"}, "--max-jobs 0"},
		{[]string{"--order", "sjf"}, "--order sjf"},
		{[]string{"--claims", "median"}, "--claims median"},
		{[]string{"--inflate", "both"}, "--inflate both"},
		// Issue 28: with --max-jobs 40 an instance has at most 4·40 + 100
		// = 260 jobs, and 10^10/260 = 38461538.46: 38461538 instances fit.
		{[]string{"--instances", "9223372036854775807"}, "--instances 9223372036854775807: want at most 38461538 instances: each has up to 260 jobs"},
		{[]string{"--instances", "38461539"}, "--instances 38461539: want at most 38461538 instances"},
		// --max-jobs 10000: 40100 jobs each, 10^10/40100 = 249376.56.
		{[]string{"--instances", "249377", "--max-jobs", "10000"}, "--instances 249377: want at most 249376 instances: each has up to 40100 jobs"},
	} {
		_, errOut, code := ratesim(t, append([]string{"verify"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("verify %v: exit %d, stderr %q; want 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestVerifyKnownP99: ratesim verify with its default library reports the
// p99 claim under FCFS failing with the known 201-job instance, writes it
// to --out, and its replay with ratesim run shows it (the 199th smallest
// of the 201 delays is 0.5 s in the one bucket and 0 split, by hand in
// experiments/verify TestP99Counterexample). Then --known with that --out
// folder replays every counterexample written as the library of a search
// of one random instance: each claim fails again, with the instance
// named after its file.
func TestVerifyKnownP99(t *testing.T) {
	out := t.TempDir()
	stdout, errOut, code := ratesim(t, "verify", "--instances", "200", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	line := regexp.MustCompile(`(?m)^p99 +fcfs .*$`).FindString(stdout)
	if !strings.Contains(line, "fails (known ") {
		t.Errorf("p99 fcfs row %q, want it failing with a known instance:\n%s", line, stdout)
	}
	if want := fmt.Sprintf("known              %d instances (the built-in library, experiments/verify/testdata/known)", len(verify.BuiltinKnown())); !strings.Contains(stdout, want) {
		t.Errorf("output lacks the known line:\n%s", stdout)
	}
	jobs := filepath.Join(t.TempDir(), "jobs.csv")
	if _, errOut, code := ratesim(t, append(replayArgs(t, filepath.Join(out, "claim-p99-fcfs.cmd")), "--jobs-out", jobs)...); code != 0 {
		t.Fatalf("replay: exit %d: %s", code, errOut)
	}
	one, split := jobDelays(t, jobs)
	if len(one) <= 100 || !(rank(split, 99) < rank(one, 99)) {
		t.Errorf("replay: %d jobs, p99 one %v s, split %v s; want more than 100 jobs and split < one", len(one), rank(one, 99), rank(split, 99))
	}
	// The 201-job case worked by hand (experiments/verify
	// TestP99Counterexample): the 199th smallest of the 201 delays is
	// 0.5 s in the one bucket and 0 split.
	hand := filepath.Join(t.TempDir(), "hand.csv")
	args := replayArgs(t, filepath.Join("..", "..", verify.KnownDir, "p99-fcfs.cmd"))
	for i, a := range args {
		if a == "--trace" {
			args[i+1] = filepath.Join("..", "..", args[i+1])
		}
	}
	if _, errOut, code := ratesim(t, append(args, "--jobs-out", hand)...); code != 0 {
		t.Fatalf("replay p99-fcfs: exit %d: %s", code, errOut)
	}
	one, split = jobDelays(t, hand)
	if len(one) != 201 || rank(one, 99) != 0.5 || rank(split, 99) != 0 {
		t.Errorf("p99-fcfs replay: %d jobs, p99 one %v s, split %v s; want 201, 0.5 and 0", len(one), rank(one, 99), rank(split, 99))
	}
	// The folder as a library.
	again, errOut, code := ratesim(t, "verify", "--instances", "1", "--known", out, "--out", t.TempDir())
	if code != 0 {
		t.Fatalf("--known %s: exit %d: %s", out, code, errOut)
	}
	cmds, _ := filepath.Glob(filepath.Join(out, "claim-*.cmd"))
	for _, c := range cmds {
		name := strings.TrimSuffix(filepath.Base(c), ".cmd")
		f := strings.Split(strings.TrimPrefix(name, "claim-"), "-")
		row := regexp.MustCompile(`(?m)^` + f[0] + ` +` + f[1] + ` .*$`).FindString(again)
		if !strings.Contains(row, "fails (known ") {
			t.Errorf("--known %s: row %q, want the claim failing with a known instance (%s)", out, row, name)
		}
	}
	if _, errOut, code := ratesim(t, "verify", "--instances", "1", "--known", t.TempDir()); code != 2 || !strings.Contains(errOut, "--known") {
		t.Errorf("--known with an empty folder: exit %d, stderr %q; want 2 naming --known", code, errOut)
	}
}
