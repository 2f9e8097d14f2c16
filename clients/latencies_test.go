package clients

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/internal/tailsketch"
)

// TestLatenciesSketched: past tailsketch.ExactValues latencies (set to 64
// here) a population keeps the zeros' count and a sketch, not the values.
// Against the exact figures of the same 10^5 latencies (a third of them
// 0, the others exponential with mean 1 s), computed here by sorting all
// of them: the count, the maximum and the mean (sum in the order added)
// are exact, the median is 0 when the zeros reach past it and the 99th
// percentile is within the sketch's relative accuracy 1%; the figures'
// sample is 2^16 values whose fraction of zeros is within 1/2^16 of the
// run's. Merging two halves gives the whole run's figures.
func TestLatenciesSketched(t *testing.T) {
	defer func(n int) { tailsketch.ExactValues = n }(tailsketch.ExactValues)
	tailsketch.ExactValues = 64
	r := rand.New(rand.NewPCG(1, 2))
	const n = 100_000
	xs := make([]float64, n)
	var whole, a, b latencies
	sum := 0.0
	for i := range xs {
		if i%3 != 0 {
			xs[i] = r.ExpFloat64()
		}
		sum += xs[i]
		whole.add(xs[i])
		if i < n/2 {
			a.add(xs[i])
		} else {
			b.add(xs[i])
		}
	}
	a.merge(&b)
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	for name, l := range map[string]*latencies{"whole": &whole, "merged": &a} {
		if l.exact != nil || l.sketch == nil || l.zeros != (n+2)/3 || l.len() != n {
			t.Fatalf("%s: %d exact values kept, %d zeros, %d in all; want none kept, %d zeros, %d", name, len(l.exact), l.zeros, l.len(), (n+2)/3, n)
		}
		mean, p50, p99, most := l.summary()
		if math.Abs(mean-sum/n) > 1e-12*sum/n || most != sorted[n-1] {
			t.Errorf("%s: mean %v, max %v; want %v, %v", name, mean, most, sum/n, sorted[n-1])
		}
		want50, want99 := quantile(sorted, 0.5), quantile(sorted, 0.99)
		if math.Abs(p50-want50) > 0.01*want50 || math.Abs(p99-want99) > 0.01*want99 {
			t.Errorf("%s: p50 %v, p99 %v; want %v, %v within 1%%", name, p50, p99, want50, want99)
		}
		sample := l.values()
		zeros := 0
		for _, x := range sample {
			if x == 0 {
				zeros++
			}
		}
		if len(sample) != sampleSize || math.Abs(float64(zeros)/sampleSize-float64(l.zeros)/n) > 1.0/sampleSize {
			t.Errorf("%s: sample of %d with %d zeros; want %d with a fraction %v", name, len(sample), zeros, sampleSize, float64(l.zeros)/n)
		}
	}
}
