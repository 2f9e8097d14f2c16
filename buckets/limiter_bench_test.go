package buckets

import (
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// benchTimes returns n Poisson arrival instants at rate lambda jobs/s.
func benchTimes(n int, lambda float64) []engine.Time {
	rng := rand.New(rand.NewPCG(1, 1))
	ts := make([]engine.Time, n)
	t := 0.0
	for i := range ts {
		t += rng.ExpFloat64() / lambda
		ts[i] = engine.Time(t)
	}
	return ts
}

// BenchmarkOffer measures one Offer of each limiter, L = b = 100 per
// W = 60 s (r = 100/60 tokens/s), Poisson arrivals at 1.2 times the rate so
// that every limiter both admits and rejects. Reported as ns/op (one job).
func BenchmarkOffer(b *testing.B) {
	const r = 100.0 / 60
	win := WindowParams{Limit: 100, Window: 60}
	bp := Params{Rate: r, Burst: 100}
	times := benchTimes(1<<16, 1.2*r)
	for _, c := range []struct {
		name string
		make func() Limiter[engine.Time]
	}{
		{"token-police", func() Limiter[engine.Time] { return must(NewTokenBucket(bp, WithPolicing())) }},
		{"token-shape", func() Limiter[engine.Time] { return must(NewTokenBucket(bp, WithQueueCapacity(100))) }},
		{"leaky-queue", func() Limiter[engine.Time] { return must(NewLeakyBucket(LeakyParams{Rate: r, Queue: 100})) }},
		{"gcra", func() Limiter[engine.Time] { return must(NewGCRA(MatchGCRA(bp))) }},
		{"fixed-window", func() Limiter[engine.Time] { return must(NewFixedWindow(win)) }},
		{"sliding-log", func() Limiter[engine.Time] { return must(NewSlidingLog(win)) }},
		{"sliding-counter", func() Limiter[engine.Time] { return must(NewSlidingCounter(win)) }},
		{"throttle", func() Limiter[engine.Time] {
			return must(NewThrottle(ThrottleParams{Rate: r, Burst: 100, Soft: 49.5, Hard: 99}, rand.NewPCG(1, 1)))
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := c.make()
			var base engine.Time
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if i == len(times) {
					// Continue the arrivals after the last one, so that
					// time keeps increasing.
					i, base = 0, base+times[len(times)-1]
				}
				l.Offer(base + times[i])
				i++
			}
		})
	}
}

// BenchmarkMeasureArrivalCurve: 10^5 instants, 74 interval lengths (the
// default of ratesim limiters). Reported per instant and length.
func BenchmarkMeasureArrivalCurve(b *testing.B) {
	xs := benchTimes(100000, 1)
	ds := make([]engine.Time, 74)
	for i := range ds {
		ds[i] = engine.Time(i)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := MeasureArrivalCurve(xs, ds); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(xs)*len(ds)), "ns/point")
}
