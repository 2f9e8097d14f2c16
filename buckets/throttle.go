package buckets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// ThrottleParams describes a throttle: a token bucket (r, b) whose
// admission probability falls linearly with the token deficit instead of
// dropping from 1 to 0 when the last token is gone.
type ThrottleParams struct {
	Rate  float64 // r: tokens/s; finite and > 0
	Burst float64 // b: tokens; finite and >= 1
	// Soft is the token deficit (tokens missing from a full bucket) up
	// to which every job passes, in [0, Hard].
	Soft float64
	// Hard is the deficit from which every job is rejected, in
	// [Soft, b - 1]. Soft = Hard = b - 1 is the policing token bucket.
	Hard float64
}

// Validate returns a *ParamError naming the first invalid field, or nil.
//
// Special cases:
//
//	Rate or Burst invalid           as for [Params.Validate]
//	Soft < 0, NaN, or > Hard        error
//	Hard > b - 1 or NaN             error (a job must find a whole token)
func (p ThrottleParams) Validate() error {
	if err := (Params{Rate: p.Rate, Burst: p.Burst}).Validate(); err != nil {
		return err
	}
	if !(p.Hard <= p.Burst-1) {
		return &ParamError{Name: "throttle hard threshold", Value: p.Hard, Want: fmt.Sprintf("<= burst - 1 = %v tokens of deficit", p.Burst-1)}
	}
	if !(p.Soft >= 0 && p.Soft <= p.Hard) {
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
func (p ThrottleParams) Admission(deficit float64) float64 {
	switch {
	case deficit <= p.Soft:
		return 1
	case deficit >= p.Hard:
		return 0
	}
	return (p.Hard - deficit) / (p.Hard - p.Soft)
}

// Throttle slows traffic gradually instead of cutting it at a cliff. It
// keeps the tokens x of a bucket (r, b), refilled in closed form,
//
//	x(t) = min(b, x(t_0) + r·(t - t_0))
//
// from a full bucket at 0, and admits a job arriving at t with probability
// [ThrottleParams.Admission] of its deficit δ = b - x(t): every job while
// the bucket is at least b - Soft full, fewer and fewer as it empties,
// none from deficit Hard on. An admitted job takes one token (there is
// always one, since Hard <= b - 1). A policing token bucket admits
// everything until its last token and then nothing: a cliff; the throttle
// turns it into a slope, which warns clients before the wall (the article,
// "Throttling versus rate limiting"). It admits no more than the bucket
// (r, b) would let pass in any interval, b + r·d.
//
// Draws come from the random source given to [NewThrottle], one per job
// whose admission probability is strictly between 0 and 1.
//
// The zero value is not usable; create one with [NewThrottle].
type Throttle struct {
	p      ThrottleParams
	tokens float64     // x at last, tokens
	last   engine.Time // instant of the last admitted job, seconds
	rng    *rand.Rand
}

// NewThrottle returns a throttle with parameters p, full at time 0, drawing
// from src. src may be nil only when Soft = Hard (no draw is ever needed).
// It returns a *ParamError for invalid parameters.
func NewThrottle(p ThrottleParams, src rand.Source) (*Throttle, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	th := &Throttle{p: p, tokens: p.Burst}
	if src != nil {
		th.rng = rand.New(src)
	} else if p.Soft < p.Hard {
		return nil, fmt.Errorf("buckets: a throttle with soft threshold %v < hard threshold %v needs a random source: %w", p.Soft, p.Hard, ErrParam)
	}
	return th, nil
}

// Params returns the throttle's parameters.
func (th *Throttle) Params() ThrottleParams { return th.p }

// tokensAt returns x(t), the tokens at t >= last.
func (th *Throttle) tokensAt(t engine.Time) float64 {
	return math.Min(th.p.Burst, th.tokens+th.p.Rate*float64(t-th.last))
}

// Deficit returns b - x(t), the tokens missing from a full bucket at
// instant t (seconds, not earlier than the last admitted job), in [0, b].
func (th *Throttle) Deficit(t engine.Time) float64 {
	return th.p.Burst - th.tokensAt(t)
}

// Offer presents a job arriving at instant t (seconds) and admits it with
// probability p(δ), δ its deficit at t. A rejected job leaves the throttle
// unchanged, apart from its random source.
//
// Panics if t is NaN or earlier than the last admitted job.
func (th *Throttle) Offer(t engine.Time) Decision[engine.Time] {
	if !(t >= th.last) {
		panic(fmt.Sprintf("buckets: throttle Offer(%v) after instant %v", t, th.last))
	}
	x := th.tokensAt(t)
	p := th.p.Admission(th.p.Burst - x)
	if p == 0 || p < 1 && !(th.rng.Float64() < p) {
		return Decision[engine.Time]{}
	}
	th.tokens, th.last = x-1, t
	return Decision[engine.Time]{Admitted: true}
}

// Promise returns b + r·d, which the throttle keeps: every admitted job
// takes a whole token of a bucket (r, b).
func (th *Throttle) Promise(d engine.Time) float64 {
	return th.p.Burst + th.p.Rate*float64(d)
}
