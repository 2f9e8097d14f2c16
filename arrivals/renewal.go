package arrivals

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
)

// Renewal is a renewal arrival process: the gaps between consecutive
// arrivals are independent draws from one distribution,
//
//	T_1 = G_1,  T_n = T_{n-1} + G_n   (seconds),
//
// where each gap G_n >= 0 is in seconds. The first arrival is at the first
// gap, not at 0. The process is infinite; wrap it with [Limit] to stop after
// a number of jobs. Arrivals have Key 0, Sub -1 and Line 0.
//
// Times are accumulated by float64 addition, one rounding per arrival; the
// absolute error after n arrivals is at most about n·u·T_n (u = 2^-53).
//
// A Renewal must be made with [NewRenewal] or [NewPoisson]; the zero value
// is not usable (Next panics).
//
// See [Renewal process].
//
// [Renewal process]: https://en.wikipedia.org/wiki/Renewal_theory
type Renewal struct {
	gap distuv.Rander // gap distribution, seconds
	t   float64       // time of the last arrival, seconds (0 before the first)
}

// NewRenewal returns a renewal process whose gaps, in seconds, are drawn
// from gap, for example distuv.Gamma{Alpha: 2, Beta: 4, Src: src} (mean gap
// 0.5 s). gap must have a non-nil random source of its own; it returns an
// error if gap is nil.
func NewRenewal(gap distuv.Rander) (*Renewal, error) {
	if gap == nil {
		return nil, fmt.Errorf("arrivals: renewal gap distribution is nil")
	}
	return &Renewal{gap: gap}, nil
}

// Next returns the next arrival. It does not allocate.
//
// Special cases:
//
//   - a gap that is negative or NaN is an error naming the value;
//   - a gap that makes the arrival time +Inf is an error.
//
// After an error the process's time is unchanged (the random source has
// still advanced), so the error repeats only if the distribution keeps
// producing bad gaps.
func (r *Renewal) Next() (Arrival, error) {
	g := r.gap.Rand()
	if !(g >= 0) {
		return Arrival{}, fmt.Errorf("arrivals: renewal gap %g s is negative or NaN; gaps must be >= 0", g)
	}
	t := r.t + g
	if math.IsInf(t, 1) {
		return Arrival{}, fmt.Errorf("arrivals: renewal arrival time overflowed: %g s + gap %g s is +Inf", r.t, g)
	}
	r.t = t
	return Arrival{T: engine.Time(t), Sub: -1}, nil
}
