package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
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
	// Each T is the previous T plus the gap; all sums are exact in binary.
	for i, want := range []float64{
		0.5,  // first arrival at the first gap
		0.5,  // gap 0: a tie
		1.75, // 0.5 + 1.25
		2.25, // + 0.5
	} {
		a, err := r.Next()
		if err != nil {
			t.Fatalf("step %d: Next error %v", i, err)
		}
		if float64(a.T) != want || a.Sub != -1 || a.Key != 0 || a.Line != 0 {
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
		// The failed Next left the time unchanged: 1 + 2.
		a, err := r.Next()
		if err != nil || a.T != 3 {
			t.Errorf("gap %g: Next after the error = %+v, %v, want T 3", g, a, err)
		}
	}
	r, _ := NewRenewal(&constGap{gaps: []float64{math.MaxFloat64}})
	r.Next()
	if _, err := r.Next(); err == nil || !strings.Contains(err.Error(), "+Inf") {
		t.Errorf("overflowing renewal: error = %v, want one mentioning +Inf", err)
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
	if got := float64(a.T) / n; math.Abs(got-1) > 1e-2 {
		t.Errorf("mean uniform gap = %g s, want 1 within 1e-2", got)
	}
}
