package limiterstudy

import (
	"errors"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/profiles"
)

// Downstream is what one limiter's passing jobs met at a rate-latency
// server β(R, T) (a fixed latency T, then a FIFO server of R jobs/s; see
// netcalc.RateLatency.Serve), against the bounds network calculus derives
// from the arrival curve α the limiter promises:
//
//	delay   <= h(α, β)           (T + b/R for a token bucket (r, b), r <= R)
//	backlog <= ceil(v(α, β))     (b + r·T for a token bucket)
//
// The bounds hold for every stream that conforms to α; Conforms says
// whether the limiter's stream did, and Violation gives the first window
// where it did not. Exact values are given as fractions ("13/3") beside
// the seconds rounded once.
type Downstream struct {
	ArrivalCurve    string            `json:"arrival_curve"`               // α: "γ(r=5/3, b=100)" or "stair(L=100, W=60)"
	ArrivalCurveDNC string            `json:"arrival_curve_dnc,omitempty"` // α in DiscoDNC's format, for token buckets
	ServiceCurve    string            `json:"service_curve"`               // β: "β(R=3, T=3)"
	ServiceCurveDNC string            `json:"service_curve_dnc,omitempty"`
	Conforms        bool              `json:"conforms"` // the passing jobs keep α (token buckets: with 1 ns of slack, see netcalc.Conforms)
	Violation       *ConformViolation `json:"violation,omitempty"`

	Jobs              int     `json:"jobs"`
	MaxDelay          float64 `json:"max_delay_s"` // largest departure minus arrival at the server
	MaxDelayExact     string  `json:"max_delay_s_exact"`
	DelayBound        float64 `json:"delay_bound_s"` // h(α, β)
	DelayBoundExact   string  `json:"delay_bound_s_exact"`
	MaxBacklog        int     `json:"max_backlog_jobs"`    // the job in service included
	BacklogBound      int64   `json:"backlog_bound_jobs"`  // ceil(v(α, β)), whole jobs
	BacklogBoundExact string  `json:"backlog_bound_exact"` // v(α, β), jobs
}

// nsSlack returns tb with rate·1 ns more burst: releases are exact instants
// rounded up to the nanosecond.
func nsSlack(tb netcalc.TokenBucket) netcalc.TokenBucket {
	slack, err := tb.Rate.Quo(exact.Int(1e9))
	if err == nil {
		if b, err := tb.Burst.Add(slack); err == nil {
			return netcalc.TokenBucket{Rate: tb.Rate, Burst: b}
		}
	}
	return tb
}

// ConformViolation is the first window [FromS, ToS] of a stream holding
// more jobs than its arrival curve allows.
type ConformViolation struct {
	From  float64 `json:"from_s"`
	To    float64 `json:"to_s"`
	Jobs  int     `json:"jobs"`
	Bound float64 `json:"bound_jobs"` // α at the window's length
}

// PromiseCurve returns the arrival curve that limiter name (a limiter of
// the family or a profile's name) is held to downstream: γ(R, L) for the
// token buckets, the GCRA, the throttle and every profile (the promise
// b + r·d a user configures, whatever the library's own convention),
// γ(R, 1) for the leaky bucket, and L jobs per W for the windows.
func (s LimitersSpec) PromiseCurve(name string) netcalc.Arrival {
	if d := familyDef(name); d != nil {
		return d.promiseCurve(s.Params)
	}
	return netcalc.TokenBucket{Rate: s.Rate, Burst: exact.Int(s.Limit)}
}

// downstream serves the released instants of entry e (as the limiter's
// loop appended them) by spec.Service and compares with the bounds.
func downstream(spec LimitersSpec, e entry, released []engine.Time) (*Downstream, error) {
	srv := *spec.Service
	alpha := spec.PromiseCurve(e.name)
	if e.prof != nil {
		if a, ok := profiles.ArrivalCurve(*e.prof); ok {
			alpha = a // the library's own curve
		}
	}
	ts := slices.Clone(released)
	slices.Sort(ts) // shapers release in order; a profile's sleeps need not
	res, err := srv.Serve(ts)
	if err != nil {
		return nil, err
	}
	h, err := netcalc.Delay(alpha, srv)
	if err != nil {
		return nil, err
	}
	v, err := netcalc.Backlog(alpha, srv)
	if err != nil {
		return nil, err
	}
	vc := v.Ceil()
	if !vc.IsInt64() {
		return nil, errors.New("backlog bound beyond 2^63 jobs")
	}
	d := &Downstream{ArrivalCurve: alpha.String(), ServiceCurve: srv.String(), Jobs: len(ts),
		MaxDelay: res.MaxDelay.Float64(), MaxDelayExact: res.MaxDelay.String(),
		DelayBound: h.Float64(), DelayBoundExact: h.String(),
		MaxBacklog: res.MaxBacklog, BacklogBound: vc.Int64(), BacklogBoundExact: v.String()}
	if s, err := netcalc.FormatDNCArrival(alpha); err == nil {
		d.ArrivalCurveDNC = s
	}
	if s, err := netcalc.FormatDNCService(srv); err == nil {
		d.ServiceCurveDNC = s
	}
	check := alpha
	switch a := alpha.(type) {
	case netcalc.TokenBucket:
		check = nsSlack(a)
	case netcalc.Concave:
		c := make(netcalc.Concave, len(a))
		for i, tb := range a {
			c[i] = nsSlack(tb)
		}
		check = c
	}
	viol, ok, err := netcalc.Conforms(ts, check)
	if err != nil {
		return nil, err
	}
	d.Conforms = ok
	if !ok {
		d.Violation = &ConformViolation{From: ts[viol.First].Seconds(), To: ts[viol.Last].Seconds(), Jobs: viol.Jobs, Bound: viol.Bound.Float64()}
	}
	return d, nil
}
