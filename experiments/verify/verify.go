// Package verify owns the counterexample search of ratesim verify: it
// draws random small instances (systems.Gen), runs the one bucket and its
// split on each exactly (systems.Check), counts violations of Theorem 2
// and Lemma 1, maps the stronger claims ("the split is never better in
// ...") to their first counterexamples, shrinks them, and writes them as
// replayable traces. Results depend on the seed alone, not on the number
// of workers.
package verify

import (
	"context"
	"fmt"
	"io"
	"math/big"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/systems"
)

// Config configures a counterexample search.
type Config struct {
	Instances int    // random instances to run, >= 1
	Seed      uint64 // instance i is drawn from rand.NewPCG(Seed, i)
	MaxK      int    // sub-buckets k in [2, MaxK], MaxK >= 2
	MaxJobs   int    // jobs per instance in [1, MaxJobs], >= 1
	// LargeJobs, when above MaxJobs, makes every eighth instance (i mod 8
	// = 3) draw its number of jobs from [1, LargeJobs] instead, and every
	// eighth (i mod 8 = 7) a burst followed by a sparse tail of up to
	// LargeJobs jobs (see burstTail): quantile claims can only fail on
	// instances where the quantile is not the maximum (more than 100 jobs
	// for p99). 0 means 4·MaxJobs + 100.
	LargeJobs int
	Orders    []buckets.Order // service orders drawn from; empty means all
	Workers   int             // goroutines running instances; 0 means GOMAXPROCS (the result does not depend on it)
	Claims    []string        // stronger claims to map; see ClaimNames
	// Inflate breaks the hypotheses for a negative control: "burst" makes
	// Σ b_l > b, "rate" makes Σ r_l > r; "" keeps them.
	Inflate string
	// Known are run, in order, before the random instances (see
	// [BuiltinKnown]): a claim a known instance refutes is reported as
	// failing, with that instance (not shrunk), whatever the random search
	// finds; a random counterexample replaces it only if it has fewer
	// jobs. Instances breaking the hypotheses (AllowUnequal) are refused
	// unless Inflate is set.
	Known []Known
}

// ClaimNames lists the stronger claims [Search] can map, each of the form
// "the split system is never better than the one bucket in ...":
//
//   - "job": any single job's delay;
//   - "max": the maximum delay;
//   - "p50", "p90", "p99": the nearest-rank quantiles (see experiments.QuantileMethod);
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
	// Known is the name of the library instance (Config.Known) that is
	// the counterexample, "" when the random search found it.
	Known string
}

// Result is the outcome of a search.
type Result struct {
	Instances       int    // random instances run
	Known           int    // library instances run before them (Config.Known)
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
func (r Result) Held() bool { return r.Violations == 0 && r.LemmaViolations == 0 }

// outcome is what one run of an instance tells, exactly. The waits are
// integers in units of 1/unit ns, one common unit for both systems (the
// least common multiple of the waits' denominators, which divides the
// pair's scale), so that every claim compares integers.
type outcome struct {
	check      systems.Result
	events     int64
	unit       int64
	one, split []exact.Int128 // per job
	// sorted copies, ascending, made on first use
	oneSorted, splitSorted []exact.Int128
}

func runOutcome(in systems.Instance, allowUnequal bool) (*outcome, error) {
	d, res, err := systems.RunInstance(in, allowUnequal)
	if err != nil {
		return nil, err
	}
	o := &outcome{check: res, unit: 1}
	for _, ws := range [][]exact.Rat{d.One, d.Split} {
		for _, w := range ws {
			if den := w.Den(); o.unit%den != 0 {
				o.unit = o.unit / exact.GCD(o.unit, den) * den
			}
		}
	}
	conv := func(ws []exact.Rat) ([]exact.Int128, error) {
		out := make([]exact.Int128, len(ws))
		for i, w := range ws {
			v, ok := w.Num().Mul64OK(o.unit / w.Den())
			if !ok {
				return nil, fmt.Errorf("experiments: a wait of %v ns in units of 1/%d ns needs more than 127 bits", w, o.unit)
			}
			out[i] = v
		}
		return out, nil
	}
	if o.one, err = conv(d.One); err != nil {
		return nil, err
	}
	if o.split, err = conv(d.Split); err != nil {
		return nil, err
	}
	o.events = int64(len(o.one) + countPositive(o.one) + countPositive(o.split))
	return o, nil
}

// secs writes x units of 1/unit ns in seconds, 6 digits.
func (o *outcome) secs(x exact.Int128) string {
	return strconv.FormatFloat(exact.Frac(x, o.unit).QuoFloat64(1e9), 'g', 6, 64)
}

// sorted returns the waits of both systems, ascending.
func (o *outcome) sorted() (one, split []exact.Int128) {
	if o.oneSorted == nil {
		o.oneSorted, o.splitSorted = slices.Clone(o.one), slices.Clone(o.split)
		slices.SortFunc(o.oneSorted, exact.Int128.Cmp)
		slices.SortFunc(o.splitSorted, exact.Int128.Cmp)
	}
	return o.oneSorted, o.splitSorted
}

// quantile returns the pct-th percentiles of the waits of both systems,
// by experiments.QuantileMethod: the ceil(pct·n/100)-th smallest.
func (o *outcome) quantile(pct int) (one, split exact.Int128) {
	a, b := o.sorted()
	r := max((pct*len(a)+99)/100, 1)
	return a[r-1], b[r-1]
}

// claimFails evaluates a claim on an outcome and describes a failure.
func (o *outcome) claimFails(claim string) (bool, string) {
	n := len(o.one)
	switch claim {
	case "job":
		for i := range o.one {
			if o.split[i].Less(o.one[i]) {
				return true, fmt.Sprintf("job %d waits %s s split, %s s in the one bucket", i, o.secs(o.split[i]), o.secs(o.one[i]))
			}
		}
		return false, ""
	case "max":
		one, split := o.sorted()
		a, b := one[n-1], split[n-1]
		if !b.Less(a) {
			return false, ""
		}
		return true, fmt.Sprintf("max delay %s s split, %s s one", o.secs(b), o.secs(a))
	case "p50", "p90", "p99":
		a, b := o.quantile(map[string]int{"p50": 50, "p90": 90, "p99": 99}[claim])
		if !b.Less(a) {
			return false, ""
		}
		return true, fmt.Sprintf("%s delay %s s split, %s s one (%d jobs)", claim, o.secs(b), o.secs(a), n)
	case "delayed":
		a, b := countPositive(o.one), countPositive(o.split)
		if b >= a {
			return false, ""
		}
		return true, fmt.Sprintf("%d jobs delayed split, %d in the one bucket", b, a)
	case "squares":
		c, fa, fb := cmpSquares(o.split, o.one)
		if c >= 0 {
			return false, ""
		}
		u := 1e9 * float64(o.unit)
		return true, fmt.Sprintf("sum of squared delays %.6g s² split, %.6g s² one", fb/u/u, fa/u/u)
	case "topm":
		// Prefix sums of the largest waits; in big integers from the
		// first sum beyond 127 bits on.
		one, split := o.sorted()
		var sa, sb exact.Int128
		var ba, bb *big.Int
		for m := 1; m <= n; m++ {
			var worse bool
			if ba == nil {
				var ok1, ok2 bool
				sa, ok1 = sa.AddOK(one[n-m])
				sb, ok2 = sb.AddOK(split[n-m])
				if !ok1 || !ok2 {
					ba, bb = new(big.Int), new(big.Int)
					for i := 1; i <= m; i++ {
						ba.Add(ba, one[n-i].Big())
						bb.Add(bb, split[n-i].Big())
					}
				}
			} else {
				ba.Add(ba, one[n-m].Big())
				bb.Add(bb, split[n-m].Big())
			}
			if ba != nil {
				worse = bb.Cmp(ba) < 0
			} else {
				worse = sb.Less(sa)
			}
			if worse {
				u := 1e9 * float64(o.unit)
				fa, fb := sa.Float64(), sb.Float64()
				if ba != nil {
					fa, _ = new(big.Float).SetInt(ba).Float64()
					fb, _ = new(big.Float).SetInt(bb).Float64()
				}
				return true, fmt.Sprintf("the %d largest delays sum to %.6g s split, %.6g s one", m, fb/u, fa/u)
			}
		}
		return false, ""
	}
	panic("experiments: unknown claim " + claim)
}

// cmpSquares compares Σ y_i² with Σ x_i² exactly and returns -1, 0 or +1
// and the float64 sums (Σ x², Σ y²). The float64 sums decide when they
// differ by more than their rounding error (n·2^-52 relative); big
// integers decide otherwise.
func cmpSquares(ys, xs []exact.Int128) (c int, fx, fy float64) {
	for i := range xs {
		x, y := xs[i].Float64(), ys[i].Float64()
		fx += x * x
		fy += y * y
	}
	if tol := float64(len(xs)+2) * 0x1p-50 * max(fx, fy); fy-fx > tol || fx-fy > tol {
		if fy < fx {
			return -1, fx, fy
		}
		return 1, fx, fy
	}
	sx, sy, t := new(big.Int), new(big.Int), new(big.Int)
	for i := range xs {
		b := xs[i].Big()
		sx.Add(sx, t.Mul(b, b))
		b = ys[i].Big()
		sy.Add(sy, t.Mul(b, b))
	}
	return sy.Cmp(sx), fx, fy
}

func countPositive(xs []exact.Int128) int {
	n := 0
	for _, x := range xs {
		if x.Sign() > 0 {
			n++
		}
	}
	return n
}

// Validate checks the configuration and fills defaults.
func (cfg *Config) Validate() error {
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

// burstTail draws an instance of the structured family "a burst followed
// by a sparse tail", the shape on which quantile claims fail (see
// TestP99Counterexample): a random head with k = 2 (drawn as
// [systems.GenInstance] draws them; with two sub-buckets the split delays
// fewer jobs than the one bucket under FCFS about 7 times as often as
// with up to 8) followed by jobs, each to a random sub-bucket, spaced so far
// apart that none waits in either system: the first after the head's last
// arrival plus (head jobs + Σ b_l + 1) slowest token times, the others one
// slowest token time plus 1 ms apart (every bucket is full again before
// the next job). The tail sets how many zeros lie below a quantile: when
// the split delays fewer of the head's jobs than the one bucket (d_split
// < d_one, which it runs the head to find out), the tail's length is drawn
// among those that put the nearest-rank p50, p90 or p99 (drawn) of the
// whole instance at rank n - d_split, where the split's delays are still
// 0 and the one bucket's are not, so the quantile claim fails; otherwise
// it has 1 to maxJobs jobs. A head that cannot run is returned as it is
// (the search then reports its error).
func burstTail(draw func(lo, hi int) int, g systems.GenConfig, maxJobs int, allow bool) systems.Instance {
	g.MaxK = 2
	in := systems.GenInstance(draw, g)
	tail := draw(1, max(1, maxJobs))
	pct := []int{50, 90, 99}[draw(0, 2)]
	o, err := runOutcome(in, allow)
	if err != nil {
		return in
	}
	if dOne, dSplit := countPositive(o.one), countPositive(o.split); dSplit < dOne {
		// n - ceil(pct·n/100) = dSplit for n in a range of about
		// 100/(100 - pct) values above dSplit·100/(100 - pct).
		var ok []int
		for n := in.Jobs() + 1; n <= in.Jobs()+100*(dSplit+2); n++ {
			if n-(pct*n+99)/100 == dSplit {
				ok = append(ok, n-in.Jobs())
			}
		}
		if len(ok) > 0 {
			tail = ok[draw(0, len(ok)-1)]
		}
	}
	// The slowest token time, whole ms, rounded up: 1/r_l s for the
	// slowest sub-bucket (the one bucket is faster than each).
	slow := int64(1)
	burst := exact.Rat{}
	for _, p := range in.Subs {
		ms, _ := exact.Int(1000).Quo(p.Rate)
		if c := ms.Ceil(); c.IsInt64() && c.Int64() > slow {
			slow = c.Int64()
		}
		burst, _ = burst.Add(p.Burst)
	}
	gap := engine.Time(slow+1) * engine.Millisecond
	t := in.Times[len(in.Times)-1] + engine.Time(int64(in.Jobs())+burst.Ceil().Int64()+1)*gap
	times, subs := slices.Clone(in.Times), slices.Clone(in.Sub)
	for range tail {
		times, subs = append(times, t), append(subs, draw(0, len(in.Subs)-1))
		t += gap
	}
	in.Times, in.Sub = times, subs
	return in
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
	// On an instance of more than 100 jobs (a long tail), blocks of n/2,
	// n/4, ..., 2 jobs go first, which takes a few runs where removing one
	// job at a time takes n; smaller instances keep to single jobs, whose
	// local minima are smaller (blocks can remove the jobs a smaller
	// counterexample would have kept).
	if in.Jobs() > 100 {
		for size := in.Jobs() / 2; size >= 2; size /= 2 {
			for i := 0; i+size <= in.Jobs() && in.Jobs() > size; {
				x := in
				x.Times = slices.Delete(slices.Clone(in.Times), i, i+size)
				x.Sub = slices.Delete(slices.Clone(in.Sub), i, i+size)
				if fails(x) {
					in = x
				} else {
					i += size
				}
			}
		}
	}
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
