package experiments

import (
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
