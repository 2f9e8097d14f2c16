package splitstudy

import (
	"math/big"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/exact"
)

// exactSeconds is the exact decimal of n/den ns in seconds, trailing zeros
// dropped, from math/big; den must make it terminate within 30 digits.
func exactSeconds(n *big.Int, den int64) string {
	s := new(big.Rat).SetFrac(n, new(big.Int).Mul(big.NewInt(den), big.NewInt(1e9))).FloatString(30)
	s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	if s == "" {
		return "0"
	}
	return s
}

// significant counts the significant digits of a plain decimal.
func significant(s string) int {
	s = strings.TrimLeft(strings.ReplaceAll(s, ".", ""), "0")
	return len(strings.TrimRight(s, "0"))
}

// TestAppendWaitExact: a wait that is a whole number of nanoseconds is
// written as the exact decimal of its seconds (math/big's), for any scale
// and up to the largest int64 nanoseconds (292 years), also when w·scale
// exceeds int64; and that text is the bytes strconv gives the nearest
// float64 whenever it has at most 15 significant digits (every such
// decimal round-trips through float64, so the shortest form is itself).
func TestAppendWaitExact(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	nanos := []int64{0, 1, 9, 10, 999_999_999, 1_000_000_000, 1_000_000_001, 1_534_800_000,
		1 << 53, 1<<53 + 1, 1_112_370_123_456_789, 9_223_372_036_854_775_807}
	for range 20000 {
		nanos = append(nanos, r.Int64N(1e10), r.Int64N(1e15), r.Int64(), r.Int64N(1e6)*1000, r.Int64N(1e9)*1e6)
	}
	agreed := 0
	for _, ns := range nanos {
		for _, den := range []int64{1, 3, 1000, 1 << 40, 1<<62 + 7} {
			w := exact.Mul64(ns, den)
			got := string(appendWait(nil, w, den))
			want := exactSeconds(big.NewInt(ns), 1)
			if got != want {
				t.Fatalf("appendWait(%d ns × %d, %d) = %q, want %q", ns, den, den, got, want)
			}
		}
		want := exactSeconds(big.NewInt(ns), 1)
		if significant(want) <= 15 {
			f, _ := new(big.Rat).SetFrac(big.NewInt(ns), big.NewInt(1e9)).Float64()
			if s := strconv.FormatFloat(f, 'f', -1, 64); s != want {
				t.Fatalf("%d ns: strconv %q, exact %q", ns, s, want)
			}
			agreed++
		}
	}
	if agreed < 20000 {
		t.Errorf("only %d values with at most 15 significant digits compared with strconv", agreed)
	}
}

// TestAppendWaitFraction: a wait that is not a whole number of
// nanoseconds is the float64 nearest the exact value (math/big's
// rounding), shortest form, with no exponent.
func TestAppendWaitFraction(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	for range 20000 {
		den := 2 + r.Int64N(1e6)
		n := r.Int64N(1e15)
		if n%den == 0 {
			n++
		}
		got := string(appendWait(nil, exact.I128(n), den))
		f, _ := new(big.Rat).SetFrac(big.NewInt(n), new(big.Int).Mul(big.NewInt(den), big.NewInt(1e9))).Float64()
		if want := strconv.FormatFloat(f, 'f', -1, 64); got != want {
			t.Fatalf("appendWait(%d, %d) = %q, want %q", n, den, got, want)
		}
		if strings.ContainsAny(got, "eE") {
			t.Fatalf("appendWait(%d, %d) = %q has an exponent", n, den, got)
		}
	}
}

// TestAppendRow: one row by hand.
func TestAppendRow(t *testing.T) {
	r := rawRow{id: 7, at: 1_112_370_123_456_789, sub: 1, one: exact.I128(0), oneDen: 1,
		split: exact.I128(4_604_400_000), splitDen: 3}
	if got, want := string(appendRow(nil, &r)), "7,1112370.123456789,1,0,1.5348\n"; got != want {
		t.Errorf("appendRow = %q, want %q", got, want)
	}
}

// TestAppendUint compares appendUint with strconv.
func TestAppendUint(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 16))
	cases := []uint64{0, 9, 10, 99, 100, 101, 1<<64 - 1}
	for range 10000 {
		cases = append(cases, r.Uint64(), r.Uint64N(1e7))
	}
	for _, u := range cases {
		if got, want := string(appendUint([]byte("x"), u)), "x"+strconv.FormatUint(u, 10); got != want {
			t.Fatalf("appendUint(%d) = %q, want %q", u, got, want)
		}
	}
}
