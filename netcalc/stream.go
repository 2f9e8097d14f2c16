package netcalc

import (
	"fmt"
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// stream is a non-decreasing sequence of instants x[i]/den seconds, all over
// one common denominator so that the per-job work is integer arithmetic.
type stream struct {
	x   []*big.Int
	den *big.Int // > 0
}

var nanosPerSecond = big.NewInt(int64(engine.Second))

// nanoStream returns ts (nanoseconds) as a stream over den = 1e9.
func nanoStream(ts []engine.Time) (stream, error) {
	st := stream{x: make([]*big.Int, len(ts)), den: nanosPerSecond}
	for i, t := range ts {
		if i > 0 && t < ts[i-1] {
			return stream{}, fmt.Errorf("netcalc: instant %d (%v s) is before instant %d (%v s)", i, t, i-1, ts[i-1])
		}
		st.x[i] = big.NewInt(int64(t))
	}
	return st, nil
}

// ratStream returns ts (seconds) as a stream over the least common
// denominator of the instants.
func ratStream(ts []exact.Rat) (stream, error) {
	den := big.NewInt(1)
	for i, t := range ts {
		if i > 0 && t.Cmp(ts[i-1]) < 0 {
			return stream{}, fmt.Errorf("netcalc: instant %d (%v s) is before instant %d (%v s)", i, t, i-1, ts[i-1])
		}
		den = lcm(den, big.NewInt(t.Den()))
	}
	st := stream{x: make([]*big.Int, len(ts)), den: den}
	for i, t := range ts {
		z := t.Num().Big()
		st.x[i] = z.Mul(z, new(big.Int).Quo(den, big.NewInt(t.Den())))
	}
	return st, nil
}

// rescale returns st over the denominator lcm(st.den, ds...).
func (st stream) rescale(ds ...*big.Int) stream {
	den := st.den
	for _, d := range ds {
		den = lcm(den, d)
	}
	if den.Cmp(st.den) == 0 {
		return st
	}
	f := new(big.Int).Quo(den, st.den)
	out := stream{x: make([]*big.Int, len(st.x)), den: den}
	for i, x := range st.x {
		out.x[i] = new(big.Int).Mul(x, f)
	}
	return out
}

// seconds returns n/st.den as an exact.Rat.
func (st stream) seconds(n *big.Int) (exact.Rat, error) {
	return ratOf(new(big.Rat).SetFrac(n, st.den))
}

func lcm(a, b *big.Int) *big.Int {
	g := new(big.Int).GCD(nil, nil, a, b)
	z := new(big.Int).Quo(a, g)
	return z.Mul(z, b)
}
