package buckets

import (
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Exact units. A limiter whose rate does not divide a nanosecond (a token
// every 1/3 s, a burst of 2.5 tokens at rate 0.7) keeps its instants in
// units of 1/S ns, where the scale S is the smallest integer that makes
// every span it adds (one token's time 1/r, the burst's time b/r) a whole
// number of units. An arrival at t ns is t·S units, an [exact.Int128]; a
// decision compares such integers, so it is exact.

var nsPerSecond = big.NewRat(1e9, 1)

// spanNanos returns x·1e9 (seconds to nanoseconds) as a big.Rat.
func spanNanos(x *big.Rat) *big.Rat { return new(big.Rat).Mul(x, nsPerSecond) }

// scaleFor returns the smallest scale S (units per ns) that is a multiple
// of base (>= 1) and makes each span (exact rationals, in ns) a whole
// number of units, and those numbers. It returns an error wrapping
// [ErrParam] when the scale needs more than 63 bits or a span more than 127
// bits of units.
func scaleFor(base int64, spans ...*big.Rat) (int64, []exact.Int128, error) {
	s := big.NewInt(base)
	for _, x := range spans {
		d := x.Denom()
		g := new(big.Int).GCD(nil, nil, s, d)
		s.Mul(s, new(big.Int).Quo(d, g))
	}
	if !s.IsInt64() {
		return 0, nil, fmt.Errorf("buckets: the exact model needs %v units per nanosecond, beyond 63 bits (rates or bursts with too many digits): %w", s, ErrParam)
	}
	out := make([]exact.Int128, len(spans))
	for i, x := range spans {
		n := new(big.Int).Mul(x.Num(), s)
		n.Quo(n, x.Denom())
		v, ok := exact.FromBig(n)
		if !ok {
			return 0, nil, fmt.Errorf("buckets: a span of %v ns is %v units of 1/%v ns, beyond 127 bits: %w",
				x.FloatString(3), n, s, ErrParam)
		}
		out[i] = v
	}
	return s.Int64(), out, nil
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
		var err error
		if s, _, err = scaleFor(s, p.spans(p.Burst)...); err != nil {
			return 0, err
		}
	}
	return s, nil
}

// spans returns, in ns, one token's time 1/r, the burst's time b/r and
// the initial deficit's time (b - x)/r for x initial tokens.
func (p Params) spans(initial exact.Rat) []*big.Rat {
	inv := new(big.Rat).Inv(p.Rate.Big())
	deficit := new(big.Rat).Sub(p.Burst.Big(), initial.Big())
	return []*big.Rat{
		spanNanos(inv),
		spanNanos(new(big.Rat).Mul(p.Burst.Big(), inv)),
		spanNanos(deficit.Mul(deficit, inv)),
	}
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
