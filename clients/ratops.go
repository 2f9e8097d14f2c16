package clients

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/exact"
)

// addRat returns a + b exactly. When the sum fits over the least common
// multiple of the denominators (128-bit numerator, 63-bit denominator) it
// is formed there without allocating and without reducing: the
// denominators a run meets (a service time's, a limiter's scale) stay
// bounded by their lcm. Otherwise it falls back to [exact.Rat.Add]
// (math/big, lowest terms). It panics if the sum does not fit a Rat at
// all, which the instants of a run (under 292 years) rule out.
func addRat(a, b exact.Rat) exact.Rat {
	da, db := a.Den(), b.Den()
	g := gcd64(da, db)
	if q := da / g; q <= math.MaxInt64/db {
		l := q * db
		na, ok1 := a.Num().Mul64OK(l / da)
		nb, ok2 := b.Num().Mul64OK(l / db)
		if ok1 && ok2 {
			if s, ok := na.AddOK(nb); ok {
				return exact.Frac(s, l)
			}
		}
	}
	s, err := a.Add(b)
	if err != nil {
		panic(fmt.Sprintf("clients: %v + %v: %v", a, b, err))
	}
	return s
}

// subRat returns a - b exactly (see addRat).
func subRat(a, b exact.Rat) exact.Rat { return addRat(a, b.Neg()) }

func gcd64(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
