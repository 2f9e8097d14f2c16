package arrivals

import (
	"math"
	"strings"
	"testing"
)

func TestPeriodicExact(t *testing.T) {
	p, err := NewPeriodic(0.1, 0)
	if err != nil {
		t.Fatal(err)
	}
	for n := range 1_000_000 {
		a, err := p.Next()
		if err != nil {
			t.Fatal(err)
		}
		// One rounding of the exact n·0.1 (0.1 is the float64 literal).
		if want := float64(n) * 0.1; float64(a.T) != want {
			t.Fatalf("arrival %d: T = %v, want %v", n, a.T, want)
		}
		if a.Sub != -1 || a.Key != 0 || a.Line != 0 {
			t.Fatalf("arrival %d = %+v, want Key 0, Sub -1, Line 0", n, a)
		}
	}
}

func TestPeriodicOffset(t *testing.T) {
	p, err := NewPeriodic(0.25, 3)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{3, 3.25, 3.5, 3.75, 4} {
		a, _ := p.Next()
		if float64(a.T) != want {
			t.Errorf("step %d: T = %v, want %v", i, a.T, want)
		}
	}
}

func TestNewPeriodicInvalid(t *testing.T) {
	for _, tc := range []struct {
		spacing, offset float64
		want            string
	}{
		{0, 0, "spacing 0 "},
		{-1, 0, "spacing -1 "},
		{math.NaN(), 0, "spacing NaN "},
		{math.Inf(1), 0, "spacing +Inf "},
		{1, -1, "offset -1 "},
		{1, math.NaN(), "offset NaN "},
		{1, math.Inf(1), "offset +Inf "},
	} {
		_, err := NewPeriodic(tc.spacing, tc.offset)
		if err == nil {
			t.Errorf("NewPeriodic(%g, %g) error = nil, want one containing %q", tc.spacing, tc.offset, tc.want)
			continue
		}
		if got := err.Error(); !strings.HasPrefix(got, "arrivals: ") || !strings.Contains(got, tc.want) {
			t.Errorf("NewPeriodic(%g, %g) error = %q, want prefix \"arrivals: \" and %q", tc.spacing, tc.offset, got, tc.want)
		}
	}
}

func TestPeriodicOverflow(t *testing.T) {
	p, _ := NewPeriodic(math.MaxFloat64, 0)
	p.Next()
	p.Next()
	_, err := p.Next()
	if err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Fatalf("third arrival error = %v, want overflow to +Inf", err)
	}
	if _, err2 := p.Next(); err2 == nil {
		t.Errorf("Next after overflow error = nil, want the error again")
	}
}

func BenchmarkPeriodic(b *testing.B) {
	p, _ := NewPeriodic(1e-3, 0)
	b.ReportAllocs()
	for b.Loop() {
		p.Next()
	}
}
