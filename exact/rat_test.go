package exact

import (
	"math/big"
	"math/rand/v2"
	"testing"
)

// TestQuoFloat64Large compares QuoFloat64 with math/big's correctly
// rounded conversion where the fast path's operands exceed 2^53: random
// numerators up to 2^126 of both signs, denominators up to 2^40 and
// divisors 1e9 and 1, and ties built on purpose (odd multiples of half an
// ulp).
func TestQuoFloat64Large(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	check := func(num *big.Int, den, d int64) {
		t.Helper()
		x, ok := FromBig(num)
		if !ok {
			return
		}
		q, err := RatOf(x, I128(den))
		if err != nil {
			return
		}
		want, _ := new(big.Rat).SetFrac(q.Num().Big(), new(big.Int).Mul(big.NewInt(q.Den()), big.NewInt(d))).Float64()
		if got := q.QuoFloat64(d); got != want {
			t.Errorf("(%v/%d).QuoFloat64(%d) = %v, want %v", num, den, d, got, want)
		}
	}
	for range 20000 {
		bitsN := 1 + r.IntN(126)
		num := new(big.Int).SetUint64(r.Uint64())
		num.Lsh(num, 64).Or(num, new(big.Int).SetUint64(r.Uint64()))
		num.Rsh(num, uint(128-bitsN)) // a random number of bitsN bits
		if r.IntN(2) == 0 {
			num.Neg(num)
		}
		den := 1 + r.Int64N(1<<uint(1+r.IntN(40)))
		check(num, den, []int64{1, 1e9}[r.IntN(2)])
	}
	// Ties: m·2^k + 2^(k-1) with a 53-bit odd or even m, over 1.
	for range 2000 {
		m := new(big.Int).SetUint64(1<<52 | r.Uint64N(1<<52))
		k := uint(2 + r.IntN(60))
		tie := new(big.Int).Lsh(m, k)
		tie.Add(tie, new(big.Int).Lsh(big.NewInt(1), k-1))
		check(tie, 1, 1)
		check(tie.Add(tie, big.NewInt(1)), 1, 1)
	}
}
