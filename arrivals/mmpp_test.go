package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestMMPPStationary compares NewMMPP's stationary distribution (a linear
// solve) with the test's power iteration on the uniformized chain, for a
// 2-state chain whose π is known by hand and a 3-state one.
func TestMMPPStationary(t *testing.T) {
	// Sojourns 10 s and 40 s: π = (10, 40)/50 = (0.2, 0.8), mean rate
	// 0.2·4 + 0.8·0.2 = 0.96 jobs/s.
	q2 := [][]float64{{0, 0.1}, {0.025, 0}}
	m, err := NewMMPP([]float64{4, 0.2}, q2, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	pi := m.Stationary()
	if math.Abs(pi[0]-0.2) > 1e-12 || math.Abs(pi[1]-0.8) > 1e-12 || math.Abs(m.MeanRate()-0.96) > 1e-12 {
		t.Errorf("π = %v, mean rate %v; want (0.2, 0.8) and 0.96 jobs/s", pi, m.MeanRate())
	}
	q3 := [][]float64{{-9, 0.5, 0.25}, {1, 0, 1}, {0.1, 0.4, 123}} // diagonals ignored
	m3, err := NewMMPP([]float64{5, 1, 0}, q3, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	want, rate, _, _ := mapMoments([]float64{5, 1, 0}, q3)
	for i, p := range m3.Stationary() {
		if math.Abs(p-want[i]) > 1e-9 {
			t.Errorf("3-state π[%d] = %v, power iteration gives %v", i, p, want[i])
		}
	}
	if math.Abs(m3.MeanRate()-rate) > 1e-9 {
		t.Errorf("3-state mean rate %v, want %v", m3.MeanRate(), rate)
	}
}

// TestMMPPMoments draws n arrivals of a 2-state and a 3-state MMPP and
// checks the empirical mean rate against πλ and the gap SCV against the
// MAP formula, both computed in the test (mapMoments). The arrivals are
// correlated through the state, so the intervals are batch means: 20
// batches (of time for the rate, of consecutive gaps for the SCV), each
// thousands of times longer than the chain's mixing time (about 8 s and
// 1 s here), with a two-sided 99.9% t interval (t = 3.883 for 19 degrees
// of freedom) widened to 4.5 standard errors.
func TestMMPPMoments(t *testing.T) {
	n := 1_000_000
	if testing.Short() {
		n = 200_000
	}
	for _, tc := range []struct {
		name   string
		lambda []float64
		q      [][]float64
	}{
		{"2-state", []float64{4, 0.2}, [][]float64{{0, 0.1}, {0.025, 0}}},
		{"3-state", []float64{5, 1, 0}, [][]float64{{0, 0.5, 0.25}, {1, 0, 1}, {0.1, 0.4, 0}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m, err := NewMMPP(tc.lambda, tc.q, rand.NewPCG(3, 9))
			if err != nil {
				t.Fatal(err)
			}
			_, rate, _, scv := mapMoments(tc.lambda, tc.q)
			ts := drawTimes(t, m, n)
			mean := func(xs []float64) float64 {
				s := 0.0
				for _, x := range xs {
					s += x
				}
				return s / float64(len(xs))
			}
			got, se := batchMeansSE(rateCounts(ts, 20), 20, mean)
			t.Logf("rate %v want %v se %v", got, rate, se)
			if math.Abs(got-rate) > 4.5*se {
				t.Errorf("mean rate %v jobs/s, want πλ = %v within 4.5 SE (%.3g)", got, rate, 4.5*se)
			}
			gotSCV, se := batchMeansSE(gapsOf(ts), 20, sampleSCV)
			t.Logf("scv %v want %v se %v", gotSCV, scv, se)
			if math.Abs(gotSCV-scv) > 4.5*se {
				t.Errorf("gap SCV %v, want %v (MAP formula) within 4.5 SE (%.3g)", gotSCV, scv, 4.5*se)
			}
		})
	}
}

func TestNewMMPPInvalid(t *testing.T) {
	src := rand.NewPCG(1, 1)
	for _, tc := range []struct {
		lambda []float64
		q      [][]float64
		want   string
	}{
		{nil, nil, "0 states"},
		{[]float64{1, 2}, [][]float64{{0, 1}}, "1 rows"},
		{[]float64{1, 2}, [][]float64{{0, 1}, {1}}, "row 1 has 1 entries"},
		{[]float64{-1, 2}, [][]float64{{0, 1}, {1, 0}}, "rate -1 "},
		{[]float64{0, 0}, [][]float64{{0, 1}, {1, 0}}, "all 0"},
		{[]float64{1, 2}, [][]float64{{0, -1}, {1, 0}}, "jump rate -1 "},
		{[]float64{1, 2}, [][]float64{{0, math.Inf(1)}, {1, 0}}, "jump rate +Inf"},
		{[]float64{1, 2}, [][]float64{{0, 1}, {0, 0}}, "reducible"},
		{[]float64{1, 2, 3}, [][]float64{{0, 1, 0}, {1, 0, 0}, {0, 0, 0}}, "reducible"},
	} {
		_, err := NewMMPP(tc.lambda, tc.q, src)
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: MMPP") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewMMPP(%v, %v) error = %v, want one containing %q", tc.lambda, tc.q, err, tc.want)
		}
	}
	if _, err := NewMMPP([]float64{1}, [][]float64{{0}}, nil); err == nil {
		t.Error("NewMMPP with a nil source: error = nil")
	}
	// One state is a Poisson process.
	m, err := NewMMPP([]float64{2}, [][]float64{{0}}, rand.NewPCG(1, 1))
	if err != nil || m.MeanRate() != 2 {
		t.Errorf("1-state MMPP: %v, mean rate %v; want 2", err, m.MeanRate())
	}
}
