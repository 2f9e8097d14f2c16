package systems

import (
	"context"
	"io"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

type expSrc struct {
	r *rand.Rand
	t engine.Time
	n int
}

func (s *expSrc) Next() (Job, error) {
	if s.n == 0 {
		return Job{}, io.EOF
	}
	s.n--
	s.t += engine.Time(s.r.ExpFloat64() / 0.9 * 1e9)
	return Job{T: s.t}, nil
}

type nopObs struct{}

func (nopObs) Decided(Job, int, int, buckets.Decision) error          { return nil }
func (nopObs) Released(int, int, engine.Time, buckets.Released) error { return nil }

// BenchmarkTokenOffer: one token bucket's Offer on Poisson arrivals at
// load 0.9 (r = 1, b = 10), per job.
func BenchmarkTokenOffer(b *testing.B) {
	tb := must(buckets.NewTokenBucket(params("1", "10")))
	r := rand.New(rand.NewPCG(1, 1))
	t := engine.Time(0)
	for i := 0; b.Loop(); i++ {
		t += engine.Time(r.ExpFloat64() / 0.9 * 1e9)
		tb.Offer(t, int64(i))
	}
}

// BenchmarkRunEventPath: Run on the general path (an observer without
// Waits), 10^6 jobs, the default run's systems, check on.
func BenchmarkRunEventPath(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopObs{})
	}
}

// BenchmarkRunEventPathNoCheck: the same without the check.
func BenchmarkRunEventPathNoCheck(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		p.check = nil
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopObs{})
	}
}

// BenchmarkExpSource: the benchmarks' arrival source alone, per job.
func BenchmarkExpSource(b *testing.B) {
	s := &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1 << 62}
	for b.Loop() {
		s.Next()
	}
}

// BenchmarkSystemOffer: the split system's Offer (round-robin over two
// sub-buckets), per job.
func BenchmarkSystemOffer(b *testing.B) {
	p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
	s := &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1 << 62}
	for b.Loop() {
		j, _ := s.Next()
		p.B.Offer(j)
	}
}

type nopFast struct{ nopObs }

func (nopFast) Waits(Job, int, int64, exact.Int128, exact.Int128) error { return nil }

// BenchmarkRunFast: Run on the fast path, 10^6 jobs, check on, no
// statistics: compare with experiments' BenchmarkBareLoop (scripts/benchratio).
func BenchmarkRunFast(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopFast{})
	}
}

// BenchmarkRunFastNoCheck: the same without the check.
func BenchmarkRunFastNoCheck(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		p.check = nil
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopFast{})
	}
}
