package drl

import (
	"context"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
)

// BenchmarkDesigns runs each design on 10^6 Poisson jobs at 0.9 R with
// Zipf keys (1000 keys, s = 1.1) over N = 16 nodes, sync period 100 ms,
// and reports ns/job and, for the designs that send messages, ns/message
// (the run's time divided by its messages).
func BenchmarkDesigns(b *testing.B) {
	const jobs = 1_000_000
	for _, design := range Designs {
		b.Run(design, func(b *testing.B) {
			b.ReportAllocs()
			var msgs int64
			for range b.N {
				p, _ := arrivals.NewPoisson(0.9*1000*1000, rand.NewPCG(1, 1))
				z, _ := arrivals.NewZipf(1000, 1.1, rand.NewPCG(1, 2))
				s := Spec{Design: design, Bucket: params("1000", "160"), Nodes: 16, Dispatch: "hash", Seed: 1,
					RTT: Delay{A: 1e6}, SyncPeriod: 100 * engine.Time(1e6), BatchLimit: 1000, SyncDelay: Delay{A: 1e6}}
				r, err := Run(context.Background(), s, arrivals.WithZipfKeys(p, z), jobs)
				if err != nil {
					b.Fatal(err)
				}
				msgs = r.Messages
			}
			ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
			b.ReportMetric(ns/jobs, "ns/job")
			if msgs > 0 {
				b.ReportMetric(ns/float64(msgs), "ns/msg")
			}
		})
	}
}
