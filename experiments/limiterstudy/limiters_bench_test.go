package limiterstudy

import (
	"context"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// BenchmarkRunLimiters runs the eight limiters on 10^5 Poisson arrivals at
// load 1.2 (L = 100 per 60 s), with α* at the 74 default lengths, and
// reports ns per arrival (all limiters together) and the allocations.
func BenchmarkRunLimiters(b *testing.B) {
	const jobs = 100_000
	spec := testLimitersSpec()
	spec.MaxJobs = jobs
	b.ReportAllocs()
	for b.Loop() {
		proc, err := arrivals.NewPoisson(1.2*spec.Rate.Float64(), experiments.Source(1, systems.StreamArrivals))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := RunLimiters(context.Background(), spec, proc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/jobs, "ns/job")
}
