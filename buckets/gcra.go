package buckets

import (
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// GCRAParams describes the generic cell rate algorithm, the leaky bucket
// as a meter.
type GCRAParams struct {
	Interval  exact.Rat // T: emission interval, seconds per job (1/r); > 0
	Tolerance exact.Rat // τ: how early a job may come, seconds; >= 0
}

// MatchGCRA returns the GCRA that decides as the policing token bucket p
// does: T = 1/r and τ = (b - 1)/r.
func MatchGCRA(p Params) GCRAParams {
	inv := new(big.Rat).Inv(p.Rate.Big())
	tau := new(big.Rat).Sub(p.Burst.Big(), big.NewRat(1, 1))
	tau.Mul(tau, inv)
	t, err1 := exact.ParseRat(inv.RatString())
	u, err2 := exact.ParseRat(tau.RatString())
	if err1 != nil || err2 != nil {
		panic(fmt.Sprintf("buckets: MatchGCRA(%v) out of range", p)) // 1/r and (b-1)/r of a valid Params fit
	}
	return GCRAParams{Interval: t, Tolerance: u}
}

// Validate returns a *ParamError naming the first invalid field, or nil.
func (p GCRAParams) Validate() error {
	if p.Interval.Sign() <= 0 {
		return &ParamError{Name: "GCRA interval", Value: p.Interval, Want: "> 0 s"}
	}
	if p.Tolerance.Sign() < 0 {
		return &ParamError{Name: "GCRA tolerance", Value: p.Tolerance, Want: ">= 0 s"}
	}
	return nil
}

// GCRA is the leaky bucket as a meter: the generic cell rate algorithm
// GCRA(T, τ) in its virtual scheduling form (ITU-T Recommendation I.371,
// Annex A; ATM Forum Traffic Management Specification 4.0, af-tm-0056.000,
// 1996). It keeps the theoretical arrival time TAT of the next job; a job
// arriving at t conforms unless it is more than τ early:
//
//	t < TAT - τ   reject, TAT unchanged; RetryAfter = TAT - τ - t
//	otherwise     admit,  TAT = max(t, TAT) + T
//
// TAT starts at 0, so the meter starts as a full token bucket. GCRA(1/r,
// (b - 1)/r) makes the same decisions as a policing token bucket (r, b) on
// every arrival sequence (the tests check it): with TAT - t the bucket's
// unfinished work U(t), a job conforms iff U(t) <= (b - 1)/r, iff the
// bucket holds at least b - r·U(t) >= 1 token. TAT is kept in exact units
// (see [TokenBucket]), so the equivalence holds at every tie.
//
// The zero value is not usable; create one with [NewGCRA].
type GCRA struct {
	p     GCRAParams
	scale int64        // units per ns
	inc   exact.Int128 // T, units
	tau   exact.Int128 // τ, units
	tat   exact.Int128 // theoretical arrival time of the next job, units
	last  engine.Time
}

// NewGCRA returns a GCRA with parameters p, or an error wrapping
// [ErrParam].
func NewGCRA(p GCRAParams) (*GCRA, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	spans, err := spansNs(p.Interval, p.Tolerance)
	if err != nil {
		return nil, err
	}
	s, n, err := scaleFor(1, spans...)
	if err != nil {
		return nil, err
	}
	return &GCRA{p: p, scale: s, inc: n[0], tau: n[1]}, nil
}

// Params returns the meter's parameters.
func (m *GCRA) Params() GCRAParams { return m.p }

// TAT returns the theoretical arrival time of the next job, exactly, in
// nanoseconds.
func (m *GCRA) TAT() exact.Rat { return exact.Frac(m.tat, m.scale) }

// Offer presents job id arriving at instant t and decides it as GCRA(T, τ)
// does (Admit or Reject). A rejected job leaves the meter unchanged.
//
// Panics if t is earlier than an instant already offered.
func (m *GCRA) Offer(t engine.Time, id int64) Decision {
	if t < m.last {
		panic(fmt.Sprintf("buckets: GCRA.Offer(%v) after instant %v", t, m.last))
	}
	ts := at(t, m.scale)
	if due := m.tat.Sub(m.tau); ts.Less(due) {
		r := ceilNanos(due, m.scale)
		if r == engine.Forever {
			return Decision{Verdict: Reject}
		}
		return Decision{Verdict: Reject, RetryAfter: r - t}
	}
	if m.tat.Less(ts) {
		m.tat = ts
	}
	m.tat = m.tat.Add(m.inc)
	m.last = t
	return Decision{Verdict: Admit}
}

// Next returns [engine.Forever]: a meter queues nothing.
func (m *GCRA) Next() engine.Time { return engine.Forever }

// Release panics: a meter queues nothing.
func (m *GCRA) Release() Released { panic("buckets: GCRA.Release: a meter queues nothing") }

// Promise returns 1 + (τ + d)/T, the b + r·d of the matching token bucket:
// a closed interval of length d ns holds at most that many conforming
// jobs.
func (m *GCRA) Promise(d engine.Time) float64 {
	return 1 + (m.p.Tolerance.Float64()+d.Seconds())/m.p.Interval.Float64()
}
