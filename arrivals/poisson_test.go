package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
)

// TestPoissonMoments checks the empirical rate and the squared coefficient
// of variation (SCV) of the gaps of a Poisson process.
func TestPoissonMoments(t *testing.T) {
	const (
		rate = 2.5 // jobs/s
		n    = 1_000_000
		// With n exponential gaps, the relative standard error of the mean
		// gap (and so of the rate n/T_n) is 1/sqrt(n) = 1e-3. By the delta
		// method the SCV estimate s²/m² has variance
		// (μ4 - σ⁴ + 4σ²μ² - 4μ·μ3)/(n·μ⁴) = (9 - 1 + 4 - 8)/n = 4/n for the
		// exponential (μ = σ = 1, μ3 = 2, μ4 = 9 in units of 1/rate), a
		// standard error of 2e-3. Both tolerances are 5 standard errors,
		// so a correct generator fails with probability below 1e-6.
		tolRate = 5e-3 // relative
		tolSCV  = 1e-2 // absolute
	)
	p, err := NewPoisson(rate, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	var prev, sum, sumSq float64
	for i := range n {
		a, err := p.Next()
		if err != nil {
			t.Fatalf("Next %d: %v", i, err)
		}
		if a.Sub != -1 || a.Key != 0 || a.Line != 0 {
			t.Fatalf("arrival %d = %+v, want Key 0, Sub -1, Line 0", i, a)
		}
		g := a.T.Seconds() - prev
		if g < 0 {
			t.Fatalf("arrival %d at %v is before the previous one at %v", i, a.T, prev)
		}
		prev = a.T.Seconds()
		sum += g
		sumSq += g * g
	}
	gotRate := n / prev
	if math.Abs(gotRate/rate-1) > tolRate {
		t.Errorf("empirical rate = %g jobs/s, want %g within %g relative", gotRate, rate, tolRate)
	}
	mean := sum / n
	variance := sumSq/n - mean*mean
	if scv := variance / (mean * mean); math.Abs(scv-1) > tolSCV {
		t.Errorf("SCV of gaps = %g, want 1 within %g", scv, tolSCV)
	}
}

// TestPoissonFirstArrival checks that the first arrival is at the first
// gap, not at 0.
func TestPoissonFirstArrival(t *testing.T) {
	p, err := NewPoisson(1, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.Next()
	if err != nil {
		t.Fatal(err)
	}
	if !(a.T > 0) {
		t.Errorf("first arrival T = %v, want > 0 (the first gap)", a.T)
	}
}

func TestNewPoissonInvalid(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		want string
	}{
		{0, "rate 0 "},
		{-1, "rate -1 "},
		{math.NaN(), "rate NaN "},
		{math.Inf(1), "rate +Inf "},
		{math.Inf(-1), "rate -Inf "},
	} {
		_, err := NewPoisson(tc.rate, rand.NewPCG(1, 1))
		if err == nil {
			t.Errorf("NewPoisson(%g) error = nil, want one containing %q", tc.rate, tc.want)
			continue
		}
		if got := err.Error(); !strings.HasPrefix(got, "arrivals: ") || !strings.Contains(got, tc.want) {
			t.Errorf("NewPoisson(%g) error = %q, want prefix \"arrivals: \" and %q", tc.rate, got, tc.want)
		}
	}
	if _, err := NewPoisson(1, nil); err == nil {
		t.Errorf("NewPoisson(1, nil) error = nil, want an error about the nil source")
	}
}

// BenchmarkPoisson measures one Poisson arrival; it must not allocate.
func BenchmarkPoisson(b *testing.B) {
	p, err := NewPoisson(1000, rand.NewPCG(1, 1))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Next(); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPoissonNoAlloc guards the allocation-free hot path.
func TestPoissonNoAlloc(t *testing.T) {
	p, err := NewPoisson(1000, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	if got := testing.AllocsPerRun(1000, func() { p.Next() }); got != 0 {
		t.Errorf("allocations per Poisson Next = %v, want 0", got)
	}
}

// TestPoissonSameDrawsAsGonum: the gaps are the draws gonum's
// distuv.Exponential makes from the same source, so seeds give the same
// arrivals as before the change that keeps one rand.Rand.
func TestPoissonSameDrawsAsGonum(t *testing.T) {
	p, err := NewPoisson(0.9, rand.NewPCG(7, 0))
	if err != nil {
		t.Fatal(err)
	}
	g := distuv.Exponential{Rate: 0.9, Src: rand.NewPCG(7, 0)}
	var at engine.Time
	for i := range 1000 {
		gap, _ := engine.FromSeconds(g.Rand())
		at += gap
		a, err := p.Next()
		if err != nil || a.T != at {
			t.Fatalf("arrival %d at %v (%v), gonum's draws give %v", i, a.T, err, at)
		}
	}
}
