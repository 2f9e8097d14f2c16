package experiments

import (
	"fmt"
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"

	"github.com/ratesim/ratesim/internal/compensated"
)

// RelativeAccuracy is the relative accuracy of the delay quantiles: a
// reported quantile q̂ of a true quantile q > 0 satisfies
// |q̂ - q| <= 0.01·q (DDSketch guarantee; Masson, Rim and Lee, "DDSketch: A
// Fast and Fully-Mergeable Quantile Sketch with Relative-Error Guarantees",
// VLDB 2019). Zero delays are counted exactly.
const RelativeAccuracy = 0.01

// Stats are the delay statistics of one system over a run, all in seconds
// except the counts.
type Stats struct {
	Jobs    int64   `json:"jobs"`         // jobs served
	Delayed int64   `json:"delayed_jobs"` // jobs that waited (delay > 0)
	Mean    float64 `json:"mean_delay_s"` // mean delay
	P50     float64 `json:"p50_delay_s"`  // median delay (DDSketch, 1% relative)
	P99     float64 `json:"p99_delay_s"`  // 99th percentile delay (DDSketch, 1% relative)
	// The q-quantile is the delay of 0-based rank floor(q·(n-1)) among the
	// n delays sorted in increasing order (DDSketch's definition).
	Max   float64 `json:"max_delay_s"`   // largest delay (exact)
	Total float64 `json:"total_delay_s"` // sum of delays (compensated sum)
}

// delayStats accumulates one system's delays in memory that does not grow
// with the number of jobs: a DDSketch for quantiles and exact count, sum
// and maximum.
type delayStats struct {
	err     error // the first delay the sketch could not take
	sketch  *ddsketch.DDSketch
	total   compensated.Sum[float64]
	n       int64
	delayed int64
	max     float64
}

func newDelayStats() *delayStats {
	// The cubically interpolated mapping avoids a logarithm per value at
	// the same accuracy guarantee as the logarithmic one.
	m, err := mapping.NewCubicallyInterpolatedMapping(RelativeAccuracy)
	if err != nil {
		panic(err) // RelativeAccuracy is a valid constant
	}
	return &delayStats{sketch: ddsketch.NewDDSketch(m, store.NewDenseStore(), store.NewDenseStore())}
}

func (s *delayStats) add(d float64) {
	s.n++
	if d > 0 {
		s.delayed++
		s.total.Add(d)
		s.max = math.Max(s.max, d)
	}
	// Add fails only for values the mapping cannot index (NaN, or beyond
	// about 1e307 s); the run reports it as an error at the end.
	if err := s.sketch.Add(d); err != nil && s.err == nil {
		s.err = fmt.Errorf("experiments: delay %v s cannot be kept in the quantile sketch: %w", d, err)
	}
}

func (s *delayStats) stats() Stats {
	st := Stats{Jobs: s.n, Delayed: s.delayed, Max: s.max, Total: s.total.Value()}
	if s.n == 0 {
		return st
	}
	st.Mean = st.Total / float64(s.n)
	if qs, err := s.sketch.GetValuesAtQuantiles([]float64{0.5, 0.99}); err == nil {
		// The sketch's estimate may exceed the exact maximum by up to the
		// relative accuracy; no quantile is larger than the maximum.
		st.P50, st.P99 = math.Min(qs[0], st.Max), math.Min(qs[1], st.Max)
	}
	return st
}
