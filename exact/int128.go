package exact

import (
	"math"
	"math/big"
	"math/bits"
)

// Int128 is a signed 128-bit integer in two's complement. The zero value
// is 0. It is a value type: operations return new values and never
// allocate, except the conversions to and from [math/big].
//
// ratesim uses it where a product of an instant in nanoseconds and a
// limiter's scale (units per nanosecond) exceeds int64: an instant of up to
// 292 years times a scale of up to 2^63 fits, with room for sums of many
// such terms.
type Int128 struct {
	hi int64
	lo uint64
}

// I128 returns x as an Int128.
func I128(x int64) Int128 { return Int128{hi: x >> 63, lo: uint64(x)} }

// Mul64 returns the exact product a·b. It is branch-free and inlined: the
// unsigned 128-bit product, with the high word corrected for the signs
// (two's complement: a·b = ua·ub - 2^64·(b·[a<0] + a·[b<0]) mod 2^128).
func Mul64(a, b int64) Int128 {
	hi, lo := bits.Mul64(uint64(a), uint64(b))
	hi -= uint64(a>>63) & uint64(b)
	hi -= uint64(b>>63) & uint64(a)
	return Int128{hi: int64(hi), lo: lo}
}

func absU(a int64) uint64 {
	if a < 0 {
		return uint64(-a) // also right for math.MinInt64: 2^63 as uint64
	}
	return uint64(a)
}

// Add returns x + y. It wraps around on overflow, which ratesim's ranges
// rule out (see [Int128]); [Int128.AddOK] reports it.
func (x Int128) Add(y Int128) Int128 {
	lo, c := bits.Add64(x.lo, y.lo, 0)
	return Int128{hi: x.hi + y.hi + int64(c), lo: lo}
}

// AddOK returns x + y and whether the sum did not overflow.
func (x Int128) AddOK(y Int128) (Int128, bool) {
	z := x.Add(y)
	// Overflow iff x and y have the same sign and z's sign differs.
	if (x.hi < 0) == (y.hi < 0) && (z.hi < 0) != (x.hi < 0) {
		return z, false
	}
	return z, true
}

// Sub returns x - y (wrapping on overflow, as [Int128.Add]).
func (x Int128) Sub(y Int128) Int128 {
	lo, b := bits.Sub64(x.lo, y.lo, 0)
	return Int128{hi: x.hi - y.hi - int64(b), lo: lo}
}

// Add64 returns x + y.
func (x Int128) Add64(y int64) Int128 { return x.Add(I128(y)) }

// Neg returns -x.
func (x Int128) Neg() Int128 {
	lo, b := bits.Sub64(0, x.lo, 0)
	return Int128{hi: -x.hi - int64(b), lo: lo}
}

// Sign returns -1, 0 or +1.
func (x Int128) Sign() int {
	switch {
	case x.hi < 0:
		return -1
	case x.hi == 0 && x.lo == 0:
		return 0
	}
	return 1
}

// Cmp returns -1, 0 or +1 as x <, ==, > y.
func (x Int128) Cmp(y Int128) int {
	switch {
	case x.hi < y.hi:
		return -1
	case x.hi > y.hi:
		return 1
	case x.lo < y.lo:
		return -1
	case x.lo > y.lo:
		return 1
	}
	return 0
}

// Less reports whether x < y.
func (x Int128) Less(y Int128) bool {
	return x.hi < y.hi || x.hi == y.hi && x.lo < y.lo
}

// IsInt64 reports whether x fits in an int64.
func (x Int128) IsInt64() bool { return x.hi == int64(x.lo)>>63 }

// Int64 returns x as an int64; the result is undefined unless
// [Int128.IsInt64].
func (x Int128) Int64() int64 { return int64(x.lo) }

// Mul64OK returns x·m and whether the product fits in an Int128.
func (x Int128) Mul64OK(m int64) (Int128, bool) {
	neg := (x.hi < 0) != (m < 0)
	if x.Sign() == 0 || m == 0 {
		return Int128{}, true
	}
	ax := x
	if x.hi < 0 {
		ax = x.Neg()
	}
	am := absU(m)
	// |x|·|m| = (ahi·2^64 + alo)·am
	h1, l1 := bits.Mul64(ax.lo, am)
	h2, l2 := bits.Mul64(uint64(ax.hi), am)
	hi, c := bits.Add64(h1, l2, 0)
	if h2 != 0 || c != 0 || hi >= 1<<63 && !(neg && hi == 1<<63 && l1 == 0) {
		return Int128{}, false
	}
	z := Int128{hi: int64(hi), lo: l1}
	if neg {
		z = z.Neg()
	}
	return z, true
}

// QuoRem returns the floor quotient q = floor(x/d) and the remainder
// r = x - q·d, 0 <= r < d. d must be > 0; QuoRem panics otherwise.
func (x Int128) QuoRem(d int64) (q Int128, r int64) {
	if d <= 0 {
		panic("exact: Int128.QuoRem by a divisor <= 0")
	}
	ud := uint64(d)
	if x.hi >= 0 {
		qh := uint64(x.hi) / ud
		rh := uint64(x.hi) % ud
		ql, rl := bits.Div64(rh, x.lo, ud)
		return Int128{hi: int64(qh), lo: ql}, int64(rl)
	}
	// floor(x/d) = -ceil(-x/d) for x < 0.
	n := x.Neg() // positive, at most 2^127
	nh, nl := uint64(n.hi), n.lo
	qh := nh / ud
	rh := nh % ud
	ql, rl := bits.Div64(rh, nl, ud)
	q = Int128{hi: int64(qh), lo: ql}.Neg()
	if rl != 0 {
		q = q.Sub(I128(1))
		return q, d - int64(rl)
	}
	return q, 0
}

// FloorDiv returns floor(x/d) for d > 0.
func (x Int128) FloorDiv(d int64) Int128 {
	q, _ := x.QuoRem(d)
	return q
}

// CeilDiv returns ceil(x/d) for d > 0.
func (x Int128) CeilDiv(d int64) Int128 {
	q, r := x.QuoRem(d)
	if r != 0 {
		q = q.Add(I128(1))
	}
	return q
}

// Big returns x as a new *big.Int.
func (x Int128) Big() *big.Int {
	z := new(big.Int).SetInt64(x.hi)
	z.Lsh(z, 64)
	return z.Add(z, new(big.Int).SetUint64(x.lo))
}

var (
	minInt128 = new(big.Int).Lsh(big.NewInt(-1), 127)
	maxInt128 = new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1))
)

// FromBig returns z as an Int128 and whether it fits.
func FromBig(z *big.Int) (Int128, bool) {
	if z.Cmp(minInt128) < 0 || z.Cmp(maxInt128) > 0 {
		return Int128{}, false
	}
	lo := new(big.Int).And(z, new(big.Int).SetUint64(math.MaxUint64)).Uint64()
	hi := new(big.Int).Rsh(z, 64).Int64()
	return Int128{hi: hi, lo: lo}, true
}

// Float64 returns the float64 nearest x (ties to even).
func (x Int128) Float64() float64 {
	if x.IsInt64() {
		return float64(x.Int64()) // Go rounds integer-to-float conversions to nearest even
	}
	f, _ := new(big.Float).SetInt(x.Big()).Float64()
	return f
}

// String returns x in decimal.
func (x Int128) String() string {
	if x.IsInt64() {
		return big.NewInt(x.Int64()).String()
	}
	return x.Big().String()
}

// DivMod returns the floor quotient q = floor(x/d) and the remainder
// r = x - q·d, 0 <= r < d, for d > 0 (it panics otherwise). It takes
// [Int128.QuoRem]'s fast path when d fits in an int64 and goes through
// math/big when it does not.
func (x Int128) DivMod(d Int128) (q, r Int128) {
	if d.Sign() <= 0 {
		panic("exact: Int128.DivMod by a divisor <= 0")
	}
	if d.IsInt64() {
		q, r64 := x.QuoRem(d.Int64())
		return q, I128(r64)
	}
	bq, br := new(big.Int).DivMod(x.Big(), d.Big(), new(big.Int)) // Euclidean: 0 <= r < d
	q, _ = FromBig(bq)
	r, _ = FromBig(br)
	return q, r
}

// Mul returns x·y and whether the product fits in an Int128.
func (x Int128) Mul(y Int128) (Int128, bool) {
	if y.IsInt64() {
		return x.Mul64OK(y.Int64())
	}
	if x.IsInt64() {
		return y.Mul64OK(x.Int64())
	}
	return FromBig(new(big.Int).Mul(x.Big(), y.Big()))
}
