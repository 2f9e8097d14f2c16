package main

import (
	"encoding/csv"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// replayArgs reads DIR/name.cmd and returns its arguments after "ratesim"
// (the written commands quote nothing for the temp paths used here).
func replayArgs(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	f := strings.Fields(strings.TrimSpace(string(b)))
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
	} {
		_, errOut, code := ratesim(t, append([]string{"verify"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("verify %v: exit %d, stderr %q; want 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}
