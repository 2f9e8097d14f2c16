package drl

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
)

// BenchmarkDesigns runs each design on 10^6 Poisson jobs at 0.9 R with
// Zipf keys (1000 keys, s = 1.1) over N = 16 nodes, sync period and
// estimate interval 100 ms, round trips and messages 1 ms, shaping
// (sync, Gubernator, polices), and summarizes them (the arrival curves), and reports ns/job and the messages sent per job.
func BenchmarkDesigns(b *testing.B) {
	const jobs = 1_000_000
	for _, design := range Designs {
		b.Run(design, func(b *testing.B) {
			b.ReportAllocs()
			var msgs int64
			for range b.N {
				p, _ := arrivals.NewPoisson(0.9*1000*1000, rand.NewPCG(1, 1))
				z, _ := arrivals.NewZipf(1000, 1.1, rand.NewPCG(1, 2))
				s := Spec{Design: design, Bucket: params("1000", "160"), Nodes: 16, Dispatch: "hash", Seed: 1, Police: design == "sync",
					Store:  StoreParams{RTT: Delay{A: 1e6}},
					Sync:   SyncParams{Period: 100 * engine.Time(1e6), BatchLimit: 1000, Delay: Delay{A: 1e6}},
					Demand: DemandParams{EstimateInterval: 100 * engine.Time(1e6), Smoothing: 0.5},
				}
				r, err := Run(context.Background(), s, arrivals.WithZipfKeys(p, z), jobs)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := Summarize(r, s.Bucket, nil, 0); err != nil {
					b.Fatal(err)
				}
				msgs = r.Messages
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns/jobs, "ns/job")
			b.ReportMetric(float64(msgs)/jobs, "msgs/job")
		})
	}
}

// BenchmarkFleet runs sync, grd and fps alone (no summary) at the fleet
// sizes of issue 26: N up to 10^4 nodes and K up to 10^6 Zipf keys (s =
// 1.1), hash dispatch, Poisson jobs at 0.9 R, R = 1000/s per key (100/s
// in the exchange-bound cases) and B = 160, sync period and estimate interval 100 ms, messages 1 ms; it
// reports ns/job (the work of the design per job at that N and K).
func BenchmarkFleet(b *testing.B) {
	cases := []struct {
		design string
		n, k   int
		jobs   int64
		rate   string // R per key, tokens/s: 100 makes a long run (10^4 jobs over 111 s) of idle (key, node) pairs, exchange-bound
	}{
		{"sync", 16, 1_000, 1_000_000, "1000"},
		{"sync", 10_000, 1_000, 200_000, "1000"},
		{"sync", 16, 1_000_000, 1_000_000, "1000"},
		{"sync", 10_000, 1_000_000, 200_000, "1000"},
		{"grd", 16, 1_000_000, 1_000_000, "1000"},
		{"fps", 16, 1_000_000, 1_000_000, "1000"},
		{"grd", 10_000, 1_000, 200_000, "1000"},
		{"fps", 10_000, 1_000, 200_000, "1000"},
		{"grd", 16, 1_000, 10_000, "100"},
		{"fps", 16, 1_000, 10_000, "100"},
	}
	for _, c := range cases {
		b.Run(fmt.Sprintf("%s/N=%d/K=%d/R=%s", c.design, c.n, c.k, c.rate), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				p, _ := arrivals.NewPoisson(0.9*1000*1000, rand.NewPCG(1, 1))
				if c.rate == "100" {
					p, _ = arrivals.NewPoisson(0.9*100, rand.NewPCG(1, 1))
				}
				z, _ := arrivals.NewZipf(uint64(c.k), 1.1, rand.NewPCG(1, 2))
				s := Spec{Design: c.design, Bucket: params(c.rate, "160"), Nodes: c.n, Dispatch: "hash", Seed: 1,
					Store:  StoreParams{RTT: Delay{A: 1e6}},
					Sync:   SyncParams{Period: 100 * engine.Time(1e6), BatchLimit: 1000, Delay: Delay{A: 1e6}},
					Demand: DemandParams{EstimateInterval: 100 * engine.Time(1e6), Smoothing: 0.5},
				}
				if _, err := Run(context.Background(), s, arrivals.WithZipfKeys(p, z), c.jobs); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(c.jobs), "ns/job")
		})
	}
}
