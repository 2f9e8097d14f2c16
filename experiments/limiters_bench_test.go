package experiments

import (
	"context"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
)

// BenchmarkRunLimiters runs the eight limiters on 10^5 Poisson arrivals at
// load 1.2 (L = 100 per 60 s), with α* at the 74 default lengths, and
// reports ns per arrival (all limiters together) and the allocations.
func BenchmarkRunLimiters(b *testing.B) {
	const jobs = 100_000
	spec := LimitersSpec{Rate: 100.0 / 60, Limit: 100, Window: 60, Queue: 100, Soft: 49.5, Hard: 99, MaxJobs: jobs}
	b.ReportAllocs()
	for b.Loop() {
		proc, err := arrivals.NewPoisson(1.2*spec.Rate, Source(1, StreamArrivals))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := RunLimiters(context.Background(), spec, proc); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/jobs, "ns/job")
}
