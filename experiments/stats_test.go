package experiments

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/exact"
)

// TestQuantilesAgainstSort: nearest-rank quantiles by selection equal the
// ceil(q·n)-th smallest of a sorted copy, on random delays with many ties
// and zeros.
func TestQuantilesAgainstSort(t *testing.T) {
	src := rand.New(rand.NewPCG(5, 5))
	for range 300 {
		n := 1 + src.IntN(500)
		st := newDelayStats()
		var all []float64
		for range n {
			w := int64(0)
			if src.IntN(3) > 0 {
				w = int64(src.IntN(20)) * 1e8 // many ties, multiples of 0.1 s
			}
			st.add(exact.Int(w))
			all = append(all, float64(w)/1e9)
		}
		slices.Sort(all)
		for _, pm := range []int64{1, 500, 900, 990, 999, 1000} {
			// ceil(pm·n/1000), 1-based.
			r := (pm*int64(n) + 999) / 1000
			want := all[max(r, 1)-1]
			got := st.quantiles(pm)[0]
			if got != want {
				t.Fatalf("n = %d: quantile %d/1000 = %v, want %v (sorted %v)", n, pm, got, want, all)
			}
		}
		// Increasing ranks in one call, as stats() asks.
		q := st.quantiles(500, 900, 990, 999)
		for i, pm := range []int64{500, 900, 990, 999} {
			if q[i] != all[max((pm*int64(n)+999)/1000, 1)-1] {
				t.Fatalf("n = %d: joint quantile %d wrong", n, pm)
			}
		}
	}
}

// TestHistogramQuantiles: beyond ExactQuantileJobs delayed jobs, a run's
// quantiles come from the log-linear histogram within histogramAccuracy
// of the exact nearest-rank values (sorted here), the maximum, total and
// counts stay exact, and the label says so.
func TestHistogramQuantiles(t *testing.T) {
	src := rand.New(rand.NewPCG(26, 4))
	st := NewRunDelayStats()
	st.SetDen(1)
	n := ExactQuantileJobs*4/3 + 300_000
	ws := make([]int64, n)
	var sum exact.Int128
	for i := range ws {
		if src.IntN(4) > 0 {
			ws[i] = int64(math.Exp(src.Float64()*40)) + 1 // 1 ns to 7 years, log-uniform
			sum = sum.Add64(ws[i])
		}
	}
	for b := 0; b < n; b += 1000 {
		st.AddUnitsBatch(ws[b:min(n, b+1000)], 1)
	}
	s, _ := st.Stats()
	if s.Quantiles != "log-linear histogram, relative accuracy 0.00390625" {
		t.Errorf("quantiles %q", s.Quantiles)
	}
	sorted := slices.Clone(ws)
	slices.Sort(sorted)
	for _, c := range []struct {
		permille int64
		got      float64
	}{{500, s.P50}, {900, s.P90}, {990, s.P99}, {999, s.P999}} {
		want := float64(sorted[rank(c.permille, int64(n))-1]) / 1e9
		if math.Abs(c.got-want) > want*histogramAccuracy {
			t.Errorf("p%d = %v s, exact %v s: beyond %g relative", c.permille, c.got, want, histogramAccuracy)
		}
	}
	if want := float64(sorted[n-1]) / 1e9; s.Max != want {
		t.Errorf("max %v, want %v", s.Max, want)
	}
	if total := exact.Frac(sum, 1).QuoFloat64(1e9); s.Total != total {
		t.Errorf("total %v, want %v", s.Total, total)
	}
	if s.Jobs != int64(n) || s.Delayed != int64(n-slices.IndexFunc(sorted, func(w int64) bool { return w > 0 })) {
		t.Errorf("jobs %d delayed %d", s.Jobs, s.Delayed)
	}
}
