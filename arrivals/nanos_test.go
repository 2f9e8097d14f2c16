package arrivals

import (
	"math"
	"math/big"
	"math/rand/v2"
	"testing"
)

// wantSeconds is the oracle: d/1e9 rounded to float64 by math/big.
func wantSeconds(d uint64) float64 {
	f, _ := new(big.Rat).SetFrac(new(big.Int).SetUint64(d), big.NewInt(1e9)).Float64()
	return f
}

func TestSecondsFromNanosExtremes(t *testing.T) {
	for _, d := range []uint64{
		0, 1, 300_000_000, 999_999_999, 1e9,
		1<<53 - 1, 1 << 53, 1<<53 + 1, 1<<53 + 3,
		1 << 62, 1<<63 - 1, 1 << 63, math.MaxUint64 - 1, math.MaxUint64,
		46_321_000_000_000,      // NASA trace span
		1_987_200_000_000_001,   // 23 days + 1 ns
		123_456_789_012_345_678, // about 3.9 years
	} {
		if got, want := secondsFromNanos(d), wantSeconds(d); got != want {
			t.Errorf("secondsFromNanos(%d) = %v, want %v", d, got, want)
		}
	}
	// The reason for the exact path: 0.3 s is the float64 nearest 0.3.
	if got := secondsFromNanos(300_000_000); got != 0.3 {
		t.Errorf("secondsFromNanos(3e8) = %v, want 0.3", got)
	}
}

// TestSecondsFromNanosRandom compares with math/big on random spans above
// 2^53 ns, where float64(d)/1e9 alone may round twice.
func TestSecondsFromNanosRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	n := 200_000
	if testing.Short() {
		n = 10_000
	}
	naiveWrong := 0
	for range n {
		d := rng.Uint64() >> rng.UintN(11) // 2^53 to 2^64
		if d <= 1<<53 {
			continue
		}
		got, want := secondsFromNanos(d), wantSeconds(d)
		if got != want {
			t.Fatalf("secondsFromNanos(%d) = %v, want %v", d, got, want)
		}
		if float64(d)/1e9 != want {
			naiveWrong++
		}
	}
	t.Logf("float64(d)/1e9 was off by one ulp for %d of %d spans", naiveWrong, n)
}

func TestNanosFromSecs(t *testing.T) {
	for _, tc := range []struct {
		secs, frac int64
		want       int64
		ok         bool
	}{
		{0, 0, 0, true},
		{1, 5, 1_000_000_005, true},
		{-1, 500_000_000, -500_000_000, true},
		{maxSecs, 854_775_807, math.MaxInt64, true},
		{maxSecs, 854_775_808, 0, false},
		{-maxSecs - 1, 145_224_192, math.MinInt64, true}, // -9223372037 s + 0.145224192 s
		{-maxSecs - 1, 145_224_191, 0, false},
		{maxSecs + 1, 0, 0, false},
		{-maxSecs - 2, 999_999_999, 0, false},
	} {
		got, ok := nanosFromSecs(tc.secs, tc.frac)
		if got != tc.want || ok != tc.ok {
			t.Errorf("nanosFromSecs(%d, %d) = %d, %v, want %d, %v", tc.secs, tc.frac, got, ok, tc.want, tc.ok)
		}
	}
}
