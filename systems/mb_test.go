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

func BenchmarkMBTokenOffer(b *testing.B) {
	tb := must(buckets.NewTokenBucket(params("1", "10")))
	r := rand.New(rand.NewPCG(1, 1))
	t := engine.Time(0)
	for i := 0; b.Loop(); i++ {
		t += engine.Time(r.ExpFloat64() / 0.9 * 1e9)
		tb.Offer(t, int64(i))
	}
}

func BenchmarkMBRunPair(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopObs{})
	}
}

func BenchmarkMBRunPairNoCheck(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		p.check = nil
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopObs{})
	}
}

func BenchmarkMBGen(b *testing.B) {
	s := &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1 << 62}
	for b.Loop() {
		s.Next()
	}
}

func BenchmarkMBSystemOffer(b *testing.B) {
	p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
	s := &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1 << 62}
	for b.Loop() {
		j, _ := s.Next()
		p.B.Offer(j)
	}
}

type nopFast struct{ nopObs }

func (nopFast) Waits(Job, int, int64, exact.Int128, exact.Int128) error { return nil }

func BenchmarkMBRunFast(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopFast{})
	}
}

func BenchmarkMBRunFastNoCheck(b *testing.B) {
	for b.Loop() {
		p := must(NewSplit(SplitSpec{One: params("1", "10"), Subs: []buckets.Params{params("0.5", "5"), params("0.5", "5")}, Dispatch: "rr"}))
		p.check = nil
		Run(context.Background(), p, &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}, 0, nopFast{})
	}
}

func BenchmarkMBBare(b *testing.B) {
	for b.Loop() {
		s := &expSrc{r: rand.New(rand.NewPCG(1, 1)), n: 1e6}
		var f0, f1, f2 float64
		for {
			j, err := s.Next()
			if err != nil {
				break
			}
			t := j.T.Seconds()
			f0 = max(f0, t) + 1
			if j.ID&1 == 0 {
				f1 = max(f1, t) + 2
			} else {
				f2 = max(f2, t) + 2
			}
		}
		_ = f0 + f1 + f2
	}
}
