package buckets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ratesim/ratesim/engine"
)

// NewWeighted returns the "weighted" dispatch policy: each job goes to
// sub-bucket l with probability
//
//	p_l = w_l / Σ_j w_j
//
// independently of every other job, drawn from src. The traffic shares p_l
// may differ from the rate shares q_l = r_l / r, which is what a
// distributed limiter sees when its front end balances by something other
// than the configured rates (with w = rates it is the "random" policy).
// Each job costs one draw from src and a binary search over k cumulative
// weights.
//
// Special cases:
//
//	len(weights) == 0            error
//	w_l < 0, NaN or ±Inf         error naming l and the value
//	Σ w = 0 or not finite        error
//	w_l = 0                      sub-bucket l never receives a job
//	src == nil                   error (ratesim never falls back to a global source)
//
// The number of weights must be the number of sub-buckets the policy
// dispatches to; Dispatch panics otherwise (a programmer error).
func NewWeighted[T Number](weights []float64, src rand.Source) (Dispatch[T], error) {
	if len(weights) == 0 {
		return nil, fmt.Errorf("buckets: dispatch weighted needs at least one weight: %w", ErrParam)
	}
	if src == nil {
		return nil, fmt.Errorf("buckets: dispatch weighted needs a random source")
	}
	cum := make([]float64, len(weights))
	var s float64
	for l, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, &ParamError{Name: fmt.Sprintf("sub-bucket %d traffic weight", l), Value: w, Want: "finite and >= 0"}
		}
		s += w
		cum[l] = s
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return nil, &ParamError{Name: "sum of traffic weights", Value: s, Want: "finite and > 0"}
	}
	return &weightedShares[T]{cum: cum, rng: rand.New(src)}, nil
}

// NewWeightedDispatcher is [NewWeighted] for the float64 model.
func NewWeightedDispatcher(weights []float64, src rand.Source) (Dispatcher, error) {
	return NewWeighted[engine.Time](weights, src)
}

type weightedShares[T Number] struct {
	cum []float64 // cumulative weights, non-decreasing
	rng *rand.Rand
}

func (d *weightedShares[T]) Dispatch(_ Arrival[T], subs []*Bucket[T]) (int, error) {
	if len(subs) != len(d.cum) {
		panic(fmt.Sprintf("buckets: dispatch weighted has %d weights for %d sub-buckets", len(d.cum), len(subs)))
	}
	// x is uniform on [0, Σw); the chosen l is the first with cum_l > x,
	// so a zero weight (cum_l == cum_{l-1}) is never chosen, not even
	// when x lands exactly on a cumulative weight.
	x := d.rng.Float64() * d.cum[len(d.cum)-1]
	l := sort.Search(len(d.cum), func(i int) bool { return d.cum[i] > x })
	return min(l, len(d.cum)-1), nil
}
