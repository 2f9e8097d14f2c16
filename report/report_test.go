package report

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// TestPaperQuick runs the quick report and checks its numbers against
// values obtained independently: the hand case, Pollaczek–Khinchine, the
// value quoted in issue 15, the theorem's verdicts, and the files its
// figures and commands name.
func TestPaperQuick(t *testing.T) {
	out := filepath.Join(t.TempDir(), "paper")
	traces := "../../shared/traces" // skipped in the report when absent
	compare := "../paper"           // the committed full version
	if err := Write(context.Background(), Config{Out: out, Quick: true, Seed: 1, Traces: traces, Compare: compare}); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(filepath.Join(out, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	md := string(b)

	// Section 1, by hand: r = 1, b = 2, four jobs at 0 wait 0, 0, 1, 2 s
	// (two tokens, then one per second); split 2 × (1/2, 1) round-robin,
	// 0, 0, 2, 2 s (one token each, then one per 2 s).
	for _, row := range []string{
		"| 1 | 0 | 0 | 0 | 0 | 0 | 0 | 0 |",
		"| 2 | 0 | 0 | 0 | 0 | 1 | 0 | 0 |",
		"| 3 | 0 | 1 | 1 | 1 | 0 | 2 | 2 |",
		"| 4 | 0 | 2 | 2 | 2 | 1 | 2 | 2 |",
	} {
		if !strings.Contains(md, row) {
			t.Errorf("hand case row %q missing", row)
		}
	}
	if !strings.Contains(md, "**0** jobs whose eq. (1) delay differs") {
		t.Error("eq. (1) and the token count disagree, or the sentence is missing")
	}

	// Section 1, the M/D/1 table: load, burst, simulated ± half-width, exact.
	re := regexp.MustCompile(`(?m)^\| ([0-9.]+) \| ([0-9.]+) \| ([0-9.]+) ± ([0-9.]+) \| ([0-9.]+) \|`)
	rows := re.FindAllStringSubmatch(md, -1)
	if len(rows) != 12 {
		t.Fatalf("M/D/1 table has %d rows, want 12", len(rows))
	}
	num := func(s string) float64 {
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	for _, r := range rows {
		rho, burst, sim, half, ex := num(r[1]), num(r[2]), num(r[3]), num(r[4]), num(r[5])
		if burst == 1 {
			pk := rho / (2 * (1 - rho)) // Pollaczek–Khinchine, r = 1
			if math.Abs(ex-pk) > 1e-6 {
				t.Errorf("ρ = %v, b = 1: exact %v, want PK %v", rho, ex, pk)
			}
		}
		if rho == 0.8 && burst == 5 && math.Abs(ex-0.358879) > 1e-6 {
			t.Errorf("ρ = 0.8, b = 5: exact %v, want 0.358879 (issue 15)", ex)
		}
		// The simulation agrees with the exact value: within three
		// half-widths of the 95% interval (a fixed seed: deterministic).
		if math.Abs(sim-ex) > 3*half+1e-6 {
			t.Errorf("ρ = %v, b = %v: simulated %v ± %v, exact %v", rho, burst, sim, half, ex)
		}
	}

	// Section 2: the check held.
	if !strings.Contains(md, "found **0** violations of Theorem 2 and **0** of Lemma 1") {
		t.Error("the sample path's check did not report 0 violations")
	}

	// Section 5: equal totals, and equal S(t) series (ΔS = 0 at every
	// shared sampling instant), under every order.
	ore := regexp.MustCompile(`(?m)^\| (fcfs|lifo|random) \| ([0-9.]+) \| ([0-9.]+) \| 0 \([1-9][0-9]* instants\) \|`)
	orows := ore.FindAllStringSubmatch(md, -1)
	if len(orows) != 3 {
		t.Fatalf("order table has %d rows, want 3", len(orows))
	}
	for _, r := range orows[1:] {
		if r[2] != orows[0][2] || r[3] != orows[0][3] {
			t.Errorf("order %s: totals %s, %s; fcfs %s, %s", r[1], r[2], r[3], orows[0][2], orows[0][3])
		}
	}
	if !strings.Contains(md, "are the same numbers under the three orders") {
		t.Error("section 5 does not report that the series agree under every order")
	}

	// Section 6: the per-job claim fails (three jobs at 0 into (1, 2) and
	// 2 × (1/2, 1), sent to 0, 0, 1: job 3 waits 1 s in the one bucket, 0
	// split), no counterexample to the sum of squares under FCFS was ever
	// found (README, ratesim verify), p99 under FCFS and max under any
	// order fail (the known library: the 201-job p99 case, and a 5-job
	// random-order case), and the negative controls find violations.
	failing := map[string]bool{"| `job` | any |": true, "| `p99` | fcfs |": true, "| `max` | any |": true}
	for _, want := range []string{"| `job` | any |", "| `squares` | fcfs |", "| `p99` | fcfs |", "| `max` | any |"} {
		i := strings.Index(md, want)
		if i < 0 {
			t.Errorf("claim row %q missing", want)
			continue
		}
		line := md[i : i+strings.Index(md[i:], "\n")]
		fails := strings.Contains(line, "**fails**")
		if fails != failing[want] || strings.Contains(want, "p99") && !strings.Contains(line, "(known") {
			t.Errorf("claim row %q", line)
		}
	}
	if strings.Contains(md, "none (the control failed)") || !strings.Contains(md, "| Σ b_l > b |") {
		t.Error("negative controls missing or failed")
	}

	// Section 8: the metastable scenario collapses without a budget and
	// recovers with the AWS quota (the clients tests check the same over
	// 30 replications).
	if !strings.Contains(md, "Without a budget the service recovered in 0 of 5 replications") || !strings.Contains(md, "| budget aws | 5 of 5 |") {
		t.Error("section 8 does not report the collapse without a budget and the recovery with the AWS quota")
	}
	// Section 7: Theorem 2 makes the static split's total delay at least
	// the one bucket's; the store decides as the one bucket does (same
	// jobs admitted); no design but sync can overshoot the promise.
	dre := regexp.MustCompile(`(?m)^\| (one|static|store|sync) \| [^|]* \| ([0-9]+) \| [^|]* \| [^|]* \| ([0-9.e+]+) \| ([0-9.]+) \|`)
	drows := dre.FindAllStringSubmatch(md, -1)
	if len(drows) != 7 {
		t.Fatalf("DRL table has %d rows, want 7", len(drows))
	}
	if num(drows[1][3]) < num(drows[0][3]) {
		t.Errorf("static total %s below the one bucket's %s", drows[1][3], drows[0][3])
	}
	for _, r := range drows {
		if r[1] != "sync" && num(r[4]) > 1 {
			t.Errorf("%s overshoot %s > 1", r[1], r[4])
		}
		if r[1] == "store" && r[2] != drows[0][2] {
			t.Errorf("store admitted %s, one bucket %s", r[2], drows[0][2])
		}
	}

	// Every computed sentence agrees with the table beside it.
	checkClaims(t, md, compare)

	// Every file the report names exists.
	for _, m := range regexp.MustCompile(`\((figures/[^)]+\.(?:svg|png))\)`).FindAllStringSubmatch(md, -1) {
		if st, err := os.Stat(filepath.Join(out, m[1])); err != nil || st.Size() == 0 {
			t.Errorf("figure %s: %v", m[1], err)
		}
	}
	for _, m := range regexp.MustCompile(`ratesim sweep (\S+\.yaml)`).FindAllStringSubmatch(md, -1) {
		rel := strings.TrimPrefix(m[1], filepath.ToSlash(out)+"/")
		if _, err := os.Stat(filepath.Join(out, rel)); err != nil {
			t.Errorf("spec %s: %v", m[1], err)
		}
	}
	if n := strings.Count(md, "![Figure"); n < 8 {
		t.Errorf("%d figures, want at least 8", n)
	}
	// Nothing is left of the staging folder.
	left, _ := filepath.Glob(filepath.Join(filepath.Dir(out), ".ratesim-paper-*"))
	if len(left) != 0 {
		t.Errorf("staging left behind: %v", left)
	}
}
