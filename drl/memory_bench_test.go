package drl

import (
	"context"
	"math/rand/v2"
	"runtime"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/memprobe"
	"github.com/ratesim/ratesim/internal/tailsketch"
)

// BenchmarkDesignsMemory measures each design's peak reachable heap
// (memprobe: a checkpoint every 5% of the jobs and one after Summarize)
// at 10^5 and 10^6 jobs of BenchmarkDesigns's configuration (Poisson at
// 0.9 R, Zipf keys (s = 1.1), 16 nodes, round trips of 1 ms, so that every job
// a remote design admits has a delay) but at 900 jobs/s instead of 900 000
// (R = 1000/s), so that the runs last 111 s and 1111 s, far longer than
// the longest length of the arrival curves, 4·B/R = 0.64 s, whose
// departures each key keeps) and with 100 keys instead of 1000, so that
// every key has its streaming state (about 1.2 KB: a key keeps its first
// 128 instants as a list, see listMax) by 10^5 jobs: state per key that
// exists is allowed, per job is not. The buckets police (reject) instead
// of shaping: a shaping node that hashing overloads (static here) holds a
// backlog of departures that grows with time, the state of an unstable
// queue, not of the measurement. With -benchtime=1x; it reports
// both, the growth per job (B/job) and the ratio. The delays are kept
// exactly up to tailsketch.ExactValues and sketched beyond; the benchmark
// lowers that bound to 2^12 so that both sizes are beyond it.
//
// What remains per job is Admits, one bit per job for Compare (0.125 B,
// up to 0.16 with the slice's growth), and the slow growth of each key's
// buffer of departures within 4·B/R, whose capacity follows the largest
// α*(4·B/R) seen (a Poisson maximum, growing like the log of the run's
// length): the peak grows about 1.5× from 10^5 to 10^6 jobs here, by about
// 0.3 B per job. It fails above 0.5 B per job (the delays alone were 8 B
// per delayed job, the departures another 8 with KeepDepartures).
func BenchmarkDesignsMemory(b *testing.B) {
	defer func(n int) { tailsketch.ExactValues = n }(tailsketch.ExactValues)
	tailsketch.ExactValues = 1 << 12
	sizes := [2]int64{100_000, 1_000_000}
	for _, design := range Designs {
		b.Run(design, func(b *testing.B) {
			var peaks [2]uint64
			for range b.N {
				for i, n := range sizes {
					var pr memprobe.Probe
					pr.Start()
					p, _ := arrivals.NewPoisson(0.9*1000, rand.NewPCG(1, 1))
					z, _ := arrivals.NewZipf(100, 1.1, rand.NewPCG(1, 2))
					s := Spec{Design: design, Bucket: params("1000", "160"), Nodes: 16, Dispatch: "hash", Seed: 1, Police: true,
						Store:  StoreParams{RTT: Delay{A: 1e6}},
						Sync:   SyncParams{Period: 100 * engine.Time(1e6), BatchLimit: 1000, Delay: Delay{A: 1e6}},
						Demand: DemandParams{EstimateInterval: 100 * engine.Time(1e6), Smoothing: 0.5},
					}
					r, err := Run(context.Background(), s, memprobe.Process(arrivals.WithZipfKeys(p, z), &pr, n/20), n)
					if err != nil {
						b.Fatal(err)
					}
					sum, err := Summarize(r, s.Bucket, nil, 0)
					if err != nil {
						b.Fatal(err)
					}
					pr.Check()
					runtime.KeepAlive(r)
					runtime.KeepAlive(sum)
					pk, _ := pr.Peak()
					peaks[i] = max(peaks[i], pk)
				}
			}
			ratio := float64(peaks[1]) / float64(max(1, peaks[0]))
			perJob := (float64(peaks[1]) - float64(peaks[0])) / float64(sizes[1]-sizes[0])
			b.ReportMetric(float64(peaks[0]), "peak-B@1e5")
			b.ReportMetric(float64(peaks[1]), "peak-B@1e6")
			b.ReportMetric(perJob, "B/job")
			b.ReportMetric(ratio, "ratio")
			if perJob > 0.5 {
				b.Errorf("the peak heap grows %.3g× from %d to %d jobs (%.3g B per job), want at most 0.5 B per job", ratio, sizes[0], sizes[1], perJob)
			}
		})
	}
}
