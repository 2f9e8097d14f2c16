package limiterstudy

import (
	"context"
	"runtime"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/memprobe"
	"github.com/ratesim/ratesim/systems"
)

// memorySizes are the run lengths the memory benchmarks compare, jobs.
var memorySizes = [2]int64{100_000, 1_000_000}

// benchMemory measures run's peak reachable heap at each of memorySizes
// (memprobe: 20 checkpoints, one every 5% of the jobs, and one after the
// run with its result) and reports both, the growth per job between them
// (B/job) and their ratio; it fails when the ratio exceeds maxRatio (0:
// no limit). run must wrap its arrivals with memprobe.Process(proc, p,
// every) and return its result.
func benchMemory(b *testing.B, maxRatio float64, run func(jobs int64, p *memprobe.Probe, every int64) (any, error)) {
	var peaks [2]uint64
	for range b.N {
		for i, n := range memorySizes {
			var p memprobe.Probe
			p.Start()
			res, err := run(n, &p, n/20)
			if err != nil {
				b.Fatal(err)
			}
			p.Check()
			runtime.KeepAlive(res)
			pk, _ := p.Peak()
			peaks[i] = max(peaks[i], pk)
		}
	}
	ratio := float64(peaks[1]) / float64(max(1, peaks[0]))
	perJob := (float64(peaks[1]) - float64(peaks[0])) / float64(memorySizes[1]-memorySizes[0])
	b.ReportMetric(float64(peaks[0]), "peak-B@1e5")
	b.ReportMetric(float64(peaks[1]), "peak-B@1e6")
	b.ReportMetric(perJob, "B/job")
	b.ReportMetric(ratio, "ratio")
	if maxRatio > 0 && ratio > maxRatio {
		b.Errorf("the peak live heap grows %.3g× from %d to %d jobs (%.3g B per job), want at most %.3g×", ratio, memorySizes[0], memorySizes[1], perJob, maxRatio)
	}
}

// BenchmarkLimitersMemory runs the limiters on Poisson arrivals at load
// 1.2 (testLimitersSpec: L = 100 per 60 s, queues of 100, α* at the 74
// default lengths) for 10^5 and 10^6 jobs, with -benchtime=1x:
//
//   - policing: the limiters that delay nothing; nothing per job is kept,
//     so the peak live heap must stay within 1.1× (the releases within the
//     longest length, 4W, are at most α*(4W) <= 2L + R·4W per limiter);
//   - all: the eight limiters; a shaper keeps its positive delays exactly
//     for the quantiles up to ExactQuantileJobs of them (8 B each, 8 MiB
//     at most) and in a sketch beyond, as run does, so the heap grows
//     until then and no limit is asserted.
func BenchmarkLimitersMemory(b *testing.B) {
	var policing []string
	for _, n := range LimiterNames {
		if !familyDef(n).kind.shaper {
			policing = append(policing, n)
		}
	}
	for _, c := range []struct {
		name     string
		names    []string
		maxRatio float64
	}{{"policing", policing, 1.1}, {"all", nil, 0}} {
		b.Run(c.name, func(b *testing.B) {
			benchMemory(b, c.maxRatio, func(jobs int64, p *memprobe.Probe, every int64) (any, error) {
				spec := testLimitersSpec()
				spec.Names, spec.MaxJobs = c.names, jobs
				proc, err := arrivals.NewPoisson(1.2*spec.Rate.Float64(), experiments.Source(1, systems.StreamArrivals))
				if err != nil {
					return nil, err
				}
				return RunLimiters(context.Background(), spec, memprobe.Process(proc, p, every))
			})
		})
	}
}
