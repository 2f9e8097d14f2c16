package arrivals

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ratesim/ratesim/engine"
)

// TestParseDuration checks each form against values worked out by hand.
func TestParseDuration(t *testing.T) {
	for _, tc := range []struct {
		s    string
		want engine.Time
	}{
		{"0", 0},
		{"0.1", 100 * ms},    // exact: 1/10 s
		{"1.5", 1500 * ms},   // seconds alone
		{"1e-3", ms},         // an exponent
		{"-0.25", -250 * ms}, // a sign
		{" 2 ", 2 * s1},      // spaces
		{"0.000000001", 1},   // 1 ns
		{"500ms", 500 * ms},  // Go units
		{"1.5s", 1500 * ms},  //
		{"1m", 60 * s1},      //
		{"2h", 7200 * s1},    //
		{"1h30m", 5400 * s1}, // a sequence
		{"1.1m", 66 * s1},    // exact: 1.1·60 s
		{"250us", 250 * us},  //
		{"250µs", 250 * us},  // U+00B5
		{"250μs", 250 * us},  // U+03BC
		{"3ns", 3},           //
		{"-1m30s", -90 * s1}, // a signed sequence
		{"+5s", 5 * s1},      //
		{".5s", 500 * ms},    // Go accepts a leading point
		{"2562047h47m16.854775807s", math.MaxInt64},
		{"9223372036.854775807", math.MaxInt64},
	} {
		got, err := ParseDuration(tc.s)
		if err != nil || got != tc.want {
			t.Errorf("ParseDuration(%q) = %d, %v, want %d ns", tc.s, got, err, tc.want)
		}
		// Where Go reads it too, it agrees.
		if d, err := time.ParseDuration(tc.s); err == nil && strings.ContainsAny(tc.s, "hmsun") && engine.Time(d) != tc.want {
			t.Errorf("time.ParseDuration(%q) = %d, ParseDuration %d", tc.s, d, tc.want)
		}
	}
	for _, tc := range []struct{ s, want string }{
		{"", "empty"},
		{"  ", "empty"},
		{"1.5ns", "not a whole number of nanoseconds"},
		{"0.0000000001", "not a whole number of nanoseconds"},
		{"1/3", `the number 1 has no unit`},
		{"5 s", `has no unit`},
		{"1x", `has no unit`},
		{"m", `want a number at "m"`},
		{".s", `"." is not a decimal number`},
		{"1..2s", `"1..2" is not a decimal number`},
		{"-", "no number after the sign"},
		{"1e999999999", "exponent is beyond ±40"},
		{"9223372037", "beyond the range of engine.Time"},
		{"2562048h", "beyond the range of engine.Time"},
		{"inf", `want a number at "inf"`},
		{"1h x", `want a number at " x"`},
	} {
		_, err := ParseDuration(tc.s)
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: duration "+`"`) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDuration(%q) error = %v, want one containing %q", tc.s, err, tc.want)
		}
	}
}
