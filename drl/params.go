package drl

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/profiles"
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
	Algorithm        string   `yaml:"algorithm"`         // sync: token-bucket, leaky-bucket (Gubernator's) or ideal
	Peers            string   `yaml:"peers"`             // sync: the daemons' gRPC addresses, comma-separated ("" : cluster.Start's)
	LeaseSize        string   `yaml:"lease_size"`        // tokens >= 1; "" for B/N
	LeaseTTL         string   `yaml:"lease_ttl"`         // a duration, or inf
	EstimateInterval string   `yaml:"estimate_interval"` // grd, fps: a duration > 0
	Smoothing        float64  `yaml:"smoothing"`         // in (0, 1]
	Exchange         string   `yaml:"exchange"`          // coordinator, all or gossip
	Fanout           int      `yaml:"fanout"`            // gossip peers, >= 1
	Arrivals         string   `yaml:"arrivals"`          // poisson, periodic or an arrival spec
	Load             float64  `yaml:"load"`              // λ/R of generated arrivals, > 0
	Jobs             int64    `yaml:"jobs"`              // arrivals per design, >= 1; 0 with a trace: all of it (a spec's default with a trace)
	RateWindow       string   `yaml:"rate_window"`       // the window of the time > R share, > 0
	Trace            *Trace   `yaml:"trace,omitempty"`   // read arrivals from a trace instead
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

// DefaultParams returns the defaults of ratesim drl's flags: every
// design, R = 10 tokens/s and B = 20 tokens per key over 4 nodes with
// round-robin dispatch, shaping, and 100000 Poisson arrivals at load 0.9.
func DefaultParams() Params {
	return Params{Designs: "all", Rate: "10", Burst: "20", Nodes: 4, Dispatch: "rr", RTT: "1ms", StoreLimiter: "token",
		Fail: "open", SyncPeriod: "100ms", BatchLimit: 1000, SyncDelay: "0", Local: "copy", Algorithm: "ideal", LeaseTTL: "1s",
		EstimateInterval: "100ms", Smoothing: 0.5, Exchange: "coordinator", Fanout: 2, Arrivals: "poisson",
		Load: 0.9, Jobs: 100_000, RateWindow: "10s", Seed: 1}
}

// ParamError is an invalid parameter: its name (the YAML key, the flag
// in snake case), the value given and what would fit.
type ParamError struct {
	Param string
	Value any
	Want  string
}

// delayWant is what a delay parameter wants, with why ParseDelay refused
// the value (a trace file's line, say).
func delayWant(err error) string {
	why := strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+ErrSpec.Error())
	return "a delay: 2ms, uniform:1ms:3ms, lognormal:2ms:0.5 or trace:FILE:COL (" + why + ")"
}

// durationWant is want, followed by what the duration grammar said of the
// text when it is not a duration that fits ("1.5ns": finer than 1 ns, 1ns
// or 2ns fit).
func durationWant(err error, want string) string {
	var de *engine.DurationError
	if errors.As(err, &de) {
		return want + " (" + de.Why + ")"
	}
	return want
}

func (e *ParamError) Error() string {
	return fmt.Sprintf("drl: %s %v: want %s", e.Param, e.Value, e.Want)
}

// Message is the error without the package and parameter: "VALUE: want
// WHAT", for a caller that names the parameter its own way (a flag, a
// file's line and key).
func (e *ParamError) Message() string { return fmt.Sprintf("%v: want %s", e.Value, e.Want) }

func (e *ParamError) Unwrap() error { return ErrSpec }

func bad(param string, value any, want string) error {
	return &ParamError{Param: param, Value: value, Want: want}
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

// DesignList returns the designs Params.Designs names, in its order.
func (p *Params) DesignList() ([]string, error) {
	list := p.Designs
	if list == "all" {
		list = strings.Join(Designs, ",")
	}
	var names []string
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if !slices.Contains(Designs, n) || slices.Contains(names, n) {
			return nil, bad("designs", p.Designs, fmt.Sprintf("a comma-separated list of distinct designs among %s (%q is not one, or is repeated)", strings.Join(Designs, ", "), n))
		}
		names = append(names, n)
	}
	return names, nil
}

// Spec validates the parameters and returns the specification the designs
// share (Design unset) and the designs to run. Errors are *ParamError
// naming the parameter, or wrap ErrSpec.
func (p *Params) Spec() (Spec, []string, error) {
	var s Spec
	var err error
	if s.Bucket.Rate, err = parseRat("rate", p.Rate, "tokens/s"); err != nil {
		return s, nil, err
	}
	if s.Bucket.Burst, err = parseRat("burst", p.Burst, "tokens"); err != nil {
		return s, nil, err
	}
	var pe *buckets.ParamError
	if err := s.Bucket.Validate(); errors.As(err, &pe) {
		return s, nil, bad(pe.Name, pe.Value, pe.Want)
	}
	names, err := p.DesignList()
	if err != nil {
		return s, nil, err
	}
	if p.Nodes < 1 {
		return s, nil, bad("nodes", p.Nodes, "a number of nodes >= 1")
	}
	s.Nodes, s.Police, s.Seed, s.Dispatch = p.Nodes, p.Police, p.Seed, p.Dispatch
	switch p.Dispatch {
	case "rr", "random", "hash":
	default:
		return s, nil, bad("dispatch", p.Dispatch, "rr, random or hash")
	}
	for _, e := range p.Scale {
		a, n, ok := strings.Cut(e, ":")
		t, err := ParseDuration(a)
		k, err2 := strconv.Atoi(n)
		if !ok || err != nil || err2 != nil || k < 1 || t == engine.Forever {
			return s, nil, bad("scale", e, durationWant(err, "AT:N, an instant since the first arrival and a number of nodes >= 1, e.g. 30s:8"))
		}
		if len(s.Scale) > 0 && t < s.Scale[len(s.Scale)-1].At {
			return s, nil, bad("scale", e, "scale events in time order")
		}
		s.Scale = append(s.Scale, ScaleEvent{At: t, Nodes: k})
	}
	if s.RTT, err = ParseDelay(p.RTT); err != nil {
		return s, nil, bad("rtt", p.RTT, delayWant(err))
	}
	for _, o := range p.Outage {
		iv, err := ParseInterval(o)
		if err != nil {
			return s, nil, bad("outage", o, "FROM:TO, two instants since the first arrival with FROM < TO, e.g. 10s:20s")
		}
		s.Outages = append(s.Outages, iv)
	}
	if p.OutageProcess != "" {
		up, down, ok := strings.Cut(p.OutageProcess, ":")
		u, err1 := ParseDuration(up)
		d, err2 := ParseDuration(down)
		if !ok || err1 != nil || err2 != nil || u <= 0 || d <= 0 || u == engine.Forever || d == engine.Forever {
			return s, nil, bad("outage_process", p.OutageProcess, "UP:DOWN, two mean durations > 0, e.g. 10m:30s")
		}
		s.OutageUp, s.OutageDown = u, d
	}
	s.StoreCache = p.StoreCache
	if p.NodeLimiter != "" {
		prof, err := profiles.Parse(p.NodeLimiter)
		if err != nil {
			return s, nil, bad("node_limiter", p.NodeLimiter, "a library profile NAME:key=value,... as in ratesim limiters --profile ("+strings.TrimPrefix(err.Error(), "profiles: ")+")")
		}
		s.NodeLimiter, s.NodeLimiterName = prof.New, prof.String()
	}
	if s.StoreLimiter, err = ParseStoreLimiter(p.StoreLimiter); err != nil {
		prof, perr := profiles.Parse(p.StoreLimiter)
		if perr != nil {
			return s, nil, bad("store_limiter", p.StoreLimiter, "token, gcra, fixed-window, or a library profile NAME:key=value,... as in ratesim limiters --profile ("+strings.TrimPrefix(perr.Error(), "profiles: ")+")")
		}
		s.StoreLimiter, s.StoreProfile, s.StoreProfileName = StoreLibrary, prof.New, prof.String()
	}
	if s.Fail, err = ParseFail(p.Fail); err != nil {
		return s, nil, bad("fail", p.Fail, "open, closed or local")
	}
	if s.SyncPeriod, err = ParseDuration(p.SyncPeriod); err != nil {
		return s, nil, bad("sync_period", p.SyncPeriod, durationWant(err, "a duration >= 0 (100ms, 2s, 0.5) or inf"))
	}
	if p.BatchLimit < 0 {
		return s, nil, bad("batch_limit", p.BatchLimit, "a number of keys >= 1, or 0 for no limit")
	}
	s.BatchLimit = p.BatchLimit
	if s.SyncDelay, err = ParseDelay(p.SyncDelay); err != nil {
		return s, nil, bad("sync_delay", p.SyncDelay, delayWant(err))
	}
	if !(p.Loss >= 0 && p.Loss < 1) {
		return s, nil, bad("loss", p.Loss, "a probability in [0, 1)")
	}
	s.SyncLoss = p.Loss
	if s.Local, err = ParseLocal(p.Local); err != nil {
		return s, nil, bad("local", p.Local, "copy or share")
	}
	if s.Algorithm, err = ParseSyncAlgorithm(p.Algorithm); err != nil {
		return s, nil, bad("algorithm", p.Algorithm, "token-bucket, leaky-bucket (Gubernator v2.13.0's GLOBAL behaviour) or ideal")
	}
	if s.Algorithm != SyncIdeal && slices.Contains(names, "sync") {
		if !p.Police {
			return s, nil, bad("police", p.Police, "true with --algorithm "+p.Algorithm+": Gubernator answers UNDER_LIMIT or OVER_LIMIT, it never delays a job (algorithm ideal shapes)")
		}
		if s.Local != LocalCopy {
			return s, nil, bad("local", p.Local, "copy with --algorithm "+p.Algorithm+": every Gubernator daemon keeps its own copy of the whole limit (share is the ideal design's)")
		}
		if _, _, _, err := GubernatorLimits(s.Bucket.Rate, s.Bucket.Burst); err != nil {
			if !s.Bucket.Burst.IsInt() {
				return s, nil, bad("burst", p.Burst, "a whole number of tokens with --algorithm "+p.Algorithm+" (Gubernator's Limit and Burst are integers)")
			}
			return s, nil, bad("rate", p.Rate, fmt.Sprintf("a rate making burst/rate = %v/rate s a whole number of milliseconds with --algorithm %s (Gubernator's Duration is integer ms)", s.Bucket.Burst, p.Algorithm))
		}
	}
	if p.Peers != "" {
		s.Peers = strings.Split(p.Peers, ",")
		if len(s.Peers) != p.Nodes || slices.Contains(s.Peers, "") {
			return s, nil, bad("peers", p.Peers, fmt.Sprintf("%d gRPC addresses (one per node), comma-separated, e.g. %s", p.Nodes, strings.Join(DefaultGubernatorPeers(p.Nodes), ",")))
		}
	}
	if p.LeaseSize != "" {
		n, err := strconv.ParseInt(p.LeaseSize, 10, 64)
		if err != nil || n < 1 {
			return s, nil, bad("lease_size", p.LeaseSize, "a number of tokens >= 1")
		}
		s.LeaseSize = n
	}
	if s.LeaseTTL, err = ParseDuration(p.LeaseTTL); err != nil {
		return s, nil, bad("lease_ttl", p.LeaseTTL, durationWant(err, "a duration >= 0 (1s, 500ms) or inf"))
	}
	if s.EstimateInterval, err = ParseDuration(p.EstimateInterval); err != nil || s.EstimateInterval == 0 || s.EstimateInterval == engine.Forever {
		return s, nil, bad("estimate_interval", p.EstimateInterval, durationWant(err, "a duration > 0 (100ms, 1s)"))
	}
	if !(p.Smoothing > 0 && p.Smoothing <= 1) {
		return s, nil, bad("smoothing", p.Smoothing, "a weight in (0, 1]")
	}
	s.Smoothing = p.Smoothing
	if s.Exchange, err = ParseExchange(p.Exchange); err != nil {
		return s, nil, bad("exchange", p.Exchange, "coordinator, all or gossip")
	}
	if p.Fanout < 1 {
		return s, nil, bad("fanout", p.Fanout, "a number of peers >= 1")
	}
	s.Fanout = p.Fanout
	if s.RateWindow, err = ParseDuration(p.RateWindow); err != nil || s.RateWindow == 0 || s.RateWindow == engine.Forever {
		return s, nil, bad("rate_window", p.RateWindow, durationWant(err, "a duration > 0 (1s, 500ms)"))
	}
	if p.Trace == nil {
		if p.Jobs < 1 {
			return s, nil, bad("jobs", p.Jobs, "a number of arrivals >= 1")
		}
		if l, ok := experiments.DefaultLambda(p.Load, s.Bucket.Rate); !ok && !strings.Contains(p.Arrivals, "rate=") {
			return s, nil, bad("load", p.Load, fmt.Sprintf("a finite load > 0 whose arrival rate load·rate has a finite mean gap, got λ = %v jobs/s", l))
		}
	} else if p.Jobs < 0 {
		return s, nil, bad("jobs", p.Jobs, "a number of arrivals >= 1, or 0 for the whole trace")
	}
	if slices.Contains(names, "store") && !s.Police {
		// The store's policing options, named as parameters (Validate
		// refuses them too, in the Spec's words).
		if s.StoreLimiter == StoreGCRA || s.StoreLimiter == StoreFixedWindow {
			return s, nil, bad("store_limiter", p.StoreLimiter, "token when shaping: gcra and fixed-window admit or refuse (add police)")
		}
		if s.StoreCache {
			return s, nil, bad("store_cache", p.StoreCache, "false when shaping: the cache refuses jobs, which only policing does (add police)")
		}
	}
	for _, n := range names {
		t := s
		t.Design = n
		if err := t.Validate(); err != nil {
			if n != "one" && strings.Contains(err.Error(), "per node") {
				return s, nil, bad("burst", p.Burst, fmt.Sprintf("a burst of at least one token per node: B/N >= 1 for every N (%s)", strings.TrimSuffix(strings.TrimPrefix(err.Error(), "drl: "), ": "+ErrSpec.Error())))
			}
			return s, nil, fmt.Errorf("invalid parameters: %w", err)
		}
	}
	return s, names, nil
}

// traceOptions returns the options the trace is read with.
func (p *Params) traceOptions() arrivals.TraceOptions {
	if p.TraceOptions != nil {
		return *p.TraceOptions
	}
	t := p.Trace
	return arrivals.TraceOptions{Format: t.Format, TimeCol: t.TimeCol, TimeFormat: t.TimeFormat, KeyCol: t.KeyCol, Sort: t.Sort, SkipBad: t.SkipBad}
}

// OpenArrivals opens the arrivals of a run with root seed p.Seed afresh
// (every design sees the same jobs), through experiments.BuildArrivals:
// the trace, or the arrival spec whose processes without rate= take
// λ = Load·R. It returns them with a description of the input; the
// caller closes them. Errors: those of experiments.BuildArrivals, and a
// *ParamError naming arrivals for an invalid arrival spec.
func (p *Params) OpenArrivals(ctx context.Context, rate exact.Rat) (*experiments.Arrivals, string, error) {
	if p.Trace != nil {
		opt := p.traceOptions()
		a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Trace: p.Trace.Path, TraceOptions: opt}, p.Seed)
		if err != nil {
			return nil, "", err
		}
		in := "trace " + p.Trace.Path
		if note := experiments.CountsNote(a.Trace, opt.Spread); note != "" {
			in += " (" + note + ")"
		}
		if opt.KeyCol != "" {
			in += ", keyed by column " + opt.KeyCol
		}
		return a, in, nil
	}
	a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Spec: p.Arrivals, Load: p.Load, Rate: rate}, p.Seed)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", p.Arrivals))
		return nil, "", bad("arrivals", p.Arrivals, "a valid arrival spec (see 'ratesim run --help'): "+msg)
	}
	switch p.Arrivals {
	case "poisson", "periodic":
		return a, fmt.Sprintf("%s arrivals, load %v (λ = %.6g jobs/s)", p.Arrivals, p.Load, p.Load*rate.Float64()), nil
	}
	g := a.Generated
	return a, fmt.Sprintf("arrivals %s (mean %.6g jobs/s)", g.Spec, g.MeanRate), nil
}

// Comparison is what [Params.Run] returns: each design's summary, in
// the order of Params.Designs, with the results kept when asked.
type Comparison struct {
	Summaries []Summary
	PerNode   [][]Count // each design's decisions node by node, in the order of Summaries
	Results   []*Result // every job of each design, when Run kept them; else nil
	Input     string    // the input's description
	Skipped   int       // trace lines skipped
}

// Run runs every design of p on the same arrivals and summarises each;
// keep keeps every job of each design (for figures). When "one" is among
// the designs, each summary counts the jobs admitted over it and rejected
// under it (Summary.OverOne, UnderOne).
func (p *Params) Run(ctx context.Context, keep bool) (*Comparison, error) {
	spec, names, err := p.Spec()
	if err != nil {
		return nil, err
	}
	max := p.Jobs
	out := &Comparison{}
	var decided []*Result // only their Admits: one bit per job
	for _, n := range names {
		a, in, err := p.OpenArrivals(ctx, spec.Bucket.Rate)
		if err != nil {
			return nil, err
		}
		out.Input = in
		s := spec
		s.Design = n
		s.KeepDepartures = keep // the admitted-rate figure bins every departure
		res, err := Run(ctx, s, a.Process, max)
		if a.Trace != nil {
			out.Skipped = a.Trace.Skipped()
		}
		a.Close()
		if err != nil {
			return nil, fmt.Errorf("design %s: %w", n, err)
		}
		sum, err := Summarize(res, spec.Bucket, nil, spec.RateWindow)
		if err != nil {
			return nil, err
		}
		out.Summaries = append(out.Summaries, sum)
		out.PerNode = append(out.PerNode, slices.Clone(res.PerNode))
		if keep {
			out.Results = append(out.Results, res)
		}
		decided = append(decided, &Result{Admits: res.Admits})
	}
	if i := slices.Index(names, "one"); i >= 0 {
		for j := range out.Summaries {
			out.Summaries[j].OverOne, out.Summaries[j].UnderOne = Compare(decided[j], decided[i])
		}
	}
	return out, nil
}
