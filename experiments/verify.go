package experiments

import (
	"context"
	"fmt"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"io"
	"math/big"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// VerifyConfig configures a counterexample search.
type VerifyConfig struct {
	Instances int    // random instances to run, >= 1
	Seed      uint64 // instance i is drawn from rand.NewPCG(Seed, i)
	MaxK      int    // sub-buckets k in [2, MaxK], MaxK >= 2
	MaxJobs   int    // jobs per instance in [1, MaxJobs], >= 1
	// LargeJobs, when above MaxJobs, makes every fourth instance draw its
	// number of jobs from [1, LargeJobs] instead: quantile claims can only
	// fail on instances where the quantile is not the maximum (more than
	// 100 jobs for p99). 0 means 4·MaxJobs + 100.
	LargeJobs int
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
//   - "p50", "p90", "p99": the nearest-rank quantiles (see QuantileMethod);
//   - "delayed": the number of delayed jobs (delay > 0);
//   - "squares": the sum of squared delays;
//   - "topm": the sum of the m largest delays, for every m (weak
//     majorization of the delays, which implies every convex increasing
//     cost, the sum of squares included).
//
// A counterexample is an instance where the split system is strictly
// better; all comparisons are exact.
var ClaimNames = []string{"job", "max", "p50", "p90", "p99", "delayed", "squares", "topm"}

// ClaimResult is the outcome of one claim under one set of orders.
type ClaimResult struct {
	Claim  string // one of ClaimNames
	Orders string // "fcfs", or "any" for every order searched
	Tested int    // instances the claim was tested on
	// Discriminating counts the instances tested on which some job waited
	// in the one bucket: only those can show the split to be better.
	Discriminating int
	// Counterexample is the smallest instance found on which the claim
	// fails, shrunk by removing jobs while it still fails; nil when the
	// claim held on every instance tested.
	Counterexample *systems.Instance
	Detail         string // what fails on the counterexample
}

// VerifyResult is the outcome of a search.
type VerifyResult struct {
	Instances       int
	Events          int64  // arrivals and token grants, over all instances
	Evaluated       uint64 // instants evaluated exactly by the check
	Violations      uint64 // evaluated instants with S(t) > S^(k)(t)
	LemmaViolations uint64 // evaluated instants with r·U(t) > Σ r_l·U_l(t)
	// Violation is the smallest instance (fewest jobs) with a violation,
	// shrunk, and the first violation on it; nil when none occurred.
	Violation      *systems.Instance
	ViolationEvent *systems.Violation
	// MinSlack is the smallest S^(k)(∞) - S(∞), in seconds, over the
	// SlackInstances instances where some job waited in the one bucket.
	MinSlack       float64
	SlackInstances int
	Claims         []ClaimResult
}

// Held reports whether Theorem 2 and Lemma 1 held on every instance.
func (r VerifyResult) Held() bool { return r.Violations == 0 && r.LemmaViolations == 0 }

// outcome is what one run of an instance tells, exactly (waits in ns).
type outcome struct {
	check      systems.Result
	events     int64
	one, split []exact.Rat
}

func runOutcome(in systems.Instance, allowUnequal bool) (outcome, error) {
	d, res, err := systems.RunInstance(in, allowUnequal)
	if err != nil {
		return outcome{}, err
	}
	o := outcome{check: res, one: d.One, split: d.Split, events: int64(len(d.One))}
	o.events += int64(countPositive(d.One) + countPositive(d.Split))
	return o, nil
}

func secs(w exact.Rat) string { return strconv.FormatFloat(w.QuoFloat64(1e9), 'g', 6, 64) }

// claimFails evaluates a claim on an outcome and describes a failure.
func (o outcome) claimFails(claim string) (bool, string) {
	switch claim {
	case "job":
		for i := range o.one {
			if o.split[i].Cmp(o.one[i]) < 0 {
				return true, fmt.Sprintf("job %d waits %s s split, %s s in the one bucket", i, secs(o.split[i]), secs(o.one[i]))
			}
		}
		return false, ""
	case "max":
		a, b := maxRat(o.one), maxRat(o.split)
		return b.Cmp(a) < 0, fmt.Sprintf("max delay %s s split, %s s one", secs(b), secs(a))
	case "p50", "p90", "p99":
		pct := map[string]int{"p50": 50, "p90": 90, "p99": 99}[claim]
		a, b := nearestRank(o.one, pct), nearestRank(o.split, pct)
		return b.Cmp(a) < 0, fmt.Sprintf("%s delay %s s split, %s s one (%d jobs)", claim, secs(b), secs(a), len(o.one))
	case "delayed":
		a, b := countPositive(o.one), countPositive(o.split)
		return b < a, fmt.Sprintf("%d jobs delayed split, %d in the one bucket", b, a)
	case "squares":
		a, b := sumSquares(o.one), sumSquares(o.split)
		fa, _ := a.Float64()
		fb, _ := b.Float64()
		return b.Cmp(a) < 0, fmt.Sprintf("sum of squared delays %.6g s² split, %.6g s² one", fb/1e18, fa/1e18)
	case "topm":
		one, split := sortedDesc(o.one), sortedDesc(o.split)
		sa, sb := new(big.Rat), new(big.Rat)
		for m := range one {
			sa.Add(sa, one[m].Big())
			sb.Add(sb, split[m].Big())
			if sb.Cmp(sa) < 0 {
				fa, _ := sa.Float64()
				fb, _ := sb.Float64()
				return true, fmt.Sprintf("the %d largest delays sum to %.6g s split, %.6g s one", m+1, fb/1e9, fa/1e9)
			}
		}
		return false, ""
	}
	panic("experiments: unknown claim " + claim)
}

func maxRat(xs []exact.Rat) exact.Rat {
	var m exact.Rat
	for _, x := range xs {
		if m.Cmp(x) < 0 {
			m = x
		}
	}
	return m
}

func sortedDesc(xs []exact.Rat) []exact.Rat {
	s := slices.Clone(xs)
	slices.SortFunc(s, func(a, b exact.Rat) int { return b.Cmp(a) })
	return s
}

// nearestRank is the pct-th percentile by QuantileMethod: the
// ceil(pct·n/100)-th smallest, in integers.
func nearestRank(xs []exact.Rat, pct int) exact.Rat {
	s := slices.Clone(xs)
	slices.SortFunc(s, exact.Rat.Cmp)
	r := (pct*len(s) + 99) / 100
	return s[max(r, 1)-1]
}

func countPositive(xs []exact.Rat) int {
	n := 0
	for _, x := range xs {
		if x.Sign() > 0 {
			n++
		}
	}
	return n
}

func sumSquares(xs []exact.Rat) *big.Rat {
	s := new(big.Rat)
	for _, x := range xs {
		b := x.Big()
		s.Add(s, b.Mul(b, b))
	}
	return s
}

// Validate checks the configuration and fills defaults.
func (cfg *VerifyConfig) Validate() error {
	if cfg.Instances < 1 {
		return &buckets.ParamError{Name: "instances", Value: cfg.Instances, Want: ">= 1"}
	}
	if cfg.MaxK < 2 {
		return &buckets.ParamError{Name: "max k", Value: cfg.MaxK, Want: ">= 2"}
	}
	if cfg.MaxJobs < 1 {
		return &buckets.ParamError{Name: "max jobs", Value: cfg.MaxJobs, Want: ">= 1"}
	}
	if cfg.LargeJobs == 0 {
		cfg.LargeJobs = 4*cfg.MaxJobs + 100
	}
	if len(cfg.Orders) == 0 {
		cfg.Orders = buckets.Orders
	}
	for _, c := range cfg.Claims {
		if !slices.Contains(ClaimNames, c) {
			return &buckets.ParamError{Name: "claim", Value: c, Want: "one of " + strings.Join(ClaimNames, ", ")}
		}
	}
	if cfg.Inflate != "" && cfg.Inflate != "burst" && cfg.Inflate != "rate" {
		return &buckets.ParamError{Name: "inflate", Value: cfg.Inflate, Want: "burst or rate"}
	}
	return nil
}

// Verify searches random instances for violations of Theorem 2 and Lemma 1
// and for counterexamples to the stronger claims, exactly. It is
// deterministic: the same configuration gives the same result on every
// machine.
func Verify(cfg VerifyConfig) (VerifyResult, error) {
	if err := cfg.Validate(); err != nil {
		return VerifyResult{}, err
	}
	allow := cfg.Inflate != ""
	res := VerifyResult{Instances: cfg.Instances}
	var minSlack *big.Rat
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
		gen := systems.GenConfig{MaxK: cfg.MaxK, MaxJobs: cfg.MaxJobs, Orders: cfg.Orders,
			InflateBurst: cfg.Inflate == "burst", InflateRate: cfg.Inflate == "rate"}
		if i%4 == 3 && cfg.LargeJobs > cfg.MaxJobs {
			gen.MaxJobs = cfg.LargeJobs
		}
		in := systems.GenInstance(func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }, gen)
		o, err := runOutcome(in, allow)
		if err != nil {
			return res, fmt.Errorf("experiments: instance %d: %w", i, err)
		}
		res.Events += o.events
		res.Evaluated += o.check.Evaluated
		res.Violations += o.check.Violations
		res.LemmaViolations += o.check.LemmaViolations
		if !o.check.Held() && (res.Violation == nil || in.Jobs() < res.Violation.Jobs()) {
			small := shrink(in, func(x systems.Instance) bool {
				ox, err := runOutcome(x, allow)
				return err == nil && !ox.check.Held()
			})
			os, _ := runOutcome(small, allow)
			res.Violation, res.ViolationEvent = &small, os.check.First
		}
		discriminating := countPositive(o.one) > 0
		if discriminating {
			res.SlackInstances++
			d := new(big.Rat).Sub(o.check.SSplit.Big(), o.check.S.Big())
			if minSlack == nil || d.Cmp(minSlack) < 0 {
				minSlack = d
			}
		}
		for _, c := range cfg.Claims {
			for _, ord := range []string{"fcfs", "any"} {
				if ord == "fcfs" && in.Order != buckets.FCFS {
					continue
				}
				cr := found[key{c, ord}]
				cr.Tested++
				if discriminating {
					cr.Discriminating++
				}
				if fails, _ := o.claimFails(c); !fails {
					continue
				}
				if cr.Counterexample != nil && cr.Counterexample.Jobs() <= in.Jobs() {
					continue
				}
				small := shrink(in, func(x systems.Instance) bool {
					ox, err := runOutcome(x, allow)
					if err != nil {
						return false
					}
					f, _ := ox.claimFails(c)
					return f
				})
				os, _ := runOutcome(small, allow)
				_, cr.Detail = os.claimFails(c)
				cr.Counterexample = &small
			}
		}
	}
	for _, cr := range claims {
		res.Claims = append(res.Claims, *cr)
	}
	if minSlack != nil {
		res.MinSlack, _ = new(big.Rat).Quo(minSlack, big.NewRat(1e9, 1)).Float64()
	}
	return res, nil
}

// shrink removes jobs from in, one at a time, as long as fails still holds,
// and returns the smallest instance reached (greedy delta debugging), with
// its instants measured from its first arrival as a replay trace measures
// them. (Buckets start full, so moving every arrival by the same amount
// changes no delay.)
func shrink(in systems.Instance, fails func(systems.Instance) bool) systems.Instance {
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

func shrinkJobs(in systems.Instance, fails func(systems.Instance) bool) systems.Instance {
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
// "arrival_s,sub_bucket" and one row per job, instants in seconds written
// as exact decimals.
func WriteReplay(path string, in systems.Instance) error {
	return atomicfile.Write(context.Background(), path, func(w io.Writer) error {
		fmt.Fprintln(w, "arrival_s,sub_bucket")
		for i, t := range in.Times {
			if _, err := fmt.Fprintf(w, "%v,%d\n", t, in.Sub[i]); err != nil {
				return err
			}
		}
		return nil
	})
}

// ReplayArgs returns the ratesim run arguments that replay in from the
// trace at path, exactly: rates and bursts are written as exact decimals
// or fractions.
func ReplayArgs(path string, in systems.Instance, allowUnequal bool) []string {
	var sub []string
	for _, s := range in.Subs {
		sub = append(sub, s.Rate.String()+":"+s.Burst.String())
	}
	args := []string{"run", "--trace", path, "--time-col", "arrival_s", "--sub-col", "sub_bucket", "--dispatch", "column",
		"--rate", in.One.Rate.String(), "--burst", in.One.Burst.String(), "--sub", strings.Join(sub, ","), "--order", in.Order.String(),
		"--seed", strconv.FormatUint(in.Seed, 10)}
	if allowUnequal {
		args = append(args, "--allow-unequal")
	}
	return args
}
