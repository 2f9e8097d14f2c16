package systems

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// A Dispatcher chooses the node (0-based index into nodes) that an
// arriving job is sent to. It is called once per job, in arrival order,
// after every release due at or before j.T. An error means the job cannot
// be dispatched (a trace names a node that does not exist).
type Dispatcher interface {
	Dispatch(j Job, nodes []buckets.Limiter) (int, error)
}

// Loaded is a limiter that reports its load, as least-loaded dispatch
// needs: the jobs waiting at instant t and the tokens it holds
// ([buckets.TokenBucket] is one).
type Loaded interface {
	Waiting(t engine.Time) int64
	Tokens(t engine.Time) exact.Rat
}

// DispatchNames lists the dispatch policies [NewDispatcher] knows.
var DispatchNames = []string{"rr", "random", "hash", "least-loaded", "column", "weighted"}

// NewDispatcher returns the named dispatch policy for k nodes whose
// weights are given (the sub-bucket rates r_l, or other traffic shares):
//
//   - "rr": round-robin, job i to node i mod k.
//   - "random": node l with probability w_l / Σ w, drawn from src.
//   - "weighted": the same ("random" with weights other than the rates).
//   - "hash": the job's key decides, by weighted rendezvous hashing: key h
//     goes to the node l maximising -w_l / ln(u_l(h)), u_l(h) a uniform
//     number in (0, 1) hashed from (h, l). A key always goes to the same
//     node, a key goes to node l with probability w_l / Σ w over random
//     keys, and removing a node moves only its own keys (D. G. Thaler and
//     C. V. Ravishankar, "Using name-based mappings to increase hit rates",
//     IEEE/ACM ToN 6(1), 1998; weighted form: J. Resch, "New hashing
//     algorithms for data storage", 2015).
//   - "least-loaded": the node with the fewest waiting jobs; ties go to the
//     one with the most tokens, then to the lowest index (exact
//     comparisons). The nodes must be [Loaded].
//   - "column": the node the input names (Job.Sub), which must be in
//     [0, k).
//
// src is used only by "random" and "weighted" and must then be non-nil.
// It returns an error wrapping buckets.ErrParam for an unknown name, a
// weight that is negative or not finite, or weights that sum to 0.
func NewDispatcher(name string, weights []float64, src rand.Source) (Dispatcher, error) {
	switch name {
	case "rr":
		return &roundRobin{}, nil
	case "random", "weighted":
		return newWeighted(weights, src)
	case "hash":
		if err := checkWeights(weights); err != nil {
			return nil, err
		}
		return newRendezvous(weights), nil
	case "least-loaded":
		return leastLoaded{}, nil
	case "column":
		return column{}, nil
	}
	return nil, &buckets.ParamError{Name: "dispatch policy", Value: name, Want: fmt.Sprintf("one of %v", DispatchNames)}
}

func checkWeights(weights []float64) error {
	if len(weights) == 0 {
		return &buckets.ParamError{Name: "dispatch weights", Value: "none", Want: "one weight per node"}
	}
	s := 0.0
	for l, w := range weights {
		if !(w >= 0) || math.IsInf(w, 0) {
			return &buckets.ParamError{Name: fmt.Sprintf("node %d traffic weight", l), Value: w, Want: "finite and >= 0"}
		}
		s += w
	}
	if !(s > 0) || math.IsInf(s, 0) {
		return &buckets.ParamError{Name: "sum of traffic weights", Value: s, Want: "finite and > 0"}
	}
	return nil
}

type roundRobin struct{ i int }

func (d *roundRobin) Dispatch(_ Job, nodes []buckets.Limiter) (int, error) {
	l := d.i
	d.i++
	if d.i == len(nodes) {
		d.i = 0
	}
	return l, nil
}

// weighted draws node l with probability w_l / Σ w: one draw from src and
// a binary search over the cumulative weights per job.
type weighted struct {
	cum []float64
	rng *rand.Rand
}

func newWeighted(weights []float64, src rand.Source) (*weighted, error) {
	if err := checkWeights(weights); err != nil {
		return nil, err
	}
	if src == nil {
		return nil, &buckets.ParamError{Name: "random dispatch source", Value: "nil", Want: "a rand.Source"}
	}
	cum := make([]float64, len(weights))
	s := 0.0
	for l, w := range weights {
		s += w
		cum[l] = s
	}
	return &weighted{cum: cum, rng: rand.New(src)}, nil
}

func (d *weighted) Dispatch(_ Job, nodes []buckets.Limiter) (int, error) {
	if len(d.cum) != len(nodes) {
		panic(fmt.Sprintf("systems: weighted dispatch with %d weights for %d nodes", len(d.cum), len(nodes)))
	}
	u := d.rng.Float64() * d.cum[len(d.cum)-1]
	l := sort.SearchFloat64s(d.cum, u)
	for l < len(d.cum)-1 && d.cum[l] <= u {
		l++ // u equal to a cumulative sum belongs to the next node
	}
	return l, nil
}

// rendezvous is weighted rendezvous (highest random weight) hashing.
// equal is set when every weight is the same moderate positive number
// (2^-500..2^500): the highest score is then the highest hash (see
// Dispatch), found without a logarithm.
type rendezvous struct {
	w     []float64
	equal bool
}

func newRendezvous(w []float64) *rendezvous {
	eq := w[0] >= 0x1p-500 && w[0] <= 0x1p500
	for _, x := range w {
		eq = eq && x == w[0]
	}
	return &rendezvous{w: w, equal: eq}
}

// rendezvousGap is the least lead in hash (h>>11, units of 2^-53 in u)
// of the highest hash over the second for which the highest hash alone
// decides; see Dispatch.
const rendezvousGap = 1 << 20

// mix is the splitmix64 finaliser (S. Vigna), a bijection of 64-bit words
// with good avalanche.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

func (d *rendezvous) Dispatch(j Job, nodes []buckets.Limiter) (int, error) {
	if len(d.w) != len(nodes) {
		panic(fmt.Sprintf("systems: hash dispatch with %d weights for %d nodes", len(d.w), len(nodes)))
	}
	if d.equal {
		// Equal weights w: the score -w/log(u) grows with u, so the node
		// of highest v = h>>11 wins, when it leads the second by at least
		// rendezvousGap: then u differs by more than 2^-34 (u = (v +
		// 0.5)/2^53, the sum rounded by at most one unit), so log(u) by
		// more than 2^-34 (|d log u| >= |du| for u <= 1) while math.Log
		// errs by under 1 ulp <= 2^-47 (|log u| < 38), and the quotients
		// by a relative 2^-40 > 1 ulp: every other score is strictly
		// lower, and the full loop below (kept for near ties) would pick
		// the same node.
		best, v1, v2 := 0, uint64(0), uint64(0)
		for l := range d.w {
			v := mix(j.Hash^mix(uint64(l)+1)) >> 11
			if v > v1 {
				best, v1, v2 = l, v, v1
			} else if v > v2 {
				v2 = v
			}
		}
		if len(d.w) == 1 || v1-v2 >= rendezvousGap {
			return best, nil
		}
	}
	best, bestScore := 0, math.Inf(-1)
	for l, w := range d.w {
		if w == 0 {
			continue
		}
		h := mix(j.Hash ^ mix(uint64(l)+1))
		u := (float64(h>>11) + 0.5) / (1 << 53) // uniform in (0, 1)
		if s := -w / math.Log(u); s > bestScore {
			best, bestScore = l, s
		}
	}
	return best, nil
}

type leastLoaded struct{}

func (leastLoaded) Dispatch(j Job, nodes []buckets.Limiter) (int, error) {
	best := -1
	var bestN int64
	var bestTok exact.Rat
	for l, n := range nodes {
		ld, ok := n.(Loaded)
		if !ok {
			return 0, &buckets.ParamError{Name: "least-loaded dispatch", Value: fmt.Sprintf("node %d (%T)", l, n), Want: "limiters that report their queue and tokens"}
		}
		w := ld.Waiting(j.T)
		if best >= 0 && w > bestN {
			continue
		}
		tok := ld.Tokens(j.T)
		if best < 0 || w < bestN || tok.Cmp(bestTok) > 0 {
			best, bestN, bestTok = l, w, tok
		}
	}
	return best, nil
}

type column struct{}

func (column) Dispatch(j Job, nodes []buckets.Limiter) (int, error) {
	if j.Sub < 0 {
		return 0, fmt.Errorf("systems: dispatch column: job %d names no node", j.ID)
	}
	if j.Sub >= len(nodes) {
		return 0, fmt.Errorf("systems: dispatch column: job %d names sub-bucket %d, want one of 0..%d", j.ID, j.Sub, len(nodes)-1)
	}
	return j.Sub, nil
}
