package verify

import (
	"reflect"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// TestClaimsHandExample: r = 1000 tokens/s (one token per ms), b = 2, three
// arrivals at 0 split into (500, 1) + (500, 1) with jobs to 0, 0, 1.
// Worked by hand: one bucket 0, 0, 1 ms (the third job waits for the
// token due at 1 ms); split 0, 2, 0 ms (job 1 waits 2 ms for sub-bucket
// 0's next token). Job 2 does better split, so the per-job claim fails;
// the maxima are 1 and 2 ms, one job is delayed in each, the squares add
// up to 1 and 4 ms².
func TestClaimsHandExample(t *testing.T) {
	in := systems.Instance{
		One:   pp("1000", "2"),
		Subs:  []buckets.Params{pp("500", "1"), pp("500", "1")},
		Times: []engine.Time{0, 0, 0}, Sub: []int{0, 0, 1},
	}
	o, err := runOutcome(in, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"job": true, "max": false, "p99": false, "delayed": false, "squares": false, "topm": false}
	for c, w := range want {
		if got, detail := o.claimFails(c); got != w {
			t.Errorf("claim %s fails = %v (%s), want %v", c, got, detail, w)
		}
	}
	if o.check.S.Cmp(exact.Int(1e6)) != 0 || o.check.SSplit.Cmp(exact.Int(2e6)) != 0 {
		t.Errorf("S = %v ns, S^(2) = %v ns, want 1 ms and 2 ms", o.check.S, o.check.SSplit)
	}
}

// TestP99Counterexample is the exact-ties issue's counterexample to the
// p99 claim: 5 jobs at 0, 0, 0.5, 0.5, 2.5 s to sub-buckets 0, 1, 0, 0, 1,
// then 196 jobs at 10, 20, ..., 1960 s alternating, r = 1, b = 2 split
// into (0.5, 1) twice. By hand: the one bucket delays the jobs at 0.5 s by
// 0.5 and 1.5 s and the one at 2.5 s by 0.5 s (its G/D/1 queue empties at
// 5 s, minus b/r = 2); the split delays only the two jobs at 0.5 s on
// sub-bucket 0, by 1.5 and 3.5 s. With 201 jobs the nearest-rank p99 is
// the ceil(198.99) = 199th smallest: 0.5 s in the one bucket (198 zeros
// below it) and 0 split (199 zeros). The maximum is 1.5 s against 3.5 s,
// as the maximum claim requires.
func TestP99Counterexample(t *testing.T) {
	o, err := runOutcome(p99Instance(), false)
	if err != nil {
		t.Fatal(err)
	}
	if fails, detail := o.claimFails("p99"); !fails {
		t.Errorf("p99 claim holds (%s), want the counterexample", detail)
	}
	if a, b := o.quantile(99); exact.Frac(a, o.unit).Cmp(exact.Int(5e8)) != 0 || b.Sign() != 0 {
		t.Errorf("p99 one %v ns, split %v ns; want 0.5 s and 0", a, b)
	}
	for _, c := range []string{"max", "topm"} {
		if fails, detail := o.claimFails(c); fails {
			t.Errorf("claim %s fails (%s)", c, detail)
		}
	}
}

// p99Instance is TestP99Counterexample's instance.
func p99Instance() systems.Instance {
	in := systems.Instance{One: pp("1", "2"), Subs: []buckets.Params{pp("0.5", "1"), pp("0.5", "1")}}
	for i, s := range []engine.Time{0, 0, 500 * engine.Millisecond, 500 * engine.Millisecond, 2500 * engine.Millisecond} {
		in.Times = append(in.Times, s)
		in.Sub = append(in.Sub, []int{0, 1, 0, 0, 1}[i])
	}
	for i := 1; i <= 196; i++ {
		in.Times = append(in.Times, engine.Time(10*i)*engine.Second)
		in.Sub = append(in.Sub, i%2)
	}
	return in
}

// TestVerifySearch runs a small search: no violation; the per-job claim
// (false by the hand example) is refuted by a counterexample shrunk to a
// local minimum: removing any one job makes the claim hold (the hand
// example has 3 jobs; how small the minimum greedy shrinking reaches is
// depends on the instance it starts from); the maximum and top-m claims
// hold under FCFS.
func TestVerifySearch(t *testing.T) {
	res, err := Search(t.Context(), Config{Instances: 3000, Seed: 1, MaxK: 8, MaxJobs: 40, Claims: ClaimNames})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Held() || res.Violation != nil {
		t.Errorf("%d violations, %d lemma", res.Violations, res.LemmaViolations)
	}
	if res.SlackInstances == 0 || res.MinSlack < 0 {
		t.Errorf("slack %v over %d instances", res.MinSlack, res.SlackInstances)
	}
	for _, c := range res.Claims {
		if c.Claim == "job" {
			if c.Counterexample == nil || c.Counterexample.Jobs() > 40 {
				t.Errorf("per-job claim (%s): counterexample %+v, want one of at most 40 jobs", c.Orders, c.Counterexample)
			} else if !fails(t, *c.Counterexample, "job") {
				t.Errorf("per-job claim (%s): the counterexample %+v does not refute it", c.Orders, c.Counterexample)
			} else {
				// Shrunk: removing any one job leaves an instance on
				// which the claim holds.
				in := *c.Counterexample
				for i := range in.Jobs() {
					x := in
					x.Times, x.Sub = slices.Delete(slices.Clone(in.Times), i, i+1), slices.Delete(slices.Clone(in.Sub), i, i+1)
					if x.Jobs() > 0 && fails(t, x, "job") {
						t.Errorf("per-job claim (%s): the counterexample %+v still fails without job %d: not shrunk", c.Orders, in, i)
					}
				}
			}
		}
		if (c.Claim == "max" || c.Claim == "topm") && c.Orders == "fcfs" && c.Counterexample != nil {
			t.Errorf("claim %s under FCFS: counterexample %+v (%s)", c.Claim, c.Counterexample, c.Detail)
		}
		if c.Discriminating == 0 || c.Discriminating > c.Tested {
			t.Errorf("claim %s %s: %d of %d instances discriminate", c.Claim, c.Orders, c.Discriminating, c.Tested)
		}
	}
}

// fails runs in and evaluates claim on it.
func fails(t *testing.T, in systems.Instance, claim string) bool {
	t.Helper()
	o, err := runOutcome(in, false)
	if err != nil {
		t.Fatal(err)
	}
	f, _ := o.claimFails(claim)
	return f
}

// TestVerifyNegativeControl: with inflated bursts or rates the default
// search must find a violation, shrunk to a handful of jobs.
func TestVerifyNegativeControl(t *testing.T) {
	for _, inflate := range []string{"burst", "rate"} {
		res, err := Search(t.Context(), Config{Instances: 20000, Seed: 1, MaxK: 8, MaxJobs: 40, Inflate: inflate})
		if err != nil {
			t.Fatal(err)
		}
		if res.Held() || res.Violation == nil || res.Violation.Jobs() > 4 {
			t.Errorf("inflate %s: %d violations, smallest %+v", inflate, res.Violations, res.Violation)
		}
	}
}

// TestVerifyWorkers: the outcome, counterexamples included, does not
// depend on the number of workers.
func TestVerifyWorkers(t *testing.T) {
	cfg := Config{Instances: 3000, Seed: 5, MaxK: 6, MaxJobs: 30, Claims: ClaimNames}
	cfg.Workers = 1
	one, err := Search(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Workers = 3
	three, err := Search(t.Context(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(one, three) {
		t.Errorf("1 worker:\n%+v\n3 workers:\n%+v", one, three)
	}
}

// BenchmarkVerify: 10^4 instances with every claim, as ratesim verify
// runs them (-j from -cpu).
func BenchmarkSearch(b *testing.B) {
	for b.Loop() {
		if _, err := Search(b.Context(), Config{Instances: 10000, Seed: 1, MaxK: 8, MaxJobs: 40, Claims: ClaimNames}); err != nil {
			b.Fatal(err)
		}
	}
}

// pp returns the bucket written (rate, burst), exactly.
func pp(rate, burst string) buckets.Params {
	p, err := buckets.ParseParams(rate, burst)
	if err != nil {
		panic(err)
	}
	return p
}
