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
// statistics: compare with BenchmarkBareLoop.
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

// BenchmarkBareLoop is the floor the fast path is measured against: the
// same arrivals (exponential gaps at load 0.9, drawn as expSrc draws them)
// into one bucket (1, 10) and two round-robin sub-buckets (0.5, 5), each a
// float64 Lindley recursion on the unfinished work, with no check, no
// statistics and no exactness. 10^6 jobs per iteration, as BenchmarkRunFast.
func BenchmarkBareLoop(b *testing.B) {
	var sink float64
	for b.Loop() {
		s := &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}
		var u0, u1, u2, last float64 // unfinished work (s) of each bucket
		for i := 0; ; i++ {
			j, err := s.Next()
			if err != nil {
				break
			}
			t := j.T.Seconds()
			dt := t - last
			last = t
			u0 = max(0, u0-dt) + 1 // one token's work at r = 1
			u1 = max(0, u1-dt)
			u2 = max(0, u2-dt)
			if i&1 == 0 {
				u1 += 2 // r = 0.5
			} else {
				u2 += 2
			}
			sink += max(0, u0-10) + max(0, u1-10) + max(0, u2-10) // the waits (eq. (1))
		}
	}
	if sink < 0 {
		b.Fatal("negative wait")
	}
}
