package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
)

// BatchSizes lists the batch-size laws of [BatchSize].
var BatchSizes = []string{"geom", "fixed", "poisson", "uniform"}

// BatchSize is the law of the number of jobs in a batch, on the integers
// >= 1, with mean Mean >= 1:
//
//	geom     geometric: P(S = k) = p(1-p)^(k-1), p = 1/Mean; E[S²] = Mean(2·Mean - 1)
//	fixed    every batch has Mean jobs (Mean a whole number)
//	poisson  1 + Poisson(Mean - 1); E[S²] = Mean² + Mean - 1
//	uniform  uniform on {1, ..., 2·Mean - 1} (2·Mean a whole number)
type BatchSize struct {
	Law  string  // geom, fixed, poisson or uniform
	Mean float64 // mean batch size, >= 1 and at most 1e9
}

// validate checks the law and mean.
func (s BatchSize) validate() error {
	if !(s.Mean >= 1) || s.Mean > 1e9 {
		return fmt.Errorf("arrivals: batch mean %g is invalid: want 1 <= mean <= 1e9 jobs", s.Mean)
	}
	switch s.Law {
	case "geom", "poisson":
	case "fixed":
		if s.Mean != math.Trunc(s.Mean) {
			return fmt.Errorf("arrivals: batch size fixed needs a whole mean, got %g", s.Mean)
		}
	case "uniform":
		if 2*s.Mean != math.Trunc(2*s.Mean) {
			return fmt.Errorf("arrivals: batch size uniform on {1, ..., 2·mean-1} needs 2·mean whole, got mean %g", s.Mean)
		}
	default:
		return fmt.Errorf("arrivals: batch size %q is invalid: want geom, fixed, poisson or uniform", s.Law)
	}
	return nil
}

// SecondMoment returns E[S²] for the law.
func (s BatchSize) SecondMoment() float64 {
	m := s.Mean
	switch s.Law {
	case "geom":
		return m * (2*m - 1)
	case "fixed":
		return m * m
	case "poisson":
		return m*m + m - 1
	case "uniform":
		n := 2*m - 1
		return (n + 1) * (2*n + 1) / 6
	}
	return math.NaN()
}

// draw returns one batch size.
func (s BatchSize) draw(rng *rand.Rand, src rand.Source) int64 {
	switch s.Law {
	case "geom":
		if s.Mean == 1 {
			return 1
		}
		// Inversion: 1 + floor(ln U / ln(1-p)), U uniform on (0, 1].
		u := 1 - rng.Float64()
		k := math.Floor(math.Log(u) / math.Log1p(-1/s.Mean))
		return 1 + int64(min(k, 1e15))
	case "fixed":
		return int64(s.Mean)
	case "poisson":
		if s.Mean == 1 {
			return 1
		}
		return 1 + int64(distuv.Poisson{Lambda: s.Mean - 1, Src: src}.Rand())
	default: // uniform
		return 1 + rng.Int64N(int64(2*s.Mean-1))
	}
}

// Batch is a batch (compound) Poisson process: batches arrive as a
// Poisson process of rate Rate/E[S] batches/s, and each batch brings S
// jobs at the same instant, S drawn from a [BatchSize] law independently
// of everything else. Its mean rate is Rate jobs/s, its index of
// dispersion of counts over long windows E[S²]/E[S], and its gaps have
// SCV 2·E[S] - 1 (a gap is 0 inside a batch). Arrivals have Key 0, Sub -1
// and Line 0. The process is infinite.
//
// The clock is integer nanoseconds, as in [Renewal]: each exponential gap
// between batches is rounded to the nearest nanosecond once and added
// exactly. A batch is produced one job at a time, so memory does not grow
// with its size.
//
// See [Compound Poisson process].
//
// [Compound Poisson process]: https://en.wikipedia.org/wiki/Compound_Poisson_process
type Batch struct {
	size   BatchSize
	epochs float64 // batches/s
	src    rand.Source
	rng    *rand.Rand  // draws from src
	t      engine.Time // the current batch
	left   int64       // jobs of the current batch still to yield
}

// NewBatch returns a batch Poisson process of mean rate jobs/s (finite,
// > 0) with batch sizes from size, drawing from src (not nil).
func NewBatch(rate float64, size BatchSize, src rand.Source) (*Batch, error) {
	if !validRate(rate) {
		return nil, fmt.Errorf("arrivals: batch rate %g jobs/s is invalid: want finite and > 0 with a finite mean gap", rate)
	}
	if err := size.validate(); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, fmt.Errorf("arrivals: batch random source is nil")
	}
	return &Batch{size: size, epochs: rate / size.Mean, src: src, rng: rand.New(src)}, nil
}

// Next returns the next arrival. It does not allocate.
//
// Special cases: a batch beyond the range of [engine.Time] (about 292
// years) is an error.
func (b *Batch) Next() (Arrival, error) {
	if b.left == 0 {
		g := b.rng.ExpFloat64() / b.epochs
		t, ok := afterSeconds(b.t, g)
		if !ok {
			return Arrival{}, fmt.Errorf("arrivals: batch arrival at %v s + gap %g s is beyond the range of engine.Time (about 292 years)", b.t, g)
		}
		b.t = t
		b.left = b.size.draw(b.rng, b.src)
	}
	b.left--
	return Arrival{T: b.t, Sub: -1}, nil
}
