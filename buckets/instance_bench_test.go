package buckets

import (
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// benchInstances are 200 random verify-sized instances (k <= 8, <= 40 jobs,
// every order).
func benchInstances() []Instance {
	rng := newTestRand(11)
	var ins []Instance
	for range 200 {
		ins = append(ins, GenInstance(func(lo, hi int) int { return lo + rng.IntN(hi-lo+1) }, GenConfig{MaxK: 8, MaxJobs: 40, Orders: Orders}))
	}
	return ins
}

func benchModel[T Number](b *testing.B, tick float64) {
	ins := benchInstances()
	var events uint64
	b.ResetTimer()
	for i := range b.N {
		c, _, err := RunInstance[T](ins[i%len(ins)], tick, false)
		if err != nil {
			b.Fatal(err)
		}
		events += c.Check().Events()
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
}

// BenchmarkInstanceExact and BenchmarkInstanceFloat run the same small
// instances on the exact integer model and on the float64 model, including
// building the buckets, and report checked events per second.
func BenchmarkInstanceExact(b *testing.B) { benchModel[Tick](b, 0) }
func BenchmarkInstanceFloat(b *testing.B) { benchModel[engine.Time](b, 1e-3) }
