package buckets

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Exact units. A limiter whose rate does not divide a nanosecond (a token
// every 1/3 s, a burst of 2.5 tokens at rate 0.7) keeps its instants in
// units of 1/S ns, where the scale S is the smallest integer that makes
// every span it adds (one token's time 1/r, the burst's time b/r) a whole
// number of units. An arrival at t ns is t·S units, an [exact.Int128]; a
// decision compares such integers, so it is exact.

// spansNs returns each x (seconds) in nanoseconds, x·10^9, exactly, or
// an error wrapping [ErrParam] when one is beyond the range of a Rat.
func spansNs(xs ...exact.Rat) ([]exact.Rat, error) {
	out := make([]exact.Rat, len(xs))
	for i, x := range xs {
		v, err := x.Mul(exact.Int(1e9))
		if err != nil {
			return nil, fmt.Errorf("buckets: a span of %v s in nanoseconds: %w: %w", x, err, ErrParam)
		}
		out[i] = v
	}
	return out, nil
}

// scaleFor returns the smallest scale S (units per ns) that is a multiple
// of base (>= 1) and makes each span (exact rationals, in ns) a whole
// number of units, and those numbers. It returns an error wrapping
// [ErrParam] when the scale needs more than 63 bits or a span more than 127
// bits of units.
func scaleFor(base int64, spans ...exact.Rat) (int64, []exact.Int128, error) {
	s := base
	for _, x := range spans {
		d := x.Reduce().Den()
		g := exact.GCD(s, d)
		hi, lo := bits.Mul64(uint64(s), uint64(d/g))
		if hi != 0 || lo > math.MaxInt64 {
			return 0, nil, fmt.Errorf("buckets: the exact model needs a scale of lcm(%d, %d) units per nanosecond, beyond 63 bits (rates or bursts with too many digits): %w", s, d, ErrParam)
		}
		s = int64(lo)
	}
	out := make([]exact.Int128, len(spans))
	for i, x := range spans {
		x = x.Reduce()
		v, ok := x.Num().Mul64OK(s / x.Den())
		if !ok {
			return 0, nil, fmt.Errorf("buckets: a span of %v ns in units of 1/%d ns needs more than 127 bits: %w", x, s, ErrParam)
		}
		out[i] = v
	}
	return s, out, nil
}

// CommonScale returns the smallest scale (units per nanosecond) in which
// every token bucket of ps can be built exactly (see [WithScale]), so that
// their instants compare without conversion: the least common multiple of
// their own scales. It returns an error wrapping [ErrParam] if it does not
// fit in 63 bits.
func CommonScale(ps ...Params) (int64, error) {
	s := int64(1)
	for _, p := range ps {
		if err := p.Validate(); err != nil {
			return 0, err
		}
		spans, err := p.spans(p.Burst)
		if err != nil {
			return 0, err
		}
		if s, _, err = scaleFor(s, spans...); err != nil {
			return 0, err
		}
	}
	return s, nil
}

// spans returns, in ns, one token's time 1/r, the burst's time b/r and
// the initial deficit's time (b - x)/r for x initial tokens.
func (p Params) spans(initial exact.Rat) ([]exact.Rat, error) {
	inv, err := exact.Int(1).Quo(p.Rate)
	if err != nil {
		return nil, fmt.Errorf("buckets: 1/%v: %w: %w", p.Rate, err, ErrParam)
	}
	b, err1 := p.Burst.Mul(inv)
	deficit, err2 := p.Burst.Sub(initial)
	if err2 == nil {
		deficit, err2 = deficit.Mul(inv)
	}
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("buckets: the spans of %v: %w: %w", p, err, ErrParam)
	}
	return spansNs(inv, b, deficit)
}

// at returns instant t in units of 1/scale ns.
func at(t engine.Time, scale int64) exact.Int128 { return exact.Mul64(int64(t), scale) }

// ceilNanos returns the first nanosecond at or after x units, or
// engine.Forever when that is beyond the clock's range.
func ceilNanos(x exact.Int128, scale int64) engine.Time {
	c := x.CeilDiv(scale)
	if !c.IsInt64() || c.Int64() >= int64(engine.Forever) {
		return engine.Forever
	}
	return engine.Time(c.Int64())
}
