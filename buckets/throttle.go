package buckets

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// ThrottleParams describes a throttle: a token bucket (r, b) whose
// admission probability falls linearly with the token deficit instead of
// dropping from 1 to 0 when the last token is gone.
type ThrottleParams struct {
	Rate  exact.Rat // r: tokens/s; > 0
	Burst exact.Rat // b: tokens; >= 1
	// Soft is the token deficit (tokens missing from a full bucket) up
	// to which every job passes, in [0, Hard].
	Soft exact.Rat
	// Hard is the deficit from which every job is rejected, in
	// [Soft, b - 1]. Soft = Hard = b - 1 is the policing token bucket.
	Hard exact.Rat
}

// Validate returns a *ParamError naming the first invalid field, or nil.
//
// Special cases:
//
//	Rate or Burst invalid   as for [Params.Validate]
//	Soft < 0 or > Hard      error
//	Hard > b - 1            error (a job must find a whole token)
func (p ThrottleParams) Validate() error {
	if err := (Params{Rate: p.Rate, Burst: p.Burst}).Validate(); err != nil {
		return err
	}
	top, _ := p.Burst.Sub(exact.Int(1))
	if p.Hard.Cmp(top) > 0 {
		return &ParamError{Name: "throttle hard threshold", Value: p.Hard, Want: fmt.Sprintf("<= burst - 1 = %v tokens of deficit", top)}
	}
	if p.Soft.Sign() < 0 || p.Soft.Cmp(p.Hard) > 0 {
		return &ParamError{Name: "throttle soft threshold", Value: p.Soft, Want: fmt.Sprintf("in [0, hard threshold %v] tokens of deficit", p.Hard)}
	}
	return nil
}

// Admission returns the throttle's response function, the probability that
// a job arriving at token deficit δ (tokens) is admitted:
//
//	p(δ) = 1                          δ <= Soft
//	p(δ) = (Hard - δ)/(Hard - Soft)   Soft < δ < Hard
//	p(δ) = 0                          δ >= Hard
//
// A policing token bucket's is the cliff p(δ) = 1 for δ <= b - 1, else 0.
// The comparisons with Soft and Hard are exact; a probability strictly
// between 0 and 1 is computed in float64 for the draw (a draw is not a
// tie: its last bit decides nothing exact arithmetic would).
func (p ThrottleParams) Admission(deficit exact.Rat) float64 {
	switch {
	case deficit.Cmp(p.Soft) <= 0:
		return 1
	case deficit.Cmp(p.Hard) >= 0:
		return 0
	}
	h, s, d := p.Hard.Float64(), p.Soft.Float64(), deficit.Float64()
	return min(1, max(0, (h-d)/(h-s)))
}

// Throttle slows traffic gradually instead of cutting it at a cliff. It
// keeps the token deficit δ(t) = b - x(t) of a bucket (r, b), refilled in
// closed form, from a full bucket at 0, and admits a job arriving at t
// with probability [ThrottleParams.Admission] of its deficit: every job
// while the bucket is at least b - Soft full, fewer and fewer as it
// empties, none from deficit Hard on. An admitted job takes one token
// (there is always one, since Hard <= b - 1). A policing token bucket
// admits everything until its last token and then nothing: a cliff; the
// throttle turns it into a slope, which warns clients before the wall (the
// article, "Throttling versus rate limiting"). It admits no more than the
// bucket (r, b) would let pass in any interval, b + r·d.
//
// The deficit is kept as the unfinished work of the equivalent G/D/1 queue
// in exact units, as in [TokenBucket], so the thresholds are compared
// exactly; draws come from the random source given to [NewThrottle], one
// per job whose admission probability is strictly between 0 and 1. A
// rejected job is told to retry when the deficit is back to Soft, where
// admission is certain.
//
// The zero value is not usable; create one with [NewThrottle].
type Throttle struct {
	p      ThrottleParams
	scale  int64
	token  exact.Int128 // 1/r, units
	soft   exact.Int128 // Soft/r, units
	finish exact.Int128 // the instant the deficit would reach 0, units
	last   engine.Time
	rng    *rand.Rand
}

// NewThrottle returns a throttle with parameters p, full at time 0, drawing
// from src. src may be nil only when Soft = Hard (no draw is ever needed).
// It returns an error wrapping [ErrParam] for invalid parameters.
func NewThrottle(p ThrottleParams, src rand.Source) (*Throttle, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	inv, err := exact.Int(1).Quo(p.Rate)
	var soft exact.Rat
	if err == nil {
		soft, err = p.Soft.Mul(inv)
	}
	if err != nil {
		return nil, fmt.Errorf("buckets: the spans of the throttle: %w: %w", err, ErrParam)
	}
	spans, err := spansNs(inv, soft)
	if err != nil {
		return nil, err
	}
	s, n, err := scaleFor(1, spans...)
	if err != nil {
		return nil, err
	}
	th := &Throttle{p: p, scale: s, token: n[0], soft: n[1]}
	if src != nil {
		th.rng = rand.New(src)
	} else if p.Soft.Cmp(p.Hard) < 0 {
		return nil, &ParamError{Name: "throttle random source", Value: "nil", Want: fmt.Sprintf("a rand.Source (soft %v < hard %v needs draws)", p.Soft, p.Hard)}
	}
	return th, nil
}

// Params returns the throttle's parameters.
func (th *Throttle) Params() ThrottleParams { return th.p }

// Deficit returns b - x(t), the tokens missing from a full bucket at
// instant t (not earlier than the last admitted job), exactly, in [0, b].
func (th *Throttle) Deficit(t engine.Time) exact.Rat {
	u := th.finish.Sub(at(t, th.scale))
	if u.Sign() < 0 {
		u = exact.Int128{}
	}
	r, err := exact.RatOf(u, th.token)
	if err != nil {
		panic(fmt.Sprintf("buckets: Throttle.Deficit out of range: %v", err))
	}
	return r
}

// Offer presents job id arriving at instant t and admits it with
// probability p(δ), δ its deficit at t. A rejected job leaves the throttle
// unchanged, apart from its random source.
//
// Panics if t is earlier than an instant already offered.
func (th *Throttle) Offer(t engine.Time, id int64) Decision {
	if t < th.last {
		panic(fmt.Sprintf("buckets: Throttle.Offer(%v) after instant %v", t, th.last))
	}
	p := th.p.Admission(th.Deficit(t))
	if p == 0 || p < 1 && !(th.rng.Float64() < p) {
		r := ceilNanos(th.finish.Sub(th.soft), th.scale)
		if r == engine.Forever {
			return Decision{Verdict: Reject}
		}
		return Decision{Verdict: Reject, RetryAfter: max(r-t, 0)}
	}
	ts := at(t, th.scale)
	if th.finish.Less(ts) {
		th.finish = ts
	}
	th.finish = th.finish.Add(th.token)
	th.last = t
	return Decision{Verdict: Admit}
}

// Next returns [engine.Forever]: a throttle queues nothing.
func (th *Throttle) Next() engine.Time { return engine.Forever }

// Release panics: a throttle queues nothing.
func (th *Throttle) Release() Released { panic("buckets: Throttle.Release: nothing is queued") }

// Promise returns b + r·d, which the throttle keeps: every admitted job
// takes a whole token of a bucket (r, b).
func (th *Throttle) Promise(d engine.Time) float64 {
	return Params{Rate: th.p.Rate, Burst: th.p.Burst}.Promise(d)
}
