package buckets

import (
	"fmt"
	"math/bits"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// Arrival is what a dispatch policy knows about an arriving job. [Job] is
// the float64 form.
type Arrival[T Number] struct {
	ID  int64  // job number, 0-based, in order of arrival
	T   T      // arrival instant (seconds, or ticks)
	Key uint64 // hash of the job's key (0 when the traffic has none)
	Sub int    // sub-bucket named by the input (-1 when none)
}

// A Dispatch policy chooses the sub-bucket (0-based index into subs) that an
// arriving job is sent to. It is called once per job, in arrival order, after
// every grant due at or before j.T has been made. An error means the job
// cannot be dispatched (for example a trace names a sub-bucket that does not
// exist). [Dispatcher] is the float64 form.
type Dispatch[T Number] interface {
	Dispatch(j Arrival[T], subs []*Bucket[T]) (int, error)
}

// DispatchNames lists the dispatch policies [NewDispatcher] knows.
var DispatchNames = []string{"rr", "random", "hash", "least-loaded", "column", "weighted"}

// NewDispatcher returns the named dispatch policy for sub-buckets with the
// given rates (tokens/s):
//
//   - "rr": round-robin, job i to sub-bucket i mod k.
//   - "random": sub-bucket l with probability r_l / Σ r, drawn from src.
//   - "hash": sub-bucket floor(h·k / 2^64) for the job's key hash h, so a
//     key always goes to the same sub-bucket.
//   - "least-loaded": the sub-bucket with the fewest waiting jobs; ties go
//     to the one with the most tokens, then to the lowest index.
//   - "column": the sub-bucket the input names (Job.Sub), which must be in
//     [0, k).
//   - "weighted": sub-bucket l with probability w_l / Σ w for weights w
//     passed in place of the rates (see [NewWeighted]); with the rates it
//     draws as "random" does.
//
// src is used only by "random" and "weighted" and must then be non-nil.
func NewDispatcher(name string, rates []float64, src rand.Source) (Dispatcher, error) {
	return NewDispatch[engine.Time](name, rates, src)
}

// NewDispatch is [NewDispatcher] for any [Number] model.
func NewDispatch[T Number](name string, rates []float64, src rand.Source) (Dispatch[T], error) {
	switch name {
	case "rr":
		return &roundRobin[T]{}, nil
	case "random":
		// Traffic shares equal to the rate shares.
		return NewWeighted[T](rates, src)
	case "hash":
		return hashed[T]{}, nil
	case "least-loaded":
		return leastLoaded[T]{}, nil
	case "column":
		return column[T]{}, nil
	case "weighted":
		return NewWeighted[T](rates, src)
	}
	return nil, fmt.Errorf("buckets: unknown dispatch policy %q, want one of %v", name, DispatchNames)
}

type roundRobin[T Number] struct{ i int }

func (d *roundRobin[T]) Dispatch(_ Arrival[T], subs []*Bucket[T]) (int, error) {
	l := d.i
	d.i++
	if d.i == len(subs) {
		d.i = 0
	}
	return l, nil
}

type hashed[T Number] struct{}

func (hashed[T]) Dispatch(j Arrival[T], subs []*Bucket[T]) (int, error) {
	// Lemire's multiply-shift maps a uniform 64-bit hash to [0, k)
	// without the bias or the division of h % k.
	hi, _ := bits.Mul64(j.Key, uint64(len(subs)))
	return int(hi), nil
}

type leastLoaded[T Number] struct{}

func (leastLoaded[T]) Dispatch(j Arrival[T], subs []*Bucket[T]) (int, error) {
	best := 0
	bestN, bestTok := subs[0].Waiting(), subs[0].Tokens(j.T)
	for l := 1; l < len(subs); l++ {
		n := subs[l].Waiting()
		if n > bestN {
			continue
		}
		tok := subs[l].Tokens(j.T)
		if n < bestN || tok > bestTok {
			best, bestN, bestTok = l, n, tok
		}
	}
	return best, nil
}

type column[T Number] struct{}

func (column[T]) Dispatch(j Arrival[T], subs []*Bucket[T]) (int, error) {
	if j.Sub < 0 || j.Sub >= len(subs) {
		if j.Sub < 0 {
			return 0, fmt.Errorf("buckets: dispatch column: job %d has no sub-bucket column value", j.ID)
		}
		return 0, fmt.Errorf("buckets: dispatch column: sub-bucket %d out of range [0, %d)", j.Sub, len(subs))
	}
	return j.Sub, nil
}
