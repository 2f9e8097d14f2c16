package clients

import (
	"math"
	"testing"

	"github.com/ratesim/ratesim/exact"
)

// addRat agrees with math/big's exact sum, on the fast path and on the
// fallback.
func TestAddRat(t *testing.T) {
	r := func(n, d int64) exact.Rat { return exact.NewRat(n, d) }
	third := r(1, 3)
	tests := [][2]exact.Rat{
		{r(1, 3), r(1, 12)},  // lcm 12
		{r(5, 12), r(1, 12)}, // equal denominators: 6/12 = 1/2
		{r(-7, 10), r(1, 4)},
		{r(math.MaxInt64, 1), r(math.MaxInt64, 1)}, // sum beyond int64, within 128 bits
		// lcm 15·2^60 beyond 63 bits; the reduced sum 8/15 fits: big fallback.
		{exact.Frac(exact.I128(1<<60), 3<<60), exact.Frac(exact.I128(1<<60), 5<<60)},
		{exact.Frac(exact.Mul64(2, 333333333), 2), third}, // unreduced input
	}
	for _, tt := range tests {
		got := addRat(tt[0], tt[1])
		want, err := tt[0].Add(tt[1])
		if err != nil {
			t.Fatal(err)
		}
		if got.Cmp(want) != 0 {
			t.Errorf("addRat(%v, %v) = %v, want %v", tt[0], tt[1], got, want)
		}
		if d := subRat(got, tt[1]); d.Cmp(tt[0]) != 0 {
			t.Errorf("subRat(%v, %v) = %v, want %v", got, tt[1], d, tt[0])
		}
	}
	// Repeated sums over the same denominators keep the denominator at
	// their lcm: 1000 service times of 1/12 s after an instant in thirds.
	x := third
	for range 1000 {
		x = addRat(x, r(1, 12))
	}
	if x.Den() != 12 || x.Cmp(r(1+250, 3)) != 0 {
		t.Errorf("sum %v with denominator %d, want 251/3 over 12", x, x.Den())
	}
}
