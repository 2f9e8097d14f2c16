package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// VerifyTick is the length of one tick of a verify instance in seconds: the
// float64 model and the replay traces read instant n ticks as n/1000 s.
const VerifyTick = 1e-3

// VerifyConfig configures a counterexample search.
type VerifyConfig struct {
	Instances int             // random instances to run, >= 1
	Seed      uint64          // instance i is drawn from rand.NewPCG(Seed, i)
	Exact     bool            // run on the exact integer model instead of float64
	MaxK      int             // sub-buckets k in [2, MaxK], MaxK >= 2
	MaxJobs   int             // jobs per instance in [1, MaxJobs], >= 1
	Orders    []buckets.Order // service orders drawn from; empty means all
	Claims    []string        // stronger claims to map; see ClaimNames
	// Inflate breaks the hypotheses for a negative control: "burst" makes
	// Σ b_l > b, "rate" makes Σ r_l > r; "" keeps them.
	Inflate string
}

// ClaimNames lists the stronger claims [Verify] can map, each of the form
// "the split system is never better than the one bucket in ...":
//
//   - "job": any single job's delay;
//   - "max": the maximum delay;
//   - "p99": the 99th percentile delay (nearest rank: the ceil(0.99·n)-th
//     smallest delay);
//   - "delayed": the number of delayed jobs (delay > 0);
//   - "squares": the sum of squared delays.
//
// A counterexample is an instance where the split system is strictly better.
var ClaimNames = []string{"job", "max", "p99", "delayed", "squares"}

// ClaimResult is the outcome of one claim under one set of orders.
type ClaimResult struct {
	Claim  string // one of ClaimNames
	Orders string // "fcfs", or "any" for every order searched
	Tested int    // instances the claim was tested on
	// Counterexample is the smallest instance found on which the claim
	// fails, shrunk by removing jobs while it still fails; nil when the
	// claim held on every instance tested.
	Counterexample *buckets.Instance
	Detail         string // what fails on the counterexample
}

// VerifyResult is the outcome of a search.
type VerifyResult struct {
	Instances       int
	Events          uint64 // events checked, over all instances
	Violations      uint64 // events with S(t) > S^(k)(t)
	LemmaViolations uint64 // events with r·U(t) > Σ r_l·U_l(t)
	// Violation is the smallest instance (fewest jobs) with a violation,
	// shrunk, and the first violation on it; nil when none occurred.
	Violation      *buckets.Instance
	ViolationEvent buckets.Violation
	// MinSlack is the smallest S^(k)(∞) - S(∞), in seconds, over the
	// SlackInstances instances where some job waited.
	MinSlack       float64
	SlackInstances int
	Claims         []ClaimResult
}

// Held reports whether Theorem 2 and Lemma 1 held on every instance.
func (r VerifyResult) Held() bool { return r.Violations == 0 && r.LemmaViolations == 0 }

// outcome is what one run of an instance tells, in seconds.
type outcome struct {
	events, viol, lemma uint64
	first               buckets.Violation
	s, sk               float64
	one, split          []float64
	eps                 float64 // "strictly better" means by more than eps
}

func runOutcome(in buckets.Instance, exact, allowUnequal bool) (outcome, error) {
	if exact {
		return collect[buckets.Tick](in, VerifyTick, allowUnequal, VerifyTick, 0)
	}
	return collect[engine.Time](in, VerifyTick, allowUnequal, 1, 1e-9)
}

// collect runs in on model T and converts the results to seconds (unit is
// seconds per model unit). eps is the relative margin below which two
// float64 delays count as equal.
func collect[T buckets.Number](in buckets.Instance, tick float64, allowUnequal bool, unit, eps float64) (outcome, error) {
	c, d, err := buckets.RunInstance[T](in, tick, allowUnequal)
	if err != nil {
		return outcome{}, err
	}
	chk := c.Check()
	o := outcome{events: chk.Events(), viol: chk.Violations(), lemma: chk.LemmaViolations(),
		s: float64(chk.S()) * unit, sk: float64(chk.SSplit()) * unit, eps: eps}
	o.first, _ = chk.First()
	for i := range d.One {
		o.one = append(o.one, float64(d.One[i])*unit)
		o.split = append(o.split, float64(d.Split[i])*unit)
	}
	return o, nil
}

// better reports whether split is strictly smaller than one, beyond the
// rounding margin.
func (o outcome) better(split, one float64) bool {
	return split < one-o.eps*math.Max(1, math.Abs(one))
}

// claimFails evaluates a claim on an outcome and describes a failure.
func (o outcome) claimFails(claim string) (bool, string) {
	switch claim {
	case "job":
		for i := range o.one {
			if o.better(o.split[i], o.one[i]) {
				return true, fmt.Sprintf("job %d waits %.6g s split, %.6g s in the one bucket", i, o.split[i], o.one[i])
			}
		}
		return false, ""
	case "max":
		a, b := slices.Max(o.one), slices.Max(o.split)
		return o.better(b, a), fmt.Sprintf("max delay %.6g s split, %.6g s one", b, a)
	case "p99":
		a, b := p99(o.one), p99(o.split)
		return o.better(b, a), fmt.Sprintf("p99 delay %.6g s split, %.6g s one", b, a)
	case "delayed":
		a, b := countPositive(o.one), countPositive(o.split)
		return b < a, fmt.Sprintf("%d jobs delayed split, %d in the one bucket", b, a)
	case "squares":
		a, b := sumSquares(o.one), sumSquares(o.split)
		return o.better(b, a), fmt.Sprintf("sum of squared delays %.6g s² split, %.6g s² one", b, a)
	}
	panic("experiments: unknown claim " + claim)
}

// p99 is the nearest-rank 99th percentile: the ceil(0.99·n)-th smallest.
func p99(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[int(math.Ceil(0.99*float64(len(s))))-1]
}

func countPositive(xs []float64) int {
	n := 0
	for _, x := range xs {
		if x > 0 {
			n++
		}
	}
	return n
}

// sumSquares adds up squared delays. On the exact model delays are whole
// ticks below 2^26 for the instance sizes drawn, so the sum is exact.
func sumSquares(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x * x
	}
	return s
}

// Validate checks the configuration and fills defaults.
func (cfg *VerifyConfig) Validate() error {
	if cfg.Instances < 1 {
		return fmt.Errorf("experiments: instances = %d, want >= 1", cfg.Instances)
	}
	if cfg.MaxK < 2 {
		return fmt.Errorf("experiments: max k = %d, want >= 2", cfg.MaxK)
	}
	if cfg.MaxJobs < 1 {
		return fmt.Errorf("experiments: max jobs = %d, want >= 1", cfg.MaxJobs)
	}
	if len(cfg.Orders) == 0 {
		cfg.Orders = buckets.Orders
	}
	for _, c := range cfg.Claims {
		if !slices.Contains(ClaimNames, c) {
			return fmt.Errorf("experiments: unknown claim %q, want one of %s", c, strings.Join(ClaimNames, ", "))
		}
	}
	if cfg.Inflate != "" && cfg.Inflate != "burst" && cfg.Inflate != "rate" {
		return fmt.Errorf("experiments: inflate %q, want burst or rate", cfg.Inflate)
	}
	return nil
}

// Verify searches random instances for violations of Theorem 2 and Lemma 1
// and for counterexamples to the stronger claims. It is deterministic: the
// same configuration gives the same result on every machine.
func Verify(cfg VerifyConfig) (VerifyResult, error) {
	if err := cfg.Validate(); err != nil {
		return VerifyResult{}, err
	}
	gen := buckets.GenConfig{MaxK: cfg.MaxK, MaxJobs: cfg.MaxJobs, Orders: cfg.Orders,
		InflateBurst: cfg.Inflate == "burst", InflateRate: cfg.Inflate == "rate"}
	allow := cfg.Inflate != ""
	res := VerifyResult{Instances: cfg.Instances, MinSlack: math.Inf(1)}
	type key struct{ claim, orders string }
	found := map[key]*ClaimResult{}
	var claims []*ClaimResult
	for _, c := range cfg.Claims {
		for _, ord := range []string{"fcfs", "any"} {
			cr := &ClaimResult{Claim: c, Orders: ord}
			found[key{c, ord}] = cr
			claims = append(claims, cr)
		}
	}
	for i := range cfg.Instances {
		rng := rand.New(rand.NewPCG(cfg.Seed, uint64(i)))
		in := buckets.GenInstance(func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }, gen)
		o, err := runOutcome(in, cfg.Exact, allow)
		if err != nil {
			return res, fmt.Errorf("experiments: instance %d: %w", i, err)
		}
		res.Events += o.events
		res.Violations += o.viol
		res.LemmaViolations += o.lemma
		if o.viol+o.lemma > 0 && (res.Violation == nil || in.Jobs() < res.Violation.Jobs()) {
			small := shrink(in, func(x buckets.Instance) bool {
				ox, err := runOutcome(x, cfg.Exact, allow)
				return err == nil && ox.viol+ox.lemma > 0
			})
			os, _ := runOutcome(small, cfg.Exact, allow)
			res.Violation, res.ViolationEvent = &small, os.first
		}
		if o.s > 0 {
			res.SlackInstances++
			res.MinSlack = math.Min(res.MinSlack, o.sk-o.s)
		}
		for _, c := range cfg.Claims {
			for _, ord := range []string{"fcfs", "any"} {
				if ord == "fcfs" && in.Order != buckets.FCFS {
					continue
				}
				cr := found[key{c, ord}]
				cr.Tested++
				if fails, _ := o.claimFails(c); !fails {
					continue
				}
				if cr.Counterexample != nil && cr.Counterexample.Jobs() <= in.Jobs() {
					continue
				}
				small := shrink(in, func(x buckets.Instance) bool {
					ox, err := runOutcome(x, cfg.Exact, allow)
					if err != nil {
						return false
					}
					f, _ := ox.claimFails(c)
					return f
				})
				os, _ := runOutcome(small, cfg.Exact, allow)
				_, cr.Detail = os.claimFails(c)
				cr.Counterexample = &small
			}
		}
	}
	for _, cr := range claims {
		res.Claims = append(res.Claims, *cr)
	}
	if res.SlackInstances == 0 {
		res.MinSlack = 0
	}
	return res, nil
}

// shrink removes jobs from in, one at a time, as long as fails still holds,
// and returns the smallest instance reached (greedy delta debugging), with
// its instants measured from its first arrival as a replay trace measures
// them. (Buckets start full, so moving every arrival by the same amount
// changes no delay.)
func shrink(in buckets.Instance, fails func(buckets.Instance) bool) buckets.Instance {
	in = shrinkJobs(in, fails)
	if len(in.Times) > 0 && in.Times[0] != 0 {
		t0 := in.Times[0]
		times := slices.Clone(in.Times)
		for i := range times {
			times[i] -= t0
		}
		in.Times = times
	}
	return in
}

func shrinkJobs(in buckets.Instance, fails func(buckets.Instance) bool) buckets.Instance {
	for changed := true; changed; {
		changed = false
		for i := 0; i < in.Jobs() && in.Jobs() > 1; i++ {
			x := in
			x.Times = slices.Delete(slices.Clone(in.Times), i, i+1)
			x.Sub = slices.Delete(slices.Clone(in.Sub), i, i+1)
			if fails(x) {
				in, changed = x, true
				i--
			}
		}
	}
	return in
}

// WriteReplay writes in as a replayable trace: a CSV with header
// "arrival_s,sub_bucket" and one row per job, instants in seconds (whole
// ticks of VerifyTick written as exact decimals).
func WriteReplay(path string, in buckets.Instance) error {
	f, err := CreateAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	fmt.Fprintln(f, "arrival_s,sub_bucket")
	for i, t := range in.Times {
		fmt.Fprintf(f, "%d.%03d,%d\n", t/1000, t%1000, in.Sub[i])
	}
	return f.Commit()
}

// ReplayArgs returns the ratesim run arguments that replay in from the
// trace at path on the float64 model (ticks of VerifyTick seconds).
func ReplayArgs(path string, in buckets.Instance, allowUnequal bool) []string {
	one, subs, _ := in.Floats(VerifyTick)
	g := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	var sub []string
	for _, s := range subs {
		sub = append(sub, g(s.Rate)+":"+g(s.Burst))
	}
	args := []string{"run", "--trace", path, "--time-col", "arrival_s", "--sub-col", "sub_bucket", "--dispatch", "column",
		"--rate", g(one.Rate), "--burst", g(one.Burst), "--sub", strings.Join(sub, ","), "--order", in.Order.String(),
		"--seed", strconv.FormatUint(in.Seed, 10)}
	if allowUnequal {
		args = append(args, "--allow-unequal")
	}
	return args
}
