package experiments

import (
	"errors"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/exact"
)

// TestSpecExactRate reads rates and bursts given as fractions p/q, which a
// float64 cannot hold: the point's bucket is the fraction exactly, the
// float64 fields hold its nearest value, the YAML echo reads back to the
// same spec, and line numbers of later errors are unchanged.
func TestSpecExactRate(t *testing.T) {
	for _, tc := range []struct{ yaml, rate, burst string }{
		{"rate: 10/13\nburst: 5\n", "10/13", "5"},
		{"rate: \"10/13\"  # a quoted fraction\nburst: 7/2\n", "10/13", "7/2"},
		{"rate: 20/26\n", "10/13", "10"}, // reduced; burst is DefaultSpec's 10
		{"rate: 0.7\n", "7/10", "10"},    // a decimal stays a float64's shortest decimal
	} {
		s, err := ParseSpec(strings.NewReader(tc.yaml), "s.yaml")
		if err != nil {
			t.Fatalf("%q: %v", tc.yaml, err)
		}
		pts, err := s.Points()
		if err != nil {
			t.Fatal(err)
		}
		one, err := pts[0].One()
		if err != nil || one.Rate.Cmp(exact.MustParse(tc.rate)) != 0 || one.Burst.Cmp(exact.MustParse(tc.burst)) != 0 {
			t.Errorf("%q: one bucket (%v, %v), %v; want (%s, %s)", tc.yaml, one.Rate, one.Burst, err, tc.rate, tc.burst)
		}
		if want := exact.MustParse(tc.rate).Float64(); s.Rate != want {
			t.Errorf("%q: Rate = %v, want %v", tc.yaml, s.Rate, want)
		}
		echo, err := s.YAML()
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseSpec(strings.NewReader(string(echo)), "echo.yaml")
		if err != nil || back.RateExact != s.RateExact || back.BurstExact != s.BurstExact || back.Rate != s.Rate {
			t.Errorf("%q: the echo\n%s reads back as %+v, %v", tc.yaml, echo, back, err)
		}
	}
	for _, tc := range []struct{ yaml, want string }{
		{"rate: 10/13\nk: 0\n", "s.yaml:2: "},                                 // the line after a replaced fraction
		{"rate: 1/0\n", "s.yaml:1: "},                                         // not a number: the decoder's error, its line
		{"rate: -1/3\n", "s.yaml:1: "},                                        // refused as a rate <= 0
		{"rate: 1\nrate_exact: 1/3\n", "s.yaml:2: rate_exact: \"1/3\", want"}, // disagrees with rate
	} {
		_, err := ParseSpec(strings.NewReader(tc.yaml), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, ErrSpec) && !strings.Contains(tc.yaml, "1/0") {
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.want)
		}
	}
}
