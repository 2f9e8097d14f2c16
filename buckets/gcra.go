package buckets

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/engine"
)

// GCRAParams describes the generic cell rate algorithm, the leaky bucket
// as a meter.
type GCRAParams struct {
	Interval  float64 // T: emission interval, seconds per job (1/r); finite and > 0
	Tolerance float64 // τ: how early a job may come, seconds; finite and >= 0
}

// MatchGCRA returns the GCRA that decides as the policing token bucket p
// does: T = 1/r and τ = (b - 1)/r.
func MatchGCRA(p Params) GCRAParams {
	return GCRAParams{Interval: 1 / p.Rate, Tolerance: (p.Burst - 1) / p.Rate}
}

// Validate returns a *ParamError naming the first invalid field, or nil.
//
// Special cases:
//
//	Interval = 0, < 0, NaN or ±Inf   error
//	Tolerance < 0, NaN or ±Inf       error
func (p GCRAParams) Validate() error {
	if !(p.Interval > 0) || math.IsInf(p.Interval, 0) {
		return &ParamError{Name: "GCRA interval", Value: p.Interval, Want: "finite and > 0 s"}
	}
	if !(p.Tolerance >= 0) || math.IsInf(p.Tolerance, 0) {
		return &ParamError{Name: "GCRA tolerance", Value: p.Tolerance, Want: "finite and >= 0 s"}
	}
	return nil
}

// Meter is the leaky bucket as a meter: the generic cell rate algorithm
// GCRA(T, τ) in its virtual scheduling form (ITU-T Recommendation I.371,
// Annex A; ATM Forum Traffic Management Specification 4.0, af-tm-0056.000,
// 1996). It keeps the theoretical arrival time TAT of the next job; a job
// arriving at t conforms unless it is more than τ early:
//
//	t < TAT - τ   reject, TAT unchanged
//	otherwise     admit,  TAT = max(t, TAT) + T
//
// TAT starts at 0, so the meter starts as a full token bucket. GCRA(1/r,
// (b - 1)/r) makes the same decisions as a policing token bucket (r, b) on
// every arrival sequence (the tests check it exactly): with TAT - t the
// bucket's unfinished work U(t), a job conforms iff U(t) <= (b - 1)/r, iff
// the bucket holds at least b - r·U(t) >= 1 token.
//
// [GCRA] is the float64 form in seconds, where TAT accrues one rounding per
// admitted job in a busy period; a Meter[Tick] from [NewExactMeter] is exact.
// The zero value is not usable; create one with [NewGCRA] or
// [NewExactMeter].
type Meter[T Number] struct {
	p    GCRAParams
	inc  T // T, seconds or ticks
	tau  T // τ, seconds or ticks
	tat  T // theoretical arrival time of the next job
	last T // the last admitted arrival
}

// GCRA is the generic cell rate algorithm in float64 seconds.
type GCRA = Meter[engine.Time]

// NewGCRA returns a GCRA with parameters p, or a *ParamError.
func NewGCRA(p GCRAParams) (*GCRA, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &GCRA{p: p, inc: engine.Time(p.Interval), tau: engine.Time(p.Tolerance)}, nil
}

// NewExactMeter returns an exact GCRA with an emission interval of
// interval ticks (>= 1) and a tolerance of tolerance ticks (>= 0). It
// decides as a policing Bucket[Tick] with ExactParams{Quantum: Q, Period:
// P, Burst: B} when interval = Q·P and tolerance = (B - Q)·P.
func NewExactMeter(interval, tolerance Tick) (*Meter[Tick], error) {
	if interval < 1 {
		return nil, &ParamError{Name: "GCRA interval", Value: float64(interval), Want: ">= 1 tick"}
	}
	if tolerance < 0 {
		return nil, &ParamError{Name: "GCRA tolerance", Value: float64(tolerance), Want: ">= 0 ticks"}
	}
	p := GCRAParams{Interval: float64(interval), Tolerance: float64(tolerance)}
	return &Meter[Tick]{p: p, inc: interval, tau: tolerance}, nil
}

// Params returns the meter's parameters (for an exact meter, in ticks).
func (m *Meter[T]) Params() GCRAParams { return m.p }

// TAT returns the theoretical arrival time of the next job.
func (m *Meter[T]) TAT() T { return m.tat }

// Offer presents a job arriving at instant t (>= 0) and decides it as
// GCRA(T, τ) does. A rejected job leaves the meter unchanged.
//
// Panics if t is NaN or earlier than the last admitted job (or than 0).
func (m *Meter[T]) Offer(t T) Decision[T] {
	if !(t >= m.last) {
		panic(fmt.Sprintf("buckets: GCRA Offer(%v) after instant %v", t, m.last))
	}
	if m.tat > t+m.tau {
		return Decision[T]{}
	}
	m.tat = max(m.tat, t) + m.inc
	m.last = t
	return Decision[T]{Admitted: true}
}

// Promise returns 1 + (τ + d)/T, the b + r·d of the matching token bucket:
// a closed interval of length d holds at most that many conforming jobs.
func (m *Meter[T]) Promise(d T) float64 {
	return 1 + (m.p.Tolerance+float64(d))/m.p.Interval
}
