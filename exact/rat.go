package exact

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/bits"
	"strconv"
	"strings"
)

// Rat is an exact rational number n/d with a 128-bit numerator and a
// positive int64 denominator. The zero value is 0.
//
// Rat values are not always in lowest terms (limiters build them from
// their scaled integer state on hot paths without a gcd); compare them with
// [Rat.Cmp], never with ==. Parameters parsed by [ParseRat] are reduced.
type Rat struct {
	num Int128
	den int64 // > 0; 0 in the zero value, read as 1
}

// ErrRange is wrapped by the errors of operations whose result does not fit
// a Rat (numerator beyond 128 bits or denominator beyond 63 bits).
var ErrRange = errors.New("exact: out of range")

// NewRat returns n/d in lowest terms. It panics if d == 0.
func NewRat(n, d int64) Rat {
	if d == 0 {
		panic("exact: NewRat with denominator 0")
	}
	if d < 0 {
		if n == math.MinInt64 || d == math.MinInt64 {
			r, err := fromBigRat(big.NewRat(n, d))
			if err != nil {
				panic(err)
			}
			return r
		}
		n, d = -n, -d
	}
	g := gcd(absU(n), uint64(d))
	return Rat{num: I128(n / int64(g)), den: d / int64(g)}
}

// Int returns n as a Rat.
func Int(n int64) Rat { return Rat{num: I128(n), den: 1} }

// Frac returns n/d without reducing it, for hot paths. d must be > 0.
func Frac(n Int128, d int64) Rat {
	if d <= 0 {
		panic("exact: Frac with denominator <= 0")
	}
	return Rat{num: n, den: d}
}

// GCD returns the greatest common divisor of a, b >= 0 (GCD(0, b) = b).
func GCD(a, b int64) int64 { return int64(gcd(uint64(a), uint64(b))) }

func gcd(a, b uint64) uint64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// Num returns the numerator.
func (r Rat) Num() Int128 { return r.num }

// Den returns the denominator, > 0.
func (r Rat) Den() int64 {
	if r.den == 0 {
		return 1
	}
	return r.den
}

// ParseRat parses s exactly as a decimal ("0.7", "-2.5", "1e-3", "3") or
// a fraction of two integers ("10/13"). Leading and trailing spaces are
// ignored. It returns an error naming s for anything else (including
// "inf", "nan" and empty strings) and for values whose lowest terms do not
// fit a Rat.
func ParseRat(s string) (Rat, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return Rat{}, fmt.Errorf("exact: empty number")
	}
	bad := func() (Rat, error) {
		return Rat{}, fmt.Errorf("exact: %q is not a decimal number or a fraction p/q", s)
	}
	z := new(big.Rat)
	if num, den, isFrac := strings.Cut(t, "/"); isFrac {
		// Two decimal integers; big's own fraction syntax would read a
		// leading 0 as octal.
		n, ok1 := new(big.Int).SetString(strings.TrimSpace(num), 10)
		d, ok2 := new(big.Int).SetString(strings.TrimSpace(den), 10)
		if !ok1 || !ok2 || d.Sign() == 0 {
			return bad()
		}
		z.SetFrac(n, d)
	} else {
		// A decimal with an optional exponent: digits, one point, e/E and
		// signs only (no 0x, 0b or 0o prefixes, no underscores).
		if strings.Trim(t, "0123456789.eE+-") != "" || !strings.ContainsAny(t, "0123456789") {
			return bad()
		}
		// Bound the exponent before big.Rat expands it: no Rat is beyond
		// 10^±60 times its digits, and 10^999999999 would take gigabytes.
		if i := strings.IndexAny(t, "eE"); i >= 0 {
			e, err := strconv.Atoi(t[i+1:])
			if err != nil && !errors.Is(err, strconv.ErrRange) {
				return bad()
			}
			if e > maxExp10 || e < -maxExp10 || err != nil {
				return Rat{}, fmt.Errorf("exact: %q: exponent beyond ±%d: %w", clip(s), maxExp10, ErrRange)
			}
		}
		if _, ok := z.SetString(t); !ok {
			return bad()
		}
	}
	r, err := fromBigRat(z)
	if err != nil {
		return Rat{}, fmt.Errorf("exact: %q: %w", clip(s), err)
	}
	return r, nil
}

// maxExp10 bounds the decimal exponent ParseRat reads.
const maxExp10 = 60

// clip shortens s for an error message.
func clip(s string) string {
	if len(s) <= 40 {
		return s
	}
	return s[:20] + "…" + s[len(s)-12:]
}

// MustParse is [ParseRat] for constants in code and tests; it panics on
// error.
func MustParse(s string) Rat {
	r, err := ParseRat(s)
	if err != nil {
		panic(err)
	}
	return r
}

// FromFloat64 returns the rational that x's shortest decimal representation
// denotes, so that a float64 parameter stands for the decimal a person
// wrote: 0.1 is 1/10, not 3602879701896397/36028797018963968. It returns an
// error for NaN and ±Inf.
func FromFloat64(x float64) (Rat, error) {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return Rat{}, fmt.Errorf("exact: %v is not a finite number", x)
	}
	return ParseRat(strconv.FormatFloat(x, 'g', -1, 64))
}

func fromBigRat(z *big.Rat) (Rat, error) {
	d := z.Denom()
	if !d.IsInt64() {
		return Rat{}, fmt.Errorf("denominator of %d bits, more than 63: %w", d.BitLen(), ErrRange)
	}
	n, ok := FromBig(z.Num())
	if !ok {
		return Rat{}, fmt.Errorf("numerator of %d bits, more than 127: %w", z.Num().BitLen(), ErrRange)
	}
	return Rat{num: n, den: d.Int64()}, nil
}

// Big returns r as a new *big.Rat.
func (r Rat) Big() *big.Rat {
	return new(big.Rat).SetFrac(r.num.Big(), big.NewInt(r.Den()))
}

// Sign returns -1, 0 or +1.
func (r Rat) Sign() int { return r.num.Sign() }

// Cmp returns -1, 0 or +1 as r <, ==, > s, exactly.
func (r Rat) Cmp(s Rat) int {
	if r.num.IsInt64() && s.num.IsInt64() {
		return Mul64(r.num.Int64(), s.Den()).Cmp(Mul64(s.num.Int64(), r.Den()))
	}
	return r.Big().Cmp(s.Big())
}

// Float64 returns the float64 nearest r (ties to even).
func (r Rat) Float64() float64 {
	d := r.Den()
	if r.num.IsInt64() {
		n := r.num.Int64()
		if n >= -1<<53 && n <= 1<<53 && d <= 1<<53 {
			// Both operands are exact float64 values, so the one IEEE
			// division rounds once, correctly.
			return float64(n) / float64(d)
		}
	}
	f, _ := r.Big().Float64()
	return f
}

// IsInt reports whether r is an integer.
func (r Rat) IsInt() bool {
	_, rem := r.num.QuoRem(r.Den())
	return rem == 0
}

// Floor returns floor(r).
func (r Rat) Floor() Int128 { return r.num.FloorDiv(r.Den()) }

// Ceil returns ceil(r).
func (r Rat) Ceil() Int128 { return r.num.CeilDiv(r.Den()) }

// Neg returns -r.
func (r Rat) Neg() Rat { return Rat{num: r.num.Neg(), den: r.Den()} }

// Add returns r + s in lowest terms, or an error wrapping [ErrRange].
func (r Rat) Add(s Rat) (Rat, error) {
	if x, ok := addSmall(r, s); ok {
		return x, nil
	}
	return fromBigRat(new(big.Rat).Add(r.Big(), s.Big()))
}

// Sub returns r - s in lowest terms, or an error wrapping [ErrRange].
func (r Rat) Sub(s Rat) (Rat, error) {
	if s.num.IsInt64() && s.num.Int64() != math.MinInt64 {
		if x, ok := addSmall(r, Rat{num: I128(-s.num.Int64()), den: s.Den()}); ok {
			return x, nil
		}
	}
	return fromBigRat(new(big.Rat).Sub(r.Big(), s.Big()))
}

// Mul returns r·s in lowest terms, or an error wrapping [ErrRange].
func (r Rat) Mul(s Rat) (Rat, error) {
	if x, ok := mulSmall(r.num, r.Den(), s.num, s.Den()); ok {
		return x, nil
	}
	return fromBigRat(new(big.Rat).Mul(r.Big(), s.Big()))
}

// Quo returns r/s in lowest terms, or an error wrapping [ErrRange]. It
// panics if s is 0.
func (r Rat) Quo(s Rat) (Rat, error) {
	if s.Sign() == 0 {
		panic("exact: division by zero")
	}
	if s.num.IsInt64() && s.num.Int64() != math.MinInt64 {
		n, d := s.Den(), s.num.Int64()
		if d < 0 {
			n, d = -n, -d
		}
		if x, ok := mulSmall(r.num, r.Den(), I128(n), d); ok {
			return x, nil
		}
	}
	return fromBigRat(new(big.Rat).Quo(r.Big(), s.Big()))
}

// small reports whether x fits an int64 other than MinInt64, so that its
// negation and absolute value do too.
func small(x Int128) bool { return x.IsInt64() && x.Int64() != math.MinInt64 }

// mulSmall returns (a/b)·(c/d) in lowest terms without allocating when
// a and c fit an int64 and the reduced denominator fits 63 bits; ok is
// false otherwise (the caller falls back to math/big).
func mulSmall(a Int128, b int64, c Int128, d int64) (Rat, bool) {
	if !small(a) || !small(c) {
		return Rat{}, false
	}
	an, cn := a.Int64(), c.Int64()
	if an == 0 || cn == 0 {
		return Rat{}, true
	}
	g1 := int64(gcd(absU(an), uint64(d)))
	g2 := int64(gcd(absU(cn), uint64(b)))
	an, d = an/g1, d/g1
	cn, b = cn/g2, b/g2
	hi, lo := bits.Mul64(uint64(b), uint64(d))
	if hi != 0 || lo > math.MaxInt64 {
		return Rat{}, false
	}
	return reduce128(Mul64(an, cn), int64(lo)), true
}

// addSmall returns r + s in lowest terms without allocating when both
// numerators fit an int64 and the sum's denominator fits 63 bits; ok is
// false otherwise.
func addSmall(r, s Rat) (Rat, bool) {
	if !small(r.num) || !small(s.num) {
		return Rat{}, false
	}
	b, d := r.Den(), s.Den()
	g := int64(gcd(uint64(b), uint64(d)))
	bg, dg := b/g, d/g
	hi, lo := bits.Mul64(uint64(bg), uint64(d))
	if hi != 0 || lo > math.MaxInt64 {
		return Rat{}, false
	}
	n, ok := Mul64(r.num.Int64(), dg).AddOK(Mul64(s.num.Int64(), bg))
	if !ok {
		return Rat{}, false
	}
	return reduce128(n, int64(lo)), true
}

// reduce128 returns n/d, d > 0, in lowest terms without allocating.
func reduce128(n Int128, d int64) Rat {
	if n.Sign() == 0 {
		return Rat{}
	}
	_, rem := n.QuoRem(d) // gcd(n, d) = gcd(d, n mod d)
	g := int64(gcd(uint64(d), uint64(rem)))
	if g == 1 {
		return Rat{num: n, den: d}
	}
	q, _ := n.QuoRem(g)
	return Rat{num: q, den: d / g}
}

// Reduce returns r in lowest terms. It does not allocate.
func (r Rat) Reduce() Rat { return reduce128(r.num, r.Den()) }

// String returns r exactly: as a decimal when its denominator has no prime
// factors but 2 and 5 ("0.35", "-2", "1e-12" style is not used: digits are
// written out), otherwise as "n/d" in lowest terms ("10/13").
func (r Rat) String() string {
	x := r.Reduce()
	d := x.Den()
	if d == 1 {
		return x.num.String()
	}
	// Count the decimal digits a terminating expansion needs.
	e := d
	twos, fives := 0, 0
	for e%2 == 0 {
		e /= 2
		twos++
	}
	for e%5 == 0 {
		e /= 5
		fives++
	}
	if e != 1 {
		return x.num.String() + "/" + strconv.FormatInt(d, 10)
	}
	digits := max(twos, fives)
	return x.Big().FloatString(digits)
}

// QuoFloat64 returns the float64 nearest r/d (ties to even), for d > 0:
// the conversion of an exact quantity to a reported unit, such as a wait in
// nanoseconds to seconds (d = 1e9).
func (r Rat) QuoFloat64(d int64) float64 {
	if d <= 0 {
		panic("exact: QuoFloat64 by a divisor <= 0")
	}
	den := r.Den()
	if hi, lo := bits.Mul64(uint64(den), uint64(d)); hi == 0 && lo <= 1<<53 && r.num.IsInt64() {
		if n := r.num.Int64(); n >= -1<<53 && n <= 1<<53 {
			return float64(n) / float64(lo) // one rounding of exact operands
		}
	}
	if hi, lo := bits.Mul64(uint64(den), uint64(d)); hi == 0 && r.num.hi != math.MinInt64 {
		neg := r.num.Sign() < 0
		m := r.num
		if neg {
			m = m.Neg()
		}
		f := quoRound(uint64(m.hi), m.lo, lo)
		if neg {
			return -f
		}
		return f
	}
	f, _ := new(big.Rat).SetFrac(r.num.Big(), new(big.Int).Mul(big.NewInt(den), big.NewInt(d))).Float64()
	return f
}

// quoRound returns the float64 nearest (hi·2^64 + lo)/dv, ties to even,
// for dv > 0, without allocating: the quotient is computed to 64 bits
// (at least 63 significant), a sticky bit records a non-zero remainder
// below them, and the one conversion of that integer to float64 rounds
// exactly as rounding the true quotient would.
func quoRound(hi, lo, dv uint64) float64 {
	if hi == 0 && lo == 0 {
		return 0
	}
	// Shift the dividend so that the quotient lies in [2^63, 2^64).
	nb := 128 - bits.LeadingZeros64(hi)
	if hi == 0 {
		nb = 64 - bits.LeadingZeros64(lo)
	}
	// s is in [-62, 127]: nb is in [1, 127] and bits.Len64(dv) in [1, 64];
	// n·2^s has 64 + bits.Len64(dv) bits, so the quotient has 64 or 65.
	s := 64 - (nb - bits.Len64(dv))
	sticky := false
	var nh, nl uint64
	switch {
	case s >= 64: // then hi == 0
		nh, nl = lo<<(s-64), 0
	case s > 0:
		nh, nl = hi<<s|lo>>(64-s), lo<<s
	case s == 0:
		nh, nl = hi, lo
	default: // drop -s (at most 62) low bits into the sticky bit
		k := -s
		sticky = lo&(1<<k-1) != 0
		nh, nl = hi>>k, lo>>k|hi<<(64-k)
	}
	if nh >= dv { // the quotient would have 65 bits: one bit less
		sticky = sticky || nl&1 != 0
		nl = nl>>1 | nh<<63
		nh >>= 1
		s--
	}
	q, rem := bits.Div64(nh, nl, dv)
	if rem != 0 || sticky {
		q |= 1 // below the rounding bit of a 63- or 64-bit quotient
	}
	return math.Ldexp(float64(q), -s)
}

// RatOf returns n/d in lowest terms, or an error wrapping [ErrRange] when
// the reduced denominator needs more than 63 bits. d must not be 0.
func RatOf(n, d Int128) (Rat, error) {
	if d.Sign() == 0 {
		panic("exact: RatOf with denominator 0")
	}
	if d.IsInt64() && d.Sign() > 0 && n.IsInt64() && n.Int64() != math.MinInt64 {
		return NewRat(n.Int64(), d.Int64()), nil
	}
	if d.IsInt64() && d.Sign() > 0 {
		return Rat{num: n, den: d.Int64()}.Reduce(), nil
	}
	return fromBigRat(new(big.Rat).SetFrac(n.Big(), d.Big()))
}
