package plots

import (
	"math"
	"testing"
)

// TestSecondsText checks the units and the four significant digits by
// hand: 0.0005 s is 500 µs, 0.25 s is 250 ms, 546.66 s rounds to 546.7 s,
// 12345 s to 1.234e+04 s (%g with four digits).
func TestSecondsText(t *testing.T) {
	for _, c := range []struct {
		s    float64
		want string
	}{
		{0.0005, "500 µs"},
		{-0.0005, "-500 µs"},
		{0.25, "250 ms"},
		{0, "0 ms"},
		{1, "1 s"},
		{546.66, "546.7 s"},
		{12345, "1.234e+04 s"},
		{math.NaN(), "NaN s"},
		{math.Inf(1), "+Inf s"},
	} {
		if got := SecondsText(c.s); got != c.want {
			t.Errorf("SecondsText(%v) = %q, want %q", c.s, got, c.want)
		}
	}
}
