package splitstudy

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/specfile"
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
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, specfile.ErrSpec) && !strings.Contains(tc.yaml, "1/0") {
			t.Errorf("%q: error %v, want one containing %q", tc.yaml, err, tc.want)
		}
	}
}

// TestSweepAxisFractions sweeps rate over a fraction and a decimal: the
// fraction's point has the exact bucket, the decimal's its shortest
// decimal (7/2 is the decimal 3.5); labels, JSON and the YAML echo keep
// the fraction's text, and
// the spec reads back from its JSON and its YAML.
func TestSweepAxisFractions(t *testing.T) {
	s, err := ParseSpec(strings.NewReader("burst: 5\nsweep:\n  rate: [10/13, 0.7]\n  burst: [\"7/2\"]\n"), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Points()
	if err != nil || len(pts) != 2 {
		t.Fatalf("%d points, %v", len(pts), err)
	}
	for i, want := range [][2]string{{"10/13", "7/2"}, {"7/10", "7/2"}} {
		one, err := pts[i].One()
		if err != nil || one.Rate.Cmp(exact.MustParse(want[0])) != 0 || one.Burst.Cmp(exact.MustParse(want[1])) != 0 {
			t.Errorf("point %d: (%v, %v), %v; want (%s, %s)", i, one.Rate, one.Burst, err, want[0], want[1])
		}
	}
	if got := pointLabel(s.Sweep[0], []int{0, 0}); got != "rate=10/13 burst=3.5" {
		t.Errorf("label %q", got)
	}
	js, err := json.Marshal(s.Sweep)
	if err != nil || string(js) != `[{"rate":["10/13",0.7],"burst":[3.5]}]` {
		t.Errorf("JSON %s, %v", js, err)
	}
	var back Sweep
	if err := json.Unmarshal(js, &back); err != nil || !reflect.DeepEqual(back[0][0].Values, s.Sweep[0][0].Values) {
		t.Errorf("JSON reads back as %v, %v; want %v", back, err, s.Sweep)
	}
	echo, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	again, err := ParseSpec(strings.NewReader(string(echo)), "echo.yaml")
	if err != nil || !reflect.DeepEqual(again.Sweep[0][0].Values, s.Sweep[0][0].Values) || !reflect.DeepEqual(again.Sweep[0][1].Values, s.Sweep[0][1].Values) {
		t.Errorf("the echo\n%s reads back as %v, %v", echo, again, err)
	}
	if _, err := ParseSpec(strings.NewReader("sweep:\n  rate: [1/0]\n"), "s.yaml"); err == nil || !strings.Contains(err.Error(), "s.yaml:2") {
		t.Errorf("rate 1/0: %v, want an error naming line 2", err)
	}
}
