package arrivals

import (
	"errors"
	"fmt"
	"math"
	"math/bits"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// grid is the exact schedule of a periodic process: instant k (k >= 0) is
//
//	ceil(offset + k·spacing)   nanoseconds,
//
// the first whole nanosecond at or after the exact instant, as a timer
// fires at or after its deadline. offset and spacing are exact rationals,
// kept over one common denominator: offset = a/d and spacing = b/d
// nanoseconds. Each instant is computed from k in 128-bit integer
// arithmetic, never by adding spacings, so no rounding accumulates: every
// instant is within 1 ns after the exact one, for any k.
type grid struct {
	a, b exact.Int128 // offset·d and spacing·d, in ns
	d    int64        // > 0
}

// errGridRange is the cause of a grid whose parameters do not fit the
// 128-bit arithmetic of its instants.
var errGridRange = errors.New("does not fit exact nanosecond arithmetic (numerator up to 2^127, denominator up to 2^63)")

// newGrid returns the grid of offset >= 0 and spacing > 0, both in
// seconds. The caller validates the signs.
func newGrid(offset, spacing exact.Rat) (grid, error) {
	o, err := offset.Mul(exact.Int(1e9))
	if err != nil {
		return grid{}, errGridRange
	}
	p, err := spacing.Mul(exact.Int(1e9))
	if err != nil {
		return grid{}, errGridRange
	}
	od, pd := o.Den(), p.Den()
	g := gcdU(uint64(od), uint64(pd))
	hi, lo := bits.Mul64(uint64(od/int64(g)), uint64(pd))
	if hi != 0 || lo > math.MaxInt64 {
		return grid{}, errGridRange
	}
	d := int64(lo)
	a, ok1 := o.Num().Mul64OK(d / od)
	b, ok2 := p.Num().Mul64OK(d / pd)
	if !ok1 || !ok2 {
		return grid{}, errGridRange
	}
	return grid{a: a, b: b, d: d}, nil
}

// at returns instant k >= 0 and whether it is within the range of
// [engine.Time].
func (g grid) at(k int64) (engine.Time, bool) {
	x, ok := g.b.Mul64OK(k)
	if !ok {
		return 0, false
	}
	if x, ok = x.AddOK(g.a); !ok {
		return 0, false
	}
	c := x.CeilDiv(g.d)
	if !c.IsInt64() || c.Sign() < 0 {
		return 0, false
	}
	return engine.Time(c.Int64()), true
}

// gcdU returns the greatest common divisor of a and b.
func gcdU(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// ratSeconds formats an exact number of seconds for messages: "0.25 s",
// "1/3 s".
func ratSeconds(r exact.Rat) string { return r.String() + " s" }

// checkNonNegative returns an error naming what and r when r < 0.
func checkNonNegative(what string, r exact.Rat) error {
	if r.Sign() < 0 {
		return fmt.Errorf("%s %s is invalid: want >= 0", what, ratSeconds(r))
	}
	return nil
}
