package splitstudy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/specfile"
)

// Point is one point of a sweep: every parameter of its replications.
type Point struct {
	Index         int       `json:"point"`                    // 0-based, in sweep order
	Grid          int       `json:"grid"`                     // the grid of the sweep it belongs to, 0-based
	Arrivals      string    `json:"arrivals"`                 // arrival spec (arrivals.SpecHelp)
	Load          float64   `json:"load"`                     // ρ = λ/r
	Rate          float64   `json:"rate_tokens_per_s"`        // r
	Burst         float64   `json:"burst_tokens"`             // b
	K             int       `json:"k"`                        // sub-buckets
	RateShares    []float64 `json:"rate_shares"`              // q_l
	BurstShares   []float64 `json:"burst_shares"`             // q^b_l
	TrafficShares []float64 `json:"traffic_shares,omitempty"` // p_l: weighted, random (= q_l) and rr (1/k); nil for least-loaded
	Dispatch      string    `json:"dispatch"`
	Order         string    `json:"order"`
	Jobs          int64     `json:"jobs"`   // measured jobs per replication
	Warmup        int64     `json:"warmup"` // warm-up jobs per replication
	Replications  int       `json:"replications"`
	// RateExact and BurstExact are r and b exactly when given as a
	// fraction p/q (see Spec.RateExact); "" otherwise.
	RateExact  string      `json:"rate_exact,omitempty"`
	BurstExact string      `json:"burst_exact,omitempty"`
	trace      *TraceInput // the spec's trace, or nil for generated arrivals
	// traceLambda is the trace's mean rate, jobs/s, once Spec.FitTrace
	// has read it; 0 otherwise.
	traceLambda float64
}

// Lambda returns the mean arrival rate λ, jobs/s: ρ·r for an arrival spec
// whose processes take the default rate (such as "poisson"), the mean rate
// its parameters give otherwise; for a trace, its mean rate once
// [Spec.FitTrace] has read it, NaN before (and for an invalid spec).
func (p *Point) Lambda() float64 {
	if p.trace != nil && p.traceLambda > 0 {
		return p.traceLambda
	}
	r, err := ratOf(p.Rate, p.RateExact)
	if err != nil || p.trace != nil {
		return math.NaN()
	}
	return experiments.ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: r}.MeanRate()
}

// One returns the one bucket (r, b), exactly: RateExact and BurstExact
// where set (fractions p/q), else each float64 parameter stands for its
// shortest decimal (exact.FromFloat64).
func (p *Point) One() (buckets.Params, error) {
	r, err1 := ratOf(p.Rate, p.RateExact)
	b, err2 := ratOf(p.Burst, p.BurstExact)
	if err := errors.Join(err1, err2); err != nil {
		return buckets.Params{}, fmt.Errorf("experiments: point %d: %w (%w)", p.Index, err, buckets.ErrParam)
	}
	return buckets.Params{Rate: r, Burst: b}, nil
}

// exactShares returns the shares xs as exact rationals that add up to
// exactly 1: each share stands for its shortest decimal, divided by their
// sum, so that [1/3, 1/3, 1/3] written in float64 gives thirds and
// [0.7, 0.3] gives 7/10 and 3/10.
func exactShares(xs []float64) ([]exact.Rat, error) {
	out := make([]exact.Rat, len(xs))
	sum := exact.Rat{}
	for l, x := range xs {
		r, err := exact.FromFloat64(x)
		if err != nil {
			return nil, err
		}
		out[l] = r
		if sum, err = sum.Add(r); err != nil {
			return nil, err
		}
	}
	if sum.Sign() == 0 {
		return nil, fmt.Errorf("experiments: shares %v add up to 0: %w", xs, buckets.ErrParam)
	}
	for l := range out {
		var err error
		if out[l], err = out[l].Quo(sum); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// Subs returns the sub-buckets (q_l·r, q^b_l·b), exactly, with the shares
// normalised to add up to exactly 1 (see exactShares), so that the split
// satisfies Σ r_l = r and Σ b_l = b exactly: decimal shares such as
// 1 - 0.9 (0.09999999999999998 in float64, whose shortest decimal is that
// too) of b = 10 are written by the grid as 0.1, and give 1 token.
func (p *Point) Subs() ([]buckets.Params, error) {
	one, err := p.One()
	if err != nil {
		return nil, err
	}
	rs, err1 := exactShares(p.RateShares)
	bs, err2 := exactShares(p.BurstShares)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("experiments: point %d: %w (%w)", p.Index, err, buckets.ErrParam)
	}
	subs := make([]buckets.Params, p.K)
	for l := range subs {
		r, err1 := one.Rate.Mul(rs[l])
		b, err2 := one.Burst.Mul(bs[l])
		if err := errors.Join(err1, err2); err != nil {
			return nil, fmt.Errorf("experiments: point %d sub-bucket %d: %w (%w)", p.Index, l, err, buckets.ErrParam)
		}
		subs[l] = buckets.Params{Rate: r, Burst: b}
	}
	return subs, nil
}

// restShare returns each of the k - 1 equal shares that remain when one
// sub-bucket has share x, rounded to 15 significant digits so that decimal
// grids give decimal shares (1 - 0.9 gives 0.1, not 0.09999999999999998).
func restShare(x float64, k int) float64 {
	r, _ := strconv.ParseFloat(strconv.FormatFloat((1-x)/float64(k-1), 'g', 15, 64), 64)
	return r
}

// axisValue returns the point's value of the named parameter.
func (p *Point) axisValue(name string) any {
	switch name {
	case "load":
		return p.Load
	case "rate":
		return p.Rate
	case "burst":
		return p.Burst
	case "k":
		return float64(p.K)
	case "p":
		if len(p.TrafficShares) == 0 {
			return math.NaN()
		}
		return p.TrafficShares[0]
	case "q", "q_rate":
		return p.RateShares[0]
	case "q_burst":
		return p.BurstShares[0]
	case "jobs":
		return float64(p.Jobs)
	case "warmup":
		return float64(p.Warmup)
	case "arrivals":
		return p.Arrivals
	case "dispatch":
		return p.Dispatch
	case "order":
		return p.Order
	}
	panic("experiments: unknown parameter " + name)
}

// Points enumerates the points of the sweep, validating each: grid by grid,
// the last axis of a grid varying fastest.
func (s *Spec) Points() ([]Point, error) {
	if s.NumPoints() > experiments.MaxPoints {
		return nil, specErr("sweep", "more than %d points", experiments.MaxPoints)
	}
	grids := s.Sweep
	if len(grids) == 0 {
		grids = Sweep{nil}
	}
	var pts []Point
	for gi, g := range grids {
		idx := make([]int, len(g))
		for {
			vals := map[string]any{}
			for i, a := range g {
				vals[a.Name] = a.Values[idx[i]]
			}
			p, err := s.point(vals)
			if err != nil {
				if len(g) > 0 {
					var se *specfile.Error
					if errors.As(err, &se) {
						se.Err = fmt.Errorf("at sweep point %d (%s): %w", len(pts), pointLabel(g, idx), se.Err)
						for _, a := range g {
							if se.Field == "sweep."+a.Name {
								se.Line = a.line
							}
						}
					}
				}
				return nil, err
			}
			p.Index, p.Grid = len(pts), gi
			pts = append(pts, p)
			// Advance the odometer, last axis fastest.
			i := len(g) - 1
			for ; i >= 0; i-- {
				idx[i]++
				if idx[i] < len(g[i].Values) {
					break
				}
				idx[i] = 0
			}
			if i < 0 {
				break
			}
		}
	}
	return pts, nil
}

func pointLabel(g Grid, idx []int) string {
	var parts []string
	for i, a := range g {
		parts = append(parts, a.Name+"="+formatAxisValue(a.Values[idx[i]]))
	}
	return strings.Join(parts, " ")
}

// shareTolerance is the relative tolerance within which a share list
// written in float64 must add up to 1; the shares are then normalised to
// add up to exactly 1 (see exactShares).
const shareTolerance = 1e-9

// point builds and validates the point with the axis values vals over the
// spec's fields.
func (s *Spec) point(vals map[string]any) (Point, error) {
	b := &pointBuilder{s: s, vals: vals}
	for _, step := range []func() error{b.values, b.checkRate, b.checkArrivals, b.checkCounts, b.setShares, b.checkSubs} {
		if err := step(); err != nil {
			return b.p, err
		}
	}
	return b.p, nil
}

// pointBuilder builds a point from a spec and the point's axis values,
// step by step, each step checking what it set.
type pointBuilder struct {
	s    *Spec
	vals map[string]any
	p    Point
	err  error // the first error of shares
}

// field names the field that set name: the sweep axis when the point has
// one, else the spec's key.
func (b *pointBuilder) field(name string) string {
	if _, ok := b.vals[name]; ok {
		return "sweep." + name
	}
	return name
}

// values sets the spec's fields and the point's axis values.
func (b *pointBuilder) values() error {
	s, vals := b.s, b.vals
	b.p = Point{Arrivals: s.Arrivals, Load: s.Load, Rate: s.Rate, Burst: s.Burst, K: s.K,
		Dispatch: s.Dispatch, Order: s.Order, Jobs: s.Jobs, Warmup: s.Warmup, Replications: s.Replications, trace: s.Trace,
		RateExact: s.RateExact, BurstExact: s.BurstExact, traceLambda: s.traceLambda}
	p := &b.p
	f := func(name string, dst *float64, exact *string) {
		if v, ok := vals[name]; ok {
			text := "" // a decimal axis value: a float64's shortest decimal
			if f, ok := v.(Fraction); ok {
				*dst, text = f.Float, f.Exact
			} else {
				*dst = v.(float64)
			}
			if exact != nil {
				*exact = text
			}
		}
	}
	i := func(name string, dst *int64) {
		if v, ok := vals[name]; ok {
			*dst = int64(v.(float64))
		}
	}
	str := func(name string, dst *string) {
		if v, ok := vals[name]; ok {
			*dst = v.(string)
		}
	}
	f("load", &p.Load, nil)
	f("rate", &p.Rate, &p.RateExact)
	f("burst", &p.Burst, &p.BurstExact)
	if v, ok := vals["k"]; ok {
		p.K = int(v.(float64))
	}
	i("jobs", &p.Jobs)
	i("warmup", &p.Warmup)
	str("arrivals", &p.Arrivals)
	str("dispatch", &p.Dispatch)
	str("order", &p.Order)
	if p.trace != nil && s.traceJobs > 0 { // a jobs or warmup axis over a fitted trace
		if p.Warmup >= s.traceJobs {
			return specErr("sweep.warmup", "%d, want fewer than the trace's %d jobs", p.Warmup, s.traceJobs)
		}
		p.Jobs = min(p.Jobs, s.traceJobs-p.Warmup) // the jobs actually measured
	}
	return nil
}

// checkRate checks the load, the rate and the exact texts of rate and
// burst.
func (b *pointBuilder) checkRate() error {
	p := &b.p
	if !(p.Load > 0) || math.IsInf(p.Load, 0) {
		return specErr(b.field("load"), "%v, want a finite load > 0", p.Load)
	}
	if !(p.Rate > 0) || math.IsInf(p.Rate, 0) {
		return specErr(b.field("rate"), "%v, want a finite rate > 0 tokens/s", p.Rate)
	}
	if _, err := ratOf(p.Rate, p.RateExact); err != nil {
		return specErr(b.field("rate"), "%v: %v", p.Rate, err)
	}
	for _, x := range []struct {
		name, text string
		f          float64
	}{{"rate", p.RateExact, p.Rate}, {"burst", p.BurstExact, p.Burst}} {
		if r, err := exact.ParseRat(x.text); x.text != "" && (err != nil || r.Float64() != x.f) {
			return specErr(x.name+"_exact", "%q, want the exact value of %s = %v, a decimal or a fraction p/q", x.text, x.name, x.f)
		}
	}
	return nil
}

// checkArrivals checks the trace, or the arrival spec.
func (b *pointBuilder) checkArrivals() error {
	s, p := b.s, &b.p
	if s.Trace == nil {
		if err := (experiments.ArrivalsSpec{Spec: p.Arrivals, Load: 1, Rate: exact.Int(1)}).Check(); err != nil {
			// The spec's own parameters, with a default rate of 1 job/s: λ =
			// ρ·r is checked below.
			return specErr(b.field("arrivals"), "%q, want an arrival spec such as poisson, periodic or 'renewal:dist=gamma,scv=4': %v", p.Arrivals, strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", p.Arrivals)))
		}
		return nil
	}
	for _, name := range []string{"arrivals", "load"} {
		if _, ok := b.vals[name]; ok {
			return specErr("sweep."+name, "a sweep reading a trace has no generated arrivals to vary; remove the axis or the trace")
		}
	}
	if s.Trace.Path == "" {
		return specErr("trace.path", "empty, want the path of a trace file")
	}
	if err := arrivals.CheckRereadable(s.Trace.Path); err != nil {
		return specErr("trace.path", "%v", err)
	}
	if _, err := arrivals.FormatFor(s.Trace.Path, s.Trace.Format); err != nil {
		return specErr("trace.format", "%v", err)
	}
	p.Arrivals = traceLabel(s.Trace.Path)
	return nil
}

// checkCounts checks the burst, λ, k, the job counts, the order and the
// dispatch.
func (b *pointBuilder) checkCounts() error {
	p, field := &b.p, b.field
	if !(p.Burst >= 1) || math.IsInf(p.Burst, 0) {
		return specErr(field("burst"), "%v, want a finite burst >= 1 token", p.Burst)
	}
	if l := p.Lambda(); b.s.Trace == nil && (!(l > 0) || math.IsInf(l, 0) || math.IsInf(1/l, 0)) {
		return specErr(field("load"), "%v gives arrival rate λ = %v jobs/s, want a finite λ > 0 with a finite mean gap", p.Load, l)
	}
	if p.K < 1 || p.K > MaxSubBuckets {
		return specErr(field("k"), "%d, want between 1 and 65536 sub-buckets", p.K)
	}
	if p.Jobs < 1 {
		return specErr(field("jobs"), "%d, want >= 1 measured job per replication", p.Jobs)
	}
	if p.Warmup < 0 {
		return specErr(field("warmup"), "%d, want >= 0 jobs", p.Warmup)
	}
	if p.Warmup > math.MaxInt64-p.Jobs {
		return specErr(field("jobs"), "%d with warmup %d: jobs + warmup overflows a 64-bit count, want jobs + warmup <= %d", p.Jobs, p.Warmup, int64(math.MaxInt64))
	}
	if _, err := buckets.ParseOrder(p.Order); err != nil {
		return specErr(field("order"), "%q, want fcfs, lifo or random", p.Order)
	}
	switch p.Dispatch {
	case "rr", "random", "least-loaded", "weighted":
		return nil
	case "hash", "column":
		return specErr(field("dispatch"), "%q needs a trace with keys or sub-bucket columns; a sweep generates its arrivals (use rr, random, least-loaded or weighted)", p.Dispatch)
	}
	return specErr(field("dispatch"), "%q, want rr, random, least-loaded or weighted", p.Dispatch)
}

// shares returns the shares of the k sub-buckets: sub-bucket 1's from the
// first of axes the point has (the rest split equally), else given
// (checked: k of them, finite, >= 0, adding up to 1), else 1/k each. An
// error is kept in b.err.
func (b *pointBuilder) shares(name string, given []float64, axes ...string) []float64 {
	p := &b.p
	if b.err != nil {
		return nil
	}
	for _, ax := range axes {
		if v, ok := b.vals[ax]; ok {
			x := v.(float64)
			if !(x >= 0 && x <= 1) {
				b.err = specErr("sweep."+ax, "%v, want a share in [0, 1]", x)
				return nil
			}
			if p.K == 1 && x != 1 {
				b.err = specErr("sweep."+ax, "%v, but with k = 1 the only sub-bucket has share 1", x)
				return nil
			}
			out := make([]float64, p.K)
			out[0] = x
			for l := 1; l < p.K; l++ {
				out[l] = restShare(x, p.K)
			}
			return out
		}
	}
	if given == nil {
		return equalShares(p.K)
	}
	if len(given) != p.K {
		b.err = specErr(name, "%d shares for k = %d sub-buckets", len(given), p.K)
		return nil
	}
	sum := 0.0
	for l, x := range given {
		if !(x >= 0) || math.IsInf(x, 0) {
			b.err = specErr(name, "share %d is %v, want finite and >= 0", l, x)
			return nil
		}
		sum += x
	}
	if math.Abs(sum-1) > shareTolerance {
		b.err = specErr(name, "%v adds up to %s, want 1", given, decimalSum(given))
		return nil
	}
	return slices.Clone(given)
}

// equalShares is 1/k for each of k sub-buckets.
func equalShares(k int) []float64 {
	out := make([]float64, k)
	for l := range out {
		out[l] = 1 / float64(k)
	}
	return out
}

// setShares sets the rate, burst and traffic shares.
func (b *pointBuilder) setShares() error {
	s, p, vals := b.s, &b.p, b.vals
	p.RateShares = b.shares("rate_shares", s.RateShares, "q_rate", "q")
	p.BurstShares = b.shares("burst_shares", s.BurstShares, "q_burst", "q")
	switch p.Dispatch {
	case "weighted":
		given := s.TrafficShares
		if given == nil && vals["p"] == nil {
			given = p.RateShares
		}
		p.TrafficShares = b.shares("traffic_shares", given, "p")
	case "random":
		p.TrafficShares = slices.Clone(p.RateShares)
	case "rr":
		p.TrafficShares = equalShares(p.K)
	}
	if b.err != nil {
		return b.err
	}
	if p.Dispatch != "weighted" && (s.TrafficShares != nil || vals["p"] != nil) {
		f := "traffic_shares"
		if vals["p"] != nil {
			f = "sweep.p"
		}
		return specErr(f, "dispatch %q ignores traffic shares: use dispatch weighted", p.Dispatch)
	}
	return nil
}

// source names the field that set a sub-bucket parameter: the first axis
// present among axes, else list when given, else scalar.
func (b *pointBuilder) source(list string, given bool, scalar string, axes ...string) string {
	for _, a := range axes {
		if _, ok := b.vals[a]; ok {
			return "sweep." + a
		}
	}
	if given {
		return list
	}
	return b.field(scalar)
}

// checkSubs checks the sub-buckets the shares give.
func (b *pointBuilder) checkSubs() error {
	s, p := b.s, &b.p
	subs, e := p.Subs()
	if e != nil {
		return specErr("rate_shares", "%v", e)
	}
	one, _ := p.One()
	for l, sub := range subs {
		if sub.Rate.Sign() <= 0 {
			return specErr(b.source("rate_shares", s.RateShares != nil, "rate", "q_rate", "q"), "sub-bucket %d gets rate %v, want > 0 (every rate share must be > 0)", l+1, sub.Rate)
		}
		if sub.Burst.Cmp(exact.Int(1)) < 0 {
			return specErr(b.source("burst_shares", s.BurstShares != nil, "burst", "q_burst", "q", "burst", "k"), "sub-bucket %d gets burst %v·%v = %v tokens, want >= 1 (a job needs one whole token; shares are exact decimals, normalised to add up to 1: leave the list out for 1/k each)", l+1, p.Burst, p.BurstShares[l], sub.Burst)
		}
	}
	if e := buckets.ValidateSplit(one, subs, false); e != nil {
		return specErr("rate_shares", "%v", e)
	}
	return nil
}
