package drlstudy

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/budget"
	"github.com/ratesim/ratesim/internal/specfile"
)

// Params are the parameters of a comparison of designs as a user writes
// them: the flags of ratesim drl and the drl block of a sweep spec (see
// [Study]) fill this one struct, and [Params.Spec] is the one parser of
// both. Each YAML key is the flag's name in snake case (sync_period for
// --sync-period); durations take a unit (100ms, 2s) or are plain seconds,
// delays are fixed (2ms), uniform:1ms:3ms or lognormal:MEDIAN:SHAPE.
type Params struct {
	Designs          string   `yaml:"designs"`           // comma-separated designs, or all
	Rate             string   `yaml:"rate"`              // R per key, tokens/s, exact (decimal or p/q)
	Burst            string   `yaml:"burst"`             // B per key, tokens, exact
	Nodes            int      `yaml:"nodes"`             // N, >= 1
	Dispatch         string   `yaml:"dispatch"`          // rr, random or hash
	Police           bool     `yaml:"police"`            // reject instead of delaying
	Scale            []string `yaml:"scale,flow"`        // static: AT:N re-splits, in time order
	NodeLimiter      string   `yaml:"node_limiter"`      // static, store's local fallback: a profile 'NAME:key=value,...' per node, or "" for the sub-bucket (R/N, B/N)
	RTT              string   `yaml:"rtt"`               // store, lease: a delay
	Outage           []string `yaml:"outage,flow"`       // store: FROM:TO intervals
	OutageProcess    string   `yaml:"outage_process"`    // store: UP:DOWN mean durations, or ""
	StoreLimiter     string   `yaml:"store_limiter"`     // token, gcra or fixed-window
	StoreCache       bool     `yaml:"store_cache"`       // store: cache keys over limit
	Fail             string   `yaml:"fail"`              // open, closed or local
	SyncPeriod       string   `yaml:"sync_period"`       // sync: a duration, or inf
	BatchLimit       int      `yaml:"batch_limit"`       // sync: keys, 0: no limit
	SyncDelay        string   `yaml:"sync_delay"`        // sync, grd, fps: a delay
	Loss             float64  `yaml:"loss"`              // probability in [0, 1)
	Local            string   `yaml:"local"`             // copy or share
	Algorithm        string   `yaml:"algorithm"`         // sync: token-bucket (the default) or leaky-bucket, Gubernator's
	Peers            string   `yaml:"peers"`             // sync: the daemons' gRPC addresses, comma-separated ("" : cluster.Start's)
	LeaseSize        string   `yaml:"lease_size"`        // tokens >= 1; "" for B/N
	LeaseTTL         string   `yaml:"lease_ttl"`         // a duration, or inf
	EstimateInterval string   `yaml:"estimate_interval"` // grd, fps: a duration > 0
	Smoothing        float64  `yaml:"smoothing"`         // in (0, 1]
	Exchange         string   `yaml:"exchange"`          // coordinator, all or gossip
	Fanout           int      `yaml:"fanout"`            // gossip peers, >= 1
	Arrivals         string   `yaml:"arrivals"`          // poisson, periodic or an arrival spec
	// MaxMemory is the budget of the run's state, bytes (0: half of the
	// machine's memory); a run estimated above it is refused.
	MaxMemory  uint64  `yaml:"-"`
	Load       float64 `yaml:"load"`            // λ/R of generated arrivals, > 0
	Jobs       int64   `yaml:"jobs"`            // arrivals per design, >= 1; 0 with a trace: all of it (a spec's default with a trace)
	RateWindow string  `yaml:"rate_window"`     // the window of the time > R share, > 0
	Trace      *Trace  `yaml:"trace,omitempty"` // read arrivals from a trace instead
	// Seed is the root seed of a run's random streams; a sweep sets it
	// per replication (see [Study]).
	Seed uint64 `yaml:"-"`
	// TraceOptions, when not nil, are the options the trace is read with
	// in place of Trace's fields (the command line's, with its count
	// format flags); Trace.Path still names the file.
	TraceOptions *arrivals.TraceOptions `yaml:"-"`
}

// Trace is a trace file read for the arrivals (see arrivals.TraceOptions
// for the fields).
type Trace struct {
	Path       string `yaml:"path"`
	Format     string `yaml:"format,omitempty"`
	TimeCol    string `yaml:"time_col,omitempty"`
	TimeFormat string `yaml:"time_format,omitempty"`
	KeyCol     string `yaml:"key_col,omitempty"` // each key has its own limit (R, B)
	Sort       bool   `yaml:"sort,omitempty"`
	SkipBad    bool   `yaml:"skip_bad,omitempty"`
}

// DefaultParams returns the defaults of ratesim drl's flags, as [Table]
// declares them: every design, R = 10 tokens/s and B = 20 tokens per key
// over 4 nodes with round-robin dispatch, shaping, and 100000 Poisson
// arrivals at load 0.9; seed 1.
func DefaultParams() Params {
	var p Params
	Table.Defaults(&p)
	p.Seed = 1
	return p
}

// parseRat reads an exact parameter: a decimal or a fraction p/q.
func parseRat(param, s, unit string) (exact.Rat, error) {
	r, err := exact.ParseRat(s)
	if errors.Is(err, exact.ErrRange) {
		return r, bad(param, s, "a number whose exact value fits the model (a fraction with a denominator below 2^63, such as a decimal with at most 18 places), "+unit)
	}
	if err != nil {
		return r, bad(param, s, "a decimal such as 0.7 or a fraction such as 10/13, "+unit)
	}
	return r, nil
}

// DesignList returns the designs Params.Designs names, in its order. "all"
// is every design that applies to the parameters (AllLeftOut says which
// it leaves out, and why).
func (p *Params) DesignList() ([]string, error) {
	list := p.Designs
	if list == "all" {
		var names []string
		for _, n := range drl.Designs {
			if p.leftOut(n) == "" {
				names = append(names, n)
			}
		}
		return names, nil
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(drl.Designs, n) || slices.Contains(names, n) {
			return nil, bad("designs", p.Designs, fmt.Sprintf("a comma-separated list of distinct designs among %s (%q is not one, or is repeated)", strings.Join(drl.Designs, ", "), n))
		}
		names = append(names, n)
	}
	return names, nil
}

// leftOut returns why "all" leaves design n out, or "" if it runs it
// (Design.LeftOut).
func (p *Params) leftOut(n string) string {
	d, ok := drl.Lookup(n)
	if !ok {
		return ""
	}
	r, err1 := exact.ParseRat(p.Rate)
	b, err2 := exact.ParseRat(p.Burst)
	if err1 != nil || err2 != nil {
		return "" // the rate or burst is refused with its own error
	}
	return d.LeftOut(drl.Spec{Design: n, Bucket: buckets.Params{Rate: r, Burst: b}, Police: p.Police})
}

// AllLeftOut returns, when Params.Designs is "all", one sentence for each
// design it leaves out saying why (in Designs order); otherwise nil.
func (p *Params) AllLeftOut() []string {
	if p.Designs != "all" {
		return nil
	}
	var out []string
	for _, n := range drl.Designs {
		if w := p.leftOut(n); w != "" {
			out = append(out, w)
		}
	}
	return out
}

// Spec validates the parameters and returns the specification the designs
// share (Design unset) and the designs to run. Errors are *ParamError
// naming the parameter, or wrap ErrSpec.
func (p *Params) Spec() (drl.Spec, []string, error) {
	var s drl.Spec
	if err := p.parseLimit(&s); err != nil {
		return s, nil, err
	}
	names, err := p.DesignList()
	if err != nil {
		return s, nil, err
	}
	for _, parse := range []func(*drl.Spec) error{p.parseFleet, p.parseDesigns, p.parseRun} {
		if err := parse(&s); err != nil {
			return s, nil, err
		}
	}
	if err := p.checkDesigns(s, names); err != nil {
		return s, nil, err
	}
	return s, names, nil
}

// parseLimit reads the promise (R, B).
func (p *Params) parseLimit(s *drl.Spec) error {
	var err error
	if s.Bucket.Rate, err = parseRat("rate", p.Rate, "tokens/s"); err != nil {
		return err
	}
	if s.Bucket.Rate.Sign() > 0 && !s.Bucket.Rate.Num().IsInt64() {
		// The model keeps the gap 1/R between tokens exactly, as a
		// fraction whose denominator is below 2^63.
		return bad("rate", p.Rate, fmt.Sprintf("a rate <= %d tokens/s (the gap 1/rate between tokens is kept exactly, a fraction with a denominator below 2^63)", int64(math.MaxInt64)))
	}
	if s.Bucket.Burst, err = parseRat("burst", p.Burst, "tokens"); err != nil {
		return err
	}
	var pe *buckets.ParamError
	if err := s.Bucket.Validate(); errors.As(err, &pe) {
		return bad(pe.Name, pe.Value, pe.Want)
	}
	return nil
}

// parseFleet reads the nodes, police, seed and dispatch.
func (p *Params) parseFleet(s *drl.Spec) error {
	if p.Nodes < 1 {
		return bad("nodes", p.Nodes, "a number of nodes >= 1")
	}
	if need, most, ok := budget.Fits(p.memoryBudget(), float64(p.Nodes), bytesPerNode); !ok {
		return bad("nodes", p.Nodes, fmt.Sprintf("at most %d nodes: %s", most, budget.Explain(need, bytesPerNode, "node", p.memoryBudget())))
	}
	s.Nodes, s.Police, s.Seed, s.Dispatch = p.Nodes, p.Police, p.Seed, p.Dispatch
	switch p.Dispatch {
	case "rr", "random", "hash":
	default:
		return bad("dispatch", p.Dispatch, "rr, random or hash")
	}
	return nil
}

// parseDesigns has each design read its parameters (drl.ParseParams)
// from the table's values, then checks the fleets of the scale events
// against the memory budget.
func (p *Params) parseDesigns(s *drl.Spec) error {
	if err := drl.ParseParams(s, p.values); err != nil {
		return err
	}
	for i, e := range s.Static.Scale {
		if need, most, ok := budget.Fits(p.memoryBudget(), float64(e.Nodes), bytesPerNode); !ok {
			return bad("scale", p.Scale[i], fmt.Sprintf("AT:N with N <= %d nodes: %s", most, budget.Explain(need, bytesPerNode, "node", p.memoryBudget())))
		}
	}
	return nil
}

// parseRun reads the rate window and the arrivals' size and load.
func (p *Params) parseRun(s *drl.Spec) error {
	var err error
	if s.RateWindow, err = drl.ParseDuration(p.RateWindow); err != nil || s.RateWindow == 0 || s.RateWindow == engine.Forever {
		return bad("rate_window", p.RateWindow, drl.WantDuration(err, "a duration > 0 (1s, 500ms)"))
	}
	if p.Trace == nil {
		if p.Jobs < 1 {
			return bad("jobs", p.Jobs, "a number of arrivals >= 1")
		}
		if l, ok := experiments.DefaultLambda(p.Load, s.Bucket.Rate); !ok && !strings.Contains(p.Arrivals, "rate=") {
			return bad("load", p.Load, fmt.Sprintf("a finite load > 0 whose arrival rate load·rate has a finite mean gap, got λ = %v jobs/s", l))
		} else if ok && !strings.Contains(p.Arrivals, "rate=") {
			if err := spanFits(p, l); err != nil {
				return err
			}
			// An outage process alternates UP and DOWN periods over the
			// run's expected span jobs/λ: at most MaxOutageCycles.
			if cycle := (s.Store.OutageUp + s.Store.OutageDown).Seconds(); cycle > 0 && float64(p.Jobs)/l/cycle > MaxOutageCycles {
				span := float64(p.Jobs) / l
				return bad("outage_process", p.OutageProcess, fmt.Sprintf("mean durations with UP+DOWN >= %.4g s: the run's %d jobs span about %.4g s, more than %g outage cycles of %v s",
					ceilDigits(span/MaxOutageCycles), p.Jobs, span, float64(MaxOutageCycles), cycle))
			}
		}
	} else if p.Jobs < 0 {
		return bad("jobs", p.Jobs, "a number of arrivals >= 1, or 0 for the whole trace")
	}
	return nil
}

// checkDesigns checks s for each design of names: its checks in the
// parameters' words (Design.CheckParams), then Spec.Validate.
func (p *Params) checkDesigns(s drl.Spec, names []string) error {
	for _, n := range names {
		d, _ := drl.Lookup(n)
		if err := d.CheckParams(s, p.values); err != nil {
			return err
		}
	}
	for _, n := range names {
		t := s
		t.Design = n
		if err := t.Validate(); err != nil {
			if n != drl.Reference && strings.Contains(err.Error(), "per node") {
				// A scale event to more nodes than the burst has tokens
				// is that event's fault when the starting fleet fits.
				if s.Bucket.Burst.Cmp(exact.Int(int64(p.Nodes))) >= 0 {
					for i, e := range s.Static.Scale {
						if s.Bucket.Burst.Cmp(exact.Int(int64(e.Nodes))) < 0 {
							most := s.Bucket.Burst.Floor()
							return bad("scale", p.Scale[i], fmt.Sprintf("AT:N with N <= %v nodes: the burst %s over N nodes must leave at least one token per node", most, p.Burst))
						}
					}
				}
				return bad("burst", p.Burst, fmt.Sprintf("a burst of at least one token per node: B/N >= 1 for every N (%s)", strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+drl.ErrSpec.Error())))
			}
			return fmt.Errorf("invalid parameters: %w", err)
		}
	}
	return nil
}

// values is the value of the parameter of YAML key key, as drl.Values
// gives it; nil for a key that is not a parameter.
func (p *Params) values(key string) any {
	v, ok := specfile.YAMLField(p, key)
	if !ok {
		return nil
	}
	return v.Interface()
}

// traceOptions returns the options the trace is read with.
func (p *Params) traceOptions() arrivals.TraceOptions {
	if p.TraceOptions != nil {
		return *p.TraceOptions
	}
	t := p.Trace
	return arrivals.TraceOptions{Format: t.Format, TimeCol: t.TimeCol, TimeFormat: t.TimeFormat, KeyCol: t.KeyCol, Sort: t.Sort, SkipBad: t.SkipBad}
}

// MaxSpan is the longest expected span of a run's generated arrivals,
// jobs/λ: a quarter of engine.Time's range (2^61 ns, about 73 years), so
// that the last arrival (a sum of jobs gaps, within a few standard
// deviations of its mean) and the delays after it stay within the clock.
const MaxSpan = engine.Time(1 << 61)

// spanFits refuses arrivals at λ = load·rate whose expected span
// jobs/λ is beyond MaxSpan, naming the parameter further below its
// default (rate or load) and the least value of it that fits.
func spanFits(p *Params, l float64) error {
	span := float64(p.Jobs) / l // seconds
	if span <= MaxSpan.Seconds() {
		return nil
	}
	def := DefaultParams()
	defRate, _ := exact.ParseRat(def.Rate)
	rate := l / p.Load
	why := fmt.Sprintf("%d jobs at λ = load·rate = %.4g jobs/s span about %.4g s, beyond %v s (a quarter of the clock's range, about 73 years): fewer jobs or", p.Jobs, l, span, MaxSpan)
	// Blame the parameter furthest from its default, by factor.
	if more := float64(p.Jobs) / float64(def.Jobs); more > def.Load/p.Load && more > defRate.Float64()/rate {
		return bad("jobs", p.Jobs, fmt.Sprintf("at most %d jobs at λ = load·rate = %.4g jobs/s (they span about %.4g s, beyond %v s, a quarter of the clock's range)", int64(MaxSpan.Seconds()*l), l, span, MaxSpan))
	}
	if p.Load/def.Load < rate/defRate.Float64() {
		return bad("load", p.Load, fmt.Sprintf("%s a load >= %.4g", why, ceilDigits(float64(p.Jobs)/(MaxSpan.Seconds()*rate))))
	}
	return bad("rate", p.Rate, fmt.Sprintf("%s a rate >= %.4g tokens/s", why, ceilDigits(float64(p.Jobs)/(MaxSpan.Seconds()*p.Load))))
}

// ceilDigits rounds x > 0 up to 4 significant digits, so that a least
// value printed is one that fits.
func ceilDigits(x float64) float64 {
	e := math.Pow(10, math.Floor(math.Log10(x))-3)
	return math.Ceil(x/e) * e
}

// MaxOutageCycles bounds the UP/DOWN cycles of an outage process over a
// run's expected span: 10^6.
const MaxOutageCycles = 1e6

// bytesPerNode is the state a run keeps per node (its sub-bucket, its
// counters, its share of a design's tables), measured as the growth of
// ratesim drl's peak resident memory from 10^5 to 10^6 nodes (44 B),
// rounded up with room for the designs that keep more.
const bytesPerNode = 128

// memoryBudget is MaxMemory, or half of the machine's memory.
func (p *Params) memoryBudget() uint64 {
	if p.MaxMemory > 0 {
		return p.MaxMemory
	}
	return budget.Default()
}

// bad is the error of parameter param with value value: want says what
// would fit.
func bad(param string, value any, want string) error {
	return &drl.ParamError{Param: param, Value: value, Want: want}
}
