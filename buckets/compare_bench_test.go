package buckets

import (
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// BenchmarkCompare measures the fast path alone (no statistics): Poisson
// arrivals at load 0.9, r = 1, b = 10 split equally in k = 2, round-robin,
// the check on at every event. Reported as ns/job.
func BenchmarkCompare(b *testing.B) {
	one := Params{Rate: 1, Burst: 10}
	subsP, _ := EqualSplit(one, 2)
	ob, _ := NewTokenBucket(one)
	s0, _ := NewTokenBucket(subsP[0])
	s1, _ := NewTokenBucket(subsP[1])
	c, err := NewCompare(ob, []*TokenBucket{s0, s1}, &roundRobin[engine.Time]{}, nil, false)
	if err != nil {
		b.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	t := 0.0
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		t += rng.ExpFloat64() / 0.9
		if err := c.Arrive(Job{T: engine.Time(t), Sub: -1}); err != nil {
			b.Fatal(err)
		}
	}
	c.Finish()
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N), "ns/job")
	if c.Check().Violations() != 0 {
		b.Fatal("violation")
	}
}
