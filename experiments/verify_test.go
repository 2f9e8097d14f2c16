package experiments

import (
	"testing"

	"github.com/ratesim/ratesim/buckets"
)

// TestClaimsHandExample: r = 1, b = 2 (one token per tick), three arrivals
// at 0 split into (1/2, 1) + (1/2, 1) with jobs to 0, 0, 1. Worked by hand
// (see buckets.TestExactHandCases): one bucket 0, 0, 1 ticks, split 0, 2, 0.
// Job 2 does better split, so the per-job claim fails; the maxima are 1 and
// 2, one job is delayed in each, the squares add up to 1 and 4.
func TestClaimsHandExample(t *testing.T) {
	in := buckets.Instance{
		One:   buckets.ExactParams{Quantum: 1, Period: 1, Burst: 2},
		Subs:  []buckets.ExactParams{{Quantum: 1, Period: 2, Burst: 1}, {Quantum: 1, Period: 2, Burst: 1}},
		Times: []int64{0, 0, 0}, Sub: []int{0, 0, 1},
	}
	for _, exact := range []bool{true, false} {
		o, err := runOutcome(in, exact, false)
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]bool{"job": true, "max": false, "p99": false, "delayed": false, "squares": false}
		for c, w := range want {
			if got, detail := o.claimFails(c); got != w {
				t.Errorf("exact=%v: claim %s fails = %v (%s), want %v", exact, c, got, detail, w)
			}
		}
		if o.s != 0.001 || o.sk != 0.002 {
			t.Errorf("exact=%v: S = %v, S^(2) = %v, want 0.001 and 0.002 s (1 and 2 ticks)", exact, o.s, o.sk)
		}
	}
}

// TestVerifySearch runs a small search on both models: no violation, and
// the per-job claim (false by the hand example) must be refuted by a
// counterexample of at most 4 jobs after shrinking.
func TestVerifySearch(t *testing.T) {
	for _, exact := range []bool{true, false} {
		res, err := Verify(VerifyConfig{Instances: 3000, Seed: 1, Exact: exact, MaxK: 8, MaxJobs: 40, Claims: ClaimNames})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Held() || res.Violation != nil {
			t.Errorf("exact=%v: %d violations, %d lemma", exact, res.Violations, res.LemmaViolations)
		}
		if res.SlackInstances == 0 || res.MinSlack < 0 {
			t.Errorf("exact=%v: slack %v over %d instances", exact, res.MinSlack, res.SlackInstances)
		}
		for _, c := range res.Claims {
			if c.Claim == "job" && (c.Counterexample == nil || c.Counterexample.Jobs() > 4) {
				t.Errorf("exact=%v: per-job claim (%s): counterexample %+v, want one of at most 4 jobs", exact, c.Orders, c.Counterexample)
			}
		}
	}
}

// TestVerifyNegativeControl: with inflated bursts or rates the default
// search must find a violation, shrunk to a handful of jobs.
func TestVerifyNegativeControl(t *testing.T) {
	for _, inflate := range []string{"burst", "rate"} {
		res, err := Verify(VerifyConfig{Instances: 20000, Seed: 1, Exact: true, MaxK: 8, MaxJobs: 40, Inflate: inflate})
		if err != nil {
			t.Fatal(err)
		}
		if res.Held() || res.Violation == nil || res.Violation.Jobs() > 4 {
			t.Errorf("inflate %s: %d violations, smallest %+v", inflate, res.Violations, res.Violation)
		}
	}
}
