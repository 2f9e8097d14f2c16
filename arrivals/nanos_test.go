package arrivals

import (
	"math"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

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

// TestTimeArithmeticExtremes checks the overflow-checked sums at the ends
// of the range of engine.Time.
func TestTimeArithmeticExtremes(t *testing.T) {
	const maxT = engine.Time(math.MaxInt64)
	for _, tc := range []struct {
		a, b engine.Time
		want engine.Time
		ok   bool
	}{
		{1, 2, 3, true},
		{maxT - 1, 1, maxT, true},
		{maxT, 1, 0, false},
		{math.MinInt64, -1, 0, false},
		{math.MinInt64, maxT, -1, true},
	} {
		if got, ok := addTime(tc.a, tc.b); ok != tc.ok || ok && got != tc.want {
			t.Errorf("addTime(%d, %d) = %d, %v, want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		a, b int64
		want engine.Time
		ok   bool
	}{
		{5, 3, 2, true},
		{math.MaxInt64, 0, maxT, true},
		{math.MaxInt64, -1, 0, false},
		{0, math.MinInt64, 0, false},
		{-1, math.MinInt64, maxT, true},
	} {
		if got, ok := subTime(tc.a, tc.b); ok != tc.ok || ok && got != tc.want {
			t.Errorf("subTime(%d, %d) = %d, %v, want %d, %v", tc.a, tc.b, got, ok, tc.want, tc.ok)
		}
	}
	// 0.3 s rounds to exactly 300 ms; 1.5 ns rounds away from zero to 2 ns.
	for _, tc := range []struct {
		t    engine.Time
		s    float64
		want engine.Time
		ok   bool
	}{
		{0, 0.3, 300 * engine.Millisecond, true},
		{10, 1.5e-9, 12, true},
		{0, math.NaN(), 0, false},
		{0, 1e10, 0, false}, // 1e19 ns > 2^63
		{maxT - 5, 5e-9, maxT, true},
		{maxT - 5, 6e-9, 0, false},
	} {
		if got, ok := afterSeconds(tc.t, tc.s); ok != tc.ok || ok && got != tc.want {
			t.Errorf("afterSeconds(%d, %g) = %d, %v, want %d, %v", tc.t, tc.s, got, ok, tc.want, tc.ok)
		}
	}
}
