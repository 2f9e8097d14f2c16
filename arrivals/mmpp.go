package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/mat"

	"github.com/ratesim/ratesim/engine"
)

// MaxMMPPStates bounds the number of states of an [MMPP].
const MaxMMPPStates = 256

// MMPP is a Markov-modulated Poisson process: a continuous-time Markov
// chain with generator Q moves among n states, and while it is in state i
// jobs arrive as a Poisson process of rate λ_i jobs/s. Its mean rate is
//
//	λ̄ = Σ_i π_i λ_i   (jobs/s), where πQ = 0 and Σ_i π_i = 1
//
// is the chain's stationary distribution. The chain starts in a state
// drawn from π, so the process is stationary from time 0. Arrivals have
// Key 0, Sub -1 and Line 0. The process is infinite; wrap it with [Limit].
//
// Next draws an exponential holding time at the total rate λ_i + q_i of
// the current state (q_i = -Q_ii) and then whether the event is an
// arrival (with probability λ_i/(λ_i + q_i)) or a jump, and to which
// state (with probability Q_ij/q_i): the competing-exponentials
// construction of W. Fischer and K. Meier-Hellstern, [The MMPP cookbook]
// (1993). The holding times since the last arrival are summed in float64
// seconds and the sum is rounded to the nearest nanosecond once, at the
// arrival, and added exactly to the integer clock (as in [Renewal]), so
// rounding does not accumulate from one arrival to the next.
//
// [The MMPP cookbook]: https://doi.org/10.1016/0166-5316(93)90035-S
type MMPP struct {
	lambda []float64 // λ_i, jobs/s
	out    []float64 // q_i = -Q_ii, 1/s
	cum    []float64 // row i: cumulative jump probabilities to states 0..n-1, n per row
	pi     []float64 // stationary distribution
	rng    *rand.Rand
	state  int
	t      engine.Time // the last arrival (0 before the first)
}

// NewMMPP returns an MMPP with arrival rates lambda (jobs/s, finite and
// >= 0, one per state, at least one > 0) and generator q, an n×n matrix
// whose off-diagonal entries q[i][j] (1/s, finite and >= 0) are the rates
// of jumping from state i to state j; the diagonal is ignored and taken as
// minus the sum of the row's other entries. The chain must be irreducible
// (every state reachable from every other), so that π is unique, and have
// 1 <= n <= [MaxMMPPStates] states. src must not be nil; it draws the
// initial state, the holding times and the jumps.
func NewMMPP(lambda []float64, q [][]float64, src rand.Source) (*MMPP, error) {
	n := len(lambda)
	if n < 1 || n > MaxMMPPStates {
		return nil, fmt.Errorf("arrivals: MMPP has %d states: want 1 to %d", n, MaxMMPPStates)
	}
	if len(q) != n {
		return nil, fmt.Errorf("arrivals: MMPP generator has %d rows for %d states", len(q), n)
	}
	if src == nil {
		return nil, fmt.Errorf("arrivals: MMPP random source is nil")
	}
	m := &MMPP{lambda: append([]float64(nil), lambda...), out: make([]float64, n), cum: make([]float64, n*n)}
	anyArrivals := false
	for i, l := range lambda {
		if !(l >= 0) || math.IsInf(l, 1) {
			return nil, fmt.Errorf("arrivals: MMPP rate %g jobs/s of state %d is invalid: want finite and >= 0", l, i)
		}
		anyArrivals = anyArrivals || l > 0
		if len(q[i]) != n {
			return nil, fmt.Errorf("arrivals: MMPP generator row %d has %d entries for %d states", i, len(q[i]), n)
		}
		for j, x := range q[i] {
			if j == i {
				continue
			}
			if !(x >= 0) || math.IsInf(x, 1) {
				return nil, fmt.Errorf("arrivals: MMPP jump rate %g /s from state %d to %d is invalid: want finite and >= 0", x, i, j)
			}
			m.out[i] += x
		}
		if math.IsInf(m.out[i], 1) {
			return nil, fmt.Errorf("arrivals: MMPP jump rates out of state %d sum to +Inf", i)
		}
		acc := 0.0
		for j, x := range q[i] {
			if j != i && m.out[i] > 0 {
				acc += x / m.out[i]
			}
			m.cum[i*n+j] = acc
		}
	}
	if !anyArrivals {
		return nil, fmt.Errorf("arrivals: MMPP rates %v are all 0: want at least one state with arrivals", lambda)
	}
	pi, err := stationary(lambda, q, m.out)
	if err != nil {
		return nil, err
	}
	m.pi = pi
	m.rng = rand.New(src)
	u := m.rng.Float64()
	for i, p := range pi {
		m.state = i
		if u < p {
			break
		}
		u -= p
	}
	return m, nil
}

// stationary solves πQ = 0, Σπ = 1. It returns an error when the chain is
// reducible (the solution is not unique or not positive).
func stationary(lambda []float64, q [][]float64, out []float64) ([]float64, error) {
	n := len(lambda)
	if n == 1 {
		return []float64{1}, nil
	}
	// Qᵀπᵀ = 0 with the last equation replaced by Σπ = 1.
	a := mat.NewDense(n, n, nil)
	for i := range n {
		for j := range n {
			if i == j {
				a.Set(j, i, -out[i])
			} else {
				a.Set(j, i, q[i][j])
			}
		}
	}
	for i := range n {
		a.Set(n-1, i, 1)
	}
	b := mat.NewVecDense(n, nil)
	b.SetVec(n-1, 1)
	var x mat.VecDense
	if err := x.SolveVec(a, b); err != nil {
		return nil, fmt.Errorf("arrivals: MMPP chain is reducible (some state cannot reach another): no unique stationary distribution (%v)", err)
	}
	pi := make([]float64, n)
	for i := range n {
		pi[i] = x.AtVec(i)
		// An irreducible chain has π_i > 0; a reducible one gives 0 or a
		// negative value (or a singular system, above).
		if !(pi[i] > 1e-12) {
			return nil, fmt.Errorf("arrivals: MMPP chain is reducible: state %d has stationary probability %g; every state must be reachable from every other", i, pi[i])
		}
	}
	return pi, nil
}

// MeanRate returns Σ π_i λ_i in jobs/s.
func (m *MMPP) MeanRate() float64 {
	s := 0.0
	for i, p := range m.pi {
		s += p * m.lambda[i]
	}
	return s
}

// Stationary returns a copy of the chain's stationary distribution π.
func (m *MMPP) Stationary() []float64 { return append([]float64(nil), m.pi...) }

// Next returns the next arrival. It does not allocate.
//
// Special cases: an arrival beyond the range of [engine.Time] (about 292
// years) is an error; the chain has moved on, the clock has not.
func (m *MMPP) Next() (Arrival, error) {
	n := len(m.lambda)
	gap := 0.0 // seconds since the last arrival
	for {
		s := m.state
		total := m.lambda[s] + m.out[s]
		gap += m.rng.ExpFloat64() / total
		if m.rng.Float64()*total < m.lambda[s] {
			t, ok := afterSeconds(m.t, gap)
			if !ok {
				return Arrival{}, fmt.Errorf("arrivals: MMPP arrival at %v s + gap %g s is beyond the range of engine.Time (about 292 years)", m.t, gap)
			}
			m.t = t
			return Arrival{T: t, Sub: -1}, nil
		}
		u := m.rng.Float64()
		row := m.cum[s*n : s*n+n]
		// The first state whose cumulative probability exceeds u has a
		// positive jump probability and is not s (row[s] = row[s-1]).
		j := 0
		for j < n && row[j] <= u {
			j++
		}
		if j == n { // u at or beyond the row's total, which rounding made < 1
			j = lastJump(row, s)
		}
		m.state = j
	}
}

// lastJump returns the last state other than s with a positive jump
// probability in the cumulative row.
func lastJump(row []float64, s int) int {
	for j := len(row) - 1; j >= 0; j-- {
		prev := 0.0
		if j > 0 {
			prev = row[j-1]
		}
		if j != s && row[j] > prev {
			return j
		}
	}
	return s
}
