package exact

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"
)

// randI128 draws values that exercise the carries: small, near 2^63, near
// 2^127 and random.
func randI128(src *rand.Rand) Int128 {
	switch src.IntN(4) {
	case 0:
		return I128(src.Int64N(2001) - 1000)
	case 1:
		return I128(int64(src.Uint64()))
	case 2:
		return Int128{hi: int64(src.Uint64()) >> uint(src.IntN(64)), lo: src.Uint64()}
	}
	return Int128{hi: int64(src.Uint64()), lo: src.Uint64()}
}

// TestInt128AgainstBig checks every operation against math/big on random
// operands (the independent oracle).
func TestInt128AgainstBig(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 1))
	two127 := new(big.Int).Lsh(big.NewInt(1), 127)
	fits := func(z *big.Int) bool { return z.Cmp(two127) < 0 && z.Cmp(new(big.Int).Neg(two127)) >= 0 }
	for i := range 200000 {
		x, y := randI128(src), randI128(src)
		bx, by := x.Big(), y.Big()
		if got, ok := FromBig(bx); !ok || got != x {
			t.Fatalf("FromBig(Big(%v)) = %v, %v", x, got, ok)
		}
		if want := new(big.Int).Add(bx, by); fits(want) {
			if got := x.Add(y); got.Big().Cmp(want) != 0 {
				t.Fatalf("%v + %v = %v, want %v", x, y, got, want)
			}
			if _, ok := x.AddOK(y); !ok {
				t.Fatalf("AddOK(%v, %v) reports overflow", x, y)
			}
		} else if _, ok := x.AddOK(y); ok {
			t.Fatalf("AddOK(%v, %v) misses the overflow", x, y)
		}
		if want := new(big.Int).Sub(bx, by); fits(want) && x.Sub(y).Big().Cmp(want) != 0 {
			t.Fatalf("%v - %v = %v, want %v", x, y, x.Sub(y), want)
		}
		if got, want := x.Cmp(y), bx.Cmp(by); got != want {
			t.Fatalf("Cmp(%v, %v) = %d, want %d", x, y, got, want)
		}
		if x.Less(y) != (bx.Cmp(by) < 0) {
			t.Fatalf("Less(%v, %v) wrong", x, y)
		}
		if x.Sign() != bx.Sign() {
			t.Fatalf("Sign(%v) = %d", x, x.Sign())
		}
		a, b := int64(src.Uint64()), int64(src.Uint64())>>uint(src.IntN(64))
		if got, want := Mul64(a, b).Big(), new(big.Int).Mul(big.NewInt(a), big.NewInt(b)); got.Cmp(want) != 0 {
			t.Fatalf("Mul64(%d, %d) = %v, want %v", a, b, got, want)
		}
		m := int64(src.Uint64()) >> uint(src.IntN(64))
		want := new(big.Int).Mul(bx, big.NewInt(m))
		got, ok := x.Mul64OK(m)
		if ok != fits(want) || ok && got.Big().Cmp(want) != 0 {
			t.Fatalf("Mul64OK(%v, %d) = %v, %v; want %v (fits %v)", x, m, got, ok, want, fits(want))
		}
		d := int64(src.Uint64()>>1) >> uint(src.IntN(63))
		if d == 0 {
			d = 7
		}
		q, r := x.QuoRem(d)
		bq, br := new(big.Int).DivMod(bx, big.NewInt(d), new(big.Int)) // Euclidean: 0 <= r < d for d > 0
		if q.Big().Cmp(bq) != 0 || big.NewInt(r).Cmp(br) != 0 {
			t.Fatalf("QuoRem(%v, %d) = %v, %d; want %v, %v", x, d, q, r, bq, br)
		}
		if i%16 == 0 {
			f, _ := new(big.Float).SetInt(bx).Float64()
			if x.Float64() != f {
				t.Fatalf("Float64(%v) = %v, want %v", x, x.Float64(), f)
			}
		}
	}
}

func TestInt128Extremes(t *testing.T) {
	min := Int128{hi: math.MinInt64}
	if got, ok := min.Mul64OK(1); !ok || got != min {
		t.Errorf("MinInt128·1 = %v, %v", got, ok)
	}
	if _, ok := min.Mul64OK(-1); ok {
		t.Error("MinInt128·-1 should overflow")
	}
	q, r := min.QuoRem(3)
	if want := new(big.Int).Div(min.Big(), big.NewInt(3)); q.Big().Cmp(want) != 0 || r != 1 {
		// -2^127 = 3·q + r with r in [0, 3): 2^127 mod 3 = 2, so r = 1.
		t.Errorf("MinInt128 QuoRem 3 = %v, %d; want %v, 1", q, r, want)
	}
	if I128(-7).FloorDiv(2) != I128(-4) || I128(-7).CeilDiv(2) != I128(-3) || I128(7).CeilDiv(2) != I128(4) {
		t.Error("floor/ceil of ±7/2 wrong")
	}
}

func TestParseRat(t *testing.T) {
	for _, c := range []struct {
		in       string
		num, den int64
	}{
		{"0.7", 7, 10},
		{"0.35", 7, 20},
		{"3", 3, 1},
		{"-2.5", -5, 2},
		{"1e-3", 1, 1000},
		{"1.5E2", 150, 1},
		{"10/13", 10, 13},
		{"010/13", 10, 13}, // decimal, not octal
		{" 6/4 ", 3, 2},
		{"1.000000001", 1000000001, 1000000000},
		{"0.1", 1, 10},
	} {
		r, err := ParseRat(c.in)
		if err != nil {
			t.Errorf("ParseRat(%q): %v", c.in, err)
			continue
		}
		if r.Cmp(NewRat(c.num, c.den)) != 0 || r.Den() != c.den {
			t.Errorf("ParseRat(%q) = %v, want %d/%d", c.in, r, c.num, c.den)
		}
	}
	for _, bad := range []string{"", "inf", "NaN", "0x10", "1_000", "1/0", "a", "1/2/3", "0b1", "."} {
		if r, err := ParseRat(bad); err == nil {
			t.Errorf("ParseRat(%q) = %v, want an error", bad, r)
		}
	}
	if _, err := ParseRat("1e38"); err != nil {
		t.Errorf("1e38 fits 127 bits (2^127 is about 1.7e38): %v", err)
	}
	if _, err := ParseRat("1e-30"); err == nil {
		t.Error("1e-30 needs a denominator beyond 63 bits: want an error")
	}
	// Huge exponents are refused before they are expanded, and no error
	// message carries a number's hundred digits.
	for _, huge := range []string{"1e999999999", "1e-99999999999999999999", "1e61", "0.5e-61", "1e999999", "1" + strings.Repeat("0", 500)} {
		_, err := ParseRat(huge)
		if !errors.Is(err, ErrRange) || len(err.Error()) > 120 {
			t.Errorf("ParseRat(%.30q): %v, want a short ErrRange", huge, err)
		}
	}
}

// FuzzParseRat: whatever ParseRat accepts reads back through its String
// and agrees with math/big on the same decimal; nothing it is given makes
// it slow or panic.
func FuzzParseRat(f *testing.F) {
	for _, s := range []string{"0.7", "10/13", "-2.5e3", "1e-18", "1e999999999", "170141183460469231731687303715884105727", "9223372036854775807/2", " 6/4 "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseRat(s)
		if err != nil {
			return
		}
		back, err := ParseRat(r.String())
		if err != nil || back.Cmp(r) != 0 {
			t.Fatalf("ParseRat(%q) = %v, which reads back as %v, %v", s, r, back, err)
		}
		if !strings.Contains(s, "/") {
			z, ok := new(big.Rat).SetString(strings.TrimSpace(s))
			if ok && z.Cmp(r.Big()) != 0 {
				t.Fatalf("ParseRat(%q) = %v, math/big reads %v", s, r, z)
			}
		}
	})
}

func TestRatFloat64AndString(t *testing.T) {
	for _, c := range []struct {
		r    Rat
		f    float64
		text string
	}{
		{NewRat(1, 10), 0.1, "0.1"},
		{NewRat(1, 3), 1.0 / 3, "1/3"},
		{NewRat(-7, 20), -0.35, "-0.35"},
		{NewRat(10, 13), 10.0 / 13, "10/13"},
		{Int(5), 5, "5"},
		{NewRat(1, 1<<10), 1.0 / 1024, "0.0009765625"},
		{Rat{}, 0, "0"},
	} {
		if got := c.r.Float64(); got != c.f {
			t.Errorf("%v.Float64() = %v, want %v", c.r, got, c.f)
		}
		if got := c.r.String(); got != c.text {
			t.Errorf("String() = %q, want %q", got, c.text)
		}
	}
	// Float64 against big.Rat on large operands (the slow path).
	src := rand.New(rand.NewPCG(2, 2))
	for range 20000 {
		r := Frac(randI128(src), int64(src.Uint64()>>1)|1)
		want, _ := r.Big().Float64()
		if got := r.Float64(); got != want {
			t.Fatalf("%v.Float64() = %v, want %v", r, got, want)
		}
	}
}

func TestRatCmpAndArith(t *testing.T) {
	a, b := MustParse("0.1"), MustParse("0.2")
	s, err := a.Add(b)
	if err != nil || s.Cmp(MustParse("0.3")) != 0 {
		t.Errorf("0.1 + 0.2 = %v, %v; want exactly 0.3", s, err)
	}
	if Frac(I128(6), 4).Cmp(NewRat(3, 2)) != 0 {
		t.Error("6/4 != 3/2")
	}
	if p, _ := MustParse("0.7").Mul(MustParse("0.5")); p.Cmp(MustParse("0.35")) != 0 {
		t.Errorf("0.7·0.5 = %v", p)
	}
	if q, _ := Int(1).Quo(MustParse("3")); q.Cmp(NewRat(1, 3)) != 0 {
		t.Errorf("1/3 = %v", q)
	}
	if x := NewRat(7, 2); x.Floor() != I128(3) || x.Ceil() != I128(4) || x.IsInt() {
		t.Error("floor/ceil/IsInt of 7/2")
	}
	if f, err := FromFloat64(0.1); err != nil || f.Cmp(NewRat(1, 10)) != 0 {
		t.Errorf("FromFloat64(0.1) = %v, %v", f, err)
	}
	if _, err := FromFloat64(math.Inf(1)); err == nil {
		t.Error("FromFloat64(+Inf) should fail")
	}
}

func TestQuoFloat64(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 3))
	for range 20000 {
		r := Frac(randI128(src), int64(src.Uint64()>>uint(1+src.IntN(62)))|1)
		d := int64(src.Uint64()>>uint(1+src.IntN(62))) | 1
		want, _ := new(big.Rat).SetFrac(r.Num().Big(), new(big.Int).Mul(big.NewInt(r.Den()), big.NewInt(d))).Float64()
		if got := r.QuoFloat64(d); got != want {
			t.Fatalf("(%v).QuoFloat64(%d) = %v, want %v", r, d, got, want)
		}
	}
	// A wait of 1/3 s in nanoseconds, 1e9/3, in seconds.
	if got := NewRat(1e9, 3).QuoFloat64(1e9); got != 1.0/3 {
		t.Errorf("1e9/3 ns = %v s, want %v", got, 1.0/3)
	}
}

func TestDivModAndMul(t *testing.T) {
	src := rand.New(rand.NewPCG(4, 4))
	two127 := new(big.Int).Lsh(big.NewInt(1), 127)
	for range 50000 {
		x, d := randI128(src), randI128(src)
		if d.Sign() <= 0 {
			d = d.Neg()
		}
		if d.Sign() <= 0 {
			continue
		}
		q, r := x.DivMod(d)
		bq, br := new(big.Int).DivMod(x.Big(), d.Big(), new(big.Int))
		if q.Big().Cmp(bq) != 0 || r.Big().Cmp(br) != 0 {
			t.Fatalf("DivMod(%v, %v) = %v, %v; want %v, %v", x, d, q, r, bq, br)
		}
		y := randI128(src)
		p, ok := x.Mul(y)
		want := new(big.Int).Mul(x.Big(), y.Big())
		fits := want.Cmp(two127) < 0 && want.Cmp(new(big.Int).Neg(two127)) >= 0
		if ok != fits || ok && p.Big().Cmp(want) != 0 {
			t.Fatalf("Mul(%v, %v) = %v, %v; want %v", x, y, p, ok, want)
		}
	}
}

// randRat draws rationals that exercise both the allocation-free paths
// and the math/big fallbacks: small fractions, numerators and denominators
// near 2^63, 128-bit numerators, unreduced forms and zero.
func randRat(src *rand.Rand) Rat {
	den := func() int64 {
		switch src.IntN(3) {
		case 0:
			return 1 + src.Int64N(1000)
		case 1:
			return math.MaxInt64 - src.Int64N(1000)
		}
		return 1 + src.Int64N(math.MaxInt64)
	}
	switch src.IntN(5) {
	case 0:
		return Int(0)
	case 1:
		return Frac(I128(src.Int64N(2001)-1000), den())
	case 2:
		return Frac(randI128(src), den())
	}
	return Frac(I128(src.Int64()), den())
}

// TestRatArithAgainstBig: Add, Sub, Mul, Quo and Reduce agree with
// math/big on random operands, in lowest terms, or report ErrRange exactly
// when math/big's lowest-terms result does not fit a Rat.
func TestRatArithAgainstBig(t *testing.T) {
	src := rand.New(rand.NewPCG(3, 4))
	ops := []struct {
		name string
		f    func(a, b Rat) (Rat, error)
		g    func(z, a, b *big.Rat) *big.Rat
	}{
		{"Add", Rat.Add, (*big.Rat).Add},
		{"Sub", Rat.Sub, (*big.Rat).Sub},
		{"Mul", Rat.Mul, (*big.Rat).Mul},
		{"Quo", Rat.Quo, (*big.Rat).Quo},
	}
	for range 200000 {
		a, b := randRat(src), randRat(src)
		if r := a.Reduce(); r.Big().Cmp(a.Big()) != 0 || !lowest(r) {
			t.Fatalf("Reduce(%v/%d) = %v/%d", a.num, a.Den(), r.num, r.Den())
		}
		for _, op := range ops {
			if op.name == "Quo" && b.Sign() == 0 {
				continue
			}
			got, err := op.f(a, b)
			want := op.g(new(big.Rat), a.Big(), b.Big())
			fits := want.Denom().IsInt64()
			if _, ok := FromBig(want.Num()); !ok {
				fits = false
			}
			switch {
			case !fits && !errors.Is(err, ErrRange):
				t.Fatalf("%s(%v, %v) = %v, %v; want ErrRange for %v", op.name, a.Big(), b.Big(), got, err, want)
			case fits && (err != nil || got.Big().Cmp(want) != 0 || !lowest(got)):
				t.Fatalf("%s(%v, %v) = %v/%d, %v; want %v", op.name, a.Big(), b.Big(), got.num, got.Den(), err, want)
			}
		}
	}
}

func TestGCD(t *testing.T) {
	for _, c := range [][3]int64{{12, 18, 6}, {0, 5, 5}, {7, 0, 7}, {1, 9223372036854775807, 1}, {1 << 40, 3 << 38, 1 << 38}} {
		if g := GCD(c[0], c[1]); g != c[2] {
			t.Errorf("GCD(%d, %d) = %d, want %d", c[0], c[1], g, c[2])
		}
	}
}

func lowest(r Rat) bool {
	return new(big.Int).GCD(nil, nil, new(big.Int).Abs(r.num.Big()), big.NewInt(r.Den())).Cmp(big.NewInt(1)) == 0 || r.Sign() == 0 && r.Den() == 1
}

// BenchmarkRatMul: the allocation-free path (0 allocs/op).
func BenchmarkRatMul(b *testing.B) {
	x, y := NewRat(7, 10), NewRat(1e9, 3)
	for b.Loop() {
		z, _ := x.Mul(y)
		x, _ = z.Quo(y)
	}
}
