package main

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// poissonJobs feeds arrivals.NewPoisson to systems.Run.
type poissonJobs struct{ p arrivals.Process }

func (s poissonJobs) Next() (systems.Job, error) {
	a, err := s.p.Next()
	return systems.Job{T: a.T, Sub: a.Sub}, err
}

type nopObs struct{}

func (nopObs) Decided(systems.Job, int, int, buckets.Decision) error  { return nil }
func (nopObs) Released(int, int, engine.Time, buckets.Released) error { return nil }

// TestSameWaits: the bare loop does the job ratesim run does. Its exact
// totals equal S and S^(k) of the model after the last grant (the check's
// totals, exact rationals of ns), on the same arrivals (arrivals.NewPoisson
// on stream 0), at loads below and above 1, and so do the delayed counts.
func TestSameWaits(t *testing.T) {
	for _, c := range []struct {
		load float64
		k    int
	}{{0.9, 2}, {1.1, 2}, {0.5, 3}} {
		const jobs = 50_000
		one, split := loop(jobs, c.load, 1e9, 10e9, c.k, 7)
		r, b := exact.Int(1), exact.Int(10)
		subs, err := buckets.EqualSplit(buckets.Params{Rate: r, Burst: b}, c.k)
		if err != nil {
			t.Fatal(err)
		}
		p, err := systems.NewSplit(systems.SplitSpec{One: buckets.Params{Rate: r, Burst: b}, Subs: subs, Dispatch: "rr", Seed: 7})
		if err != nil {
			t.Fatal(err)
		}
		proc, err := arrivals.NewPoisson(c.load, rand.NewPCG(7, systems.StreamArrivals))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := systems.Run(context.Background(), p, poissonJobs{arrivals.Limit(proc, jobs)}, 0, nopObs{}); err != nil && err != io.EOF {
			t.Fatal(err)
		}
		res := p.Check().Result()
		if got := res.S; got.Cmp(exact.Int(one.wait)) != 0 {
			t.Errorf("load %g: one bucket's total wait %v ns, the model's %v", c.load, one.wait, got)
		}
		if got := res.SSplit; got.Cmp(exact.Int(split.wait)) != 0 {
			t.Errorf("load %g: split's total wait %v ns, the model's %v", c.load, split.wait, got)
		}
		_, d, _ := p.A.Nodes()[0].(*buckets.TokenBucket).Counts()
		if d != one.delayed {
			t.Errorf("load %g: %d delayed in the one bucket, the model %d", c.load, one.delayed, d)
		}
	}
}

// BenchmarkLoop1e6 is the bare loop on 10^6 jobs at load 0.9 (r = 1,
// b = 10, k = 2): the in-process reference of experiments'
// BenchmarkRun1e6 (scripts/benchratio prints their ratio).
func BenchmarkLoop1e6(b *testing.B) {
	const jobs = 1_000_000
	var sink int64
	for b.Loop() {
		one, split := loop(jobs, 0.9, 1e9, 10e9, 2, 1)
		sink += one.wait + split.wait
	}
	if sink < 0 {
		b.Fatal("negative total wait")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/jobs, "ns/job")
}
