package clients

import (
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// BenchmarkRun runs 100000 Poisson requests at 90/s with full-jitter
// retries against a policing bucket (20 tokens, 100/s) and a downstream
// server at 120 jobs/s with a buffer of 20, and reports the cost per
// request.
func BenchmarkRun(b *testing.B) {
	const n = 100000
	b.ReportAllocs()
	for b.Loop() {
		r := rand.New(rand.NewPCG(1, 1))
		arrivals := func(yield func(engine.Time) bool) {
			var t engine.Time
			for range n {
				d, _ := engine.FromSeconds(r.ExpFloat64() / 90)
				t += d
				if !yield(t) {
					return
				}
			}
		}
		_, err := Run(Scenario{
			Arrivals: arrivals,
			Retry:    RetryPolicy{Backoff: FullJitter{Base: ms(10), Cap: ms(1000)}},
			Server:   &ServerParams{Rate: exact.Int(120), Buffer: 20},
		}, newPolicer(ms(10), 20))
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/n, "ns/request")
}
