package engine

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"
	"time"
)

// TestParseDuration checks each form against values worked out by hand.
func TestParseDuration(t *testing.T) {
	const ms, us, s1 = Millisecond, Microsecond, Second
	for _, tc := range []struct {
		s    string
		want Time
	}{
		{"0", 0},
		{"0.1", 100 * ms},     // exact: 1/10 s
		{"1.5", 1500 * ms},    // seconds alone
		{"1e-3", ms},          // an exponent
		{"-0.25", -250 * ms},  // a sign
		{" 2 ", 2 * s1},       // spaces around
		{"2 s", 2 * s1},       // a space before the unit, as SI writes it
		{"1h 30m", 5400 * s1}, // and between terms
		{"0.000000001", 1},    // 1 ns
		{"1/8", 125 * ms},     // a fraction of whole nanoseconds
		{"500ms", 500 * ms},   // Go units
		{"1.5s", 1500 * ms},   //
		{"1.5ms", 1500 * us},  //
		{"1m", 60 * s1},       //
		{"2h", 7200 * s1},     //
		{"1d", 86400 * s1},    // a day
		{"1d1h", 90000 * s1},  //
		{"1h30m", 5400 * s1},  // a sum
		{"1.1m", 66 * s1},     // exact: 1.1·60 s
		{"250us", 250 * us},   //
		{"250µs", 250 * us},   // U+00B5
		{"250μs", 250 * us},   // U+03BC
		{"3ns", 3},            //
		{"-1m30s", -90 * s1},  // a signed sum
		{"+5s", 5 * s1},       //
		{".5s", 500 * ms},     // Go accepts a leading point
		{"2e3ms", 2 * s1},     // an exponent before a unit
		{"inf", Forever},      // infinity, refused by callers where it means nothing
		{"never", Forever},    //
		{"2562047h47m16.854775806s", math.MaxInt64 - 1},
		{"9223372036.854775806", math.MaxInt64 - 1},
	} {
		got, err := ParseDuration(tc.s)
		if err != nil || got != tc.want {
			t.Errorf("ParseDuration(%q) = %d, %v, want %d ns", tc.s, got, err, tc.want)
		}
		// Where Go reads it too, it agrees.
		if d, err := time.ParseDuration(tc.s); err == nil && got != Time(d) {
			t.Errorf("time.ParseDuration(%q) = %d, ParseDuration %d", tc.s, d, got)
		}
	}
	for _, tc := range []struct{ s, want string }{
		{"", "empty"},
		{"  ", "empty"},
		{"1.5ns", "finer than 1 ns: 1ns or 2ns fit"},                 // 1.5 ns lies between 1 and 2
		{"0.0000000001", "finer than 1 ns: 0s or 1ns fit"},           // 0.1 ns
		{"1/3", "finer than 1 ns: 333.333333ms or 333.333334ms fit"}, // 333333333.3 ns
		{"1/3ms", "finer than 1 ns: 333.333µs or 333.334µs fit"},     // 333333.3 ns
		{"-1.5ns", "finer than 1 ns: -2ns or -1ns fit"},
		{"1 0s", `the number 1 has no unit`},
		{"1x", `has no unit`},
		{"m", `want a number at "m"`},
		{".s", `"." is not a decimal or a fraction`},
		{"1..2s", `"1..2" is not a decimal or a fraction`},
		{"1/0", `"1/0" is not a decimal or a fraction`},
		{"1/2/3", `"1/2/3" is not a decimal or a fraction`},
		{"-", "no number after the sign"},
		{"1e999999999", "not a decimal"},
		{"1e41", "not a decimal"},
		{"-inf", "negative infinity"},
		{"9223372036.854775807", "beyond the range"}, // Forever itself means inf
		{"9223372037", "beyond the range"},
		{"2562048h", "beyond the range"},
		{"Inf", `want a number at "Inf"`},
		{"1h x", `want a number at "x"`},
	} {
		_, err := ParseDuration(tc.s)
		var de *DurationError
		if !errors.As(err, &de) || !errors.Is(err, ErrDuration) || de.Text != tc.s || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDuration(%q) error = %v, want a *DurationError containing %q", tc.s, err, tc.want)
		}
	}
}

// TestParseSecondsExact checks that the seconds form keeps fractions that
// are not whole nanoseconds, for the parameters that are exact rationals
// (a window of 1/3 s).
func TestParseSecondsExact(t *testing.T) {
	for _, tc := range []struct{ s, want string }{
		{"1/3", "1/3"},
		{"1/3m", "20"},    // 60/3 s
		{"1h30m", "5400"}, //
		{"2/3 s", "2/3"},  //
		{"1.5ns", "3/2000000000"},
	} {
		got, inf, err := ParseSeconds(tc.s)
		if err != nil || inf || got.RatString() != tc.want {
			t.Errorf("ParseSeconds(%q) = %v, %v, %v, want %s", tc.s, got, inf, err, tc.want)
		}
	}
}

// FuzzParseDuration checks the grammar against Go's time.ParseDuration
// and against itself: whatever both accept is the same number of
// nanoseconds; ParseDuration is ParseSeconds times 1e9 when that is whole;
// a value finer than 1 ns names its floor and ceiling, which parse back to
// themselves and bracket it; every error is a *DurationError naming the
// text.
func FuzzParseDuration(f *testing.F) {
	for _, s := range []string{"0.1", "1.5s", "1h30m", "-2m", "250µs", "1e-3", "9223372036.854775806", "1.5ns", "2562048h", ".s", "1e99999", "1/3", "2 s", "1d", "inf", "1/0", "1 0s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDuration(s)
		secs, inf, serr := ParseSeconds(s)
		if err != nil {
			var de *DurationError
			if !errors.As(err, &de) || de.Text != s || !errors.Is(err, ErrDuration) {
				t.Fatalf("ParseDuration(%q) error %v is not a *DurationError naming the text", s, err)
			}
			if serr == nil && !inf && strings.HasPrefix(de.Why, "finer than 1 ns: ") {
				lo, hi, ok := strings.Cut(strings.TrimSuffix(strings.TrimPrefix(de.Why, "finer than 1 ns: "), " fit"), " or ")
				a, err1 := ParseDuration(lo)
				b, err2 := ParseDuration(hi)
				ns := new(big.Rat).Mul(secs, big.NewRat(1e9, 1))
				if !ok || err1 != nil || err2 != nil || b != a+1 || new(big.Rat).SetInt64(int64(a)).Cmp(ns) >= 0 || new(big.Rat).SetInt64(int64(b)).Cmp(ns) <= 0 {
					t.Fatalf("ParseDuration(%q): %q does not bracket %v ns", s, de.Why, ns)
				}
			}
			return
		}
		if serr != nil {
			t.Fatalf("ParseDuration(%q) = %d but ParseSeconds fails: %v", s, got, serr)
		}
		if inf != (got == Forever) {
			t.Fatalf("ParseDuration(%q) = %d, ParseSeconds inf = %v", s, got, inf)
		}
		if !inf {
			if ns := new(big.Rat).Mul(secs, big.NewRat(1e9, 1)); !ns.IsInt() || ns.Num().Int64() != int64(got) {
				t.Fatalf("ParseDuration(%q) = %d, ParseSeconds %v s", s, got, secs)
			}
			if back, err := ParseDuration(FormatDuration(got)); err != nil || back != got {
				t.Fatalf("ParseDuration(FormatDuration(%d)) = %d, %v", got, back, err)
			}
		}
		if want, werr := time.ParseDuration(s); werr == nil && Time(want) != got && want != math.MaxInt64 {
			t.Fatalf("ParseDuration(%q) = %d, time.ParseDuration = %d", s, got, want)
		}
	})
}
