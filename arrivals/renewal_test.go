package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
)

// constGap is a Rander returning fixed gaps in turn, for exact tests.
type constGap struct {
	gaps []float64
	i    int
}

func (c *constGap) Rand() float64 {
	g := c.gaps[c.i%len(c.gaps)]
	c.i++
	return g
}

func TestRenewalSteps(t *testing.T) {
	r, err := NewRenewal(&constGap{gaps: []float64{0.5, 0, 1.25}})
	if err != nil {
		t.Fatal(err)
	}
	// Each T is the previous T plus the gap, in ns.
	const ms = engine.Millisecond
	for i, want := range []engine.Time{
		500 * ms,  // first arrival at the first gap
		500 * ms,  // gap 0: a tie
		1750 * ms, // 0.5 + 1.25 s
		2250 * ms, // + 0.5 s
	} {
		a, err := r.Next()
		if err != nil {
			t.Fatalf("step %d: Next error %v", i, err)
		}
		if a.T != want || a.Sub != -1 || a.Key != 0 || a.Line != 0 {
			t.Errorf("step %d: Next() = %+v, want T %v, Sub -1, Key 0, Line 0", i, a, want)
		}
	}
}

func TestRenewalBadGap(t *testing.T) {
	for _, g := range []float64{-1, math.NaN()} {
		r, _ := NewRenewal(&constGap{gaps: []float64{1, g, 2}})
		r.Next()
		_, err := r.Next()
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: ") {
			t.Fatalf("gap %g: error = %v, want an arrivals: error", g, err)
		}
		// The failed Next left the time unchanged: 1 + 2 s.
		a, err := r.Next()
		if err != nil || a.T != 3*engine.Second {
			t.Errorf("gap %g: Next after the error = %+v, %v, want T 3 s", g, a, err)
		}
	}
	// 5e9 s fits (5e18 ns); a second such gap does not (1e19 > 2^63 - 1).
	r, _ := NewRenewal(&constGap{gaps: []float64{5e9}})
	r.Next()
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "beyond the range of engine.Time") {
		t.Errorf("overflowing renewal: error = %v, want one beyond the range of engine.Time", err)
	}
	r, _ = NewRenewal(&constGap{gaps: []float64{math.MaxFloat64}})
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "beyond the range") {
		t.Errorf("gap MaxFloat64: error = %v, want one beyond the range", err)
	}
}

// TestRenewalRounding: each gap is rounded to the nearest nanosecond once
// and added exactly. 0.1 s is 100000000 ns, so after a million gaps T is
// exactly 100000 s, where a float64 sum of 0.1 drifts by about 1.3 µs;
// gaps of 0.4 ns round to 0 (ties) and 1.5 ns away from zero to 2 ns.
func TestRenewalRounding(t *testing.T) {
	r, _ := NewRenewal(&constGap{gaps: []float64{0.1}})
	var a Arrival
	for range 1_000_000 {
		a, _ = r.Next()
	}
	if a.T != 100_000*engine.Second {
		t.Errorf("after 1e6 gaps of 0.1 s: T = %d ns, want 1e14 ns exactly", a.T)
	}
	r, _ = NewRenewal(&constGap{gaps: []float64{0.4e-9, 0.4e-9, 1.5e-9}})
	for i, want := range []engine.Time{0, 0, 2, 2, 2, 4} {
		if a, _ := r.Next(); a.T != want {
			t.Errorf("arrival %d at %d ns, want %d ns", i, a.T, want)
		}
	}
}

func TestNewRenewalNil(t *testing.T) {
	if _, err := NewRenewal(nil); err == nil {
		t.Error("NewRenewal(nil) error = nil, want an error")
	}
}

// TestRenewalUniformMean checks a non-exponential gonum distribution.
func TestRenewalUniformMean(t *testing.T) {
	const n = 100_000
	r, _ := NewRenewal(distuv.Uniform{Min: 0, Max: 2, Src: rand.NewPCG(1, 1)})
	var a Arrival
	for range n {
		a, _ = r.Next()
	}
	// Mean gap 1 s, standard deviation 1/sqrt(3) s, so T_n/n has standard
	// error 0.577/sqrt(1e5) = 1.8e-3; 1e-2 is over 5 standard errors.
	if got := a.T.Seconds() / n; math.Abs(got-1) > 1e-2 {
		t.Errorf("mean uniform gap = %g s, want 1 within 1e-2", got)
	}
}
