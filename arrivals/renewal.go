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
//	T_1 = [G_1],  T_n = T_{n-1} + [G_n]   (nanoseconds),
//
// where each gap G_n >= 0 is drawn in seconds and [G] is G rounded to the
// nearest nanosecond ([engine.FromSeconds], halves away from zero). The
// first arrival is at the first gap, not at 0. The process is infinite;
// wrap it with [Limit] to stop after a number of jobs. Arrivals have Key 0,
// Sub -1 and Line 0.
//
// The clock is an integer: each gap is rounded once, when it is drawn, and
// added exactly, so rounding never accumulates. The process is exactly the
// renewal process of the rounded gaps at every n (a float64 clock would
// lose nanoseconds once T_n passes 2^53 ns, about 104 days). A gap below
// 0.5 ns rounds to 0: a tie with the previous arrival.
//
// A Renewal must be made with [NewRenewal] or [NewPoisson]; the zero value
// is not usable (Next panics).
//
// See [Renewal process].
//
// [Renewal process]: https://en.wikipedia.org/wiki/Renewal_theory
type Renewal struct {
	gap distuv.Rander // gap distribution, seconds
	exp *expGaps      // gap as its concrete type when exponential (Poisson): no interface call per draw
	t   engine.Time   // the last arrival (0 before the first)
}

// NewRenewal returns a renewal process whose gaps, in seconds, are drawn
// from gap, for example distuv.Gamma{Alpha: 2, Beta: 4, Src: src} (mean gap
// 0.5 s). gap must have a non-nil random source of its own; it returns an
// error if gap is nil.
func NewRenewal(gap distuv.Rander) (*Renewal, error) {
	if gap == nil {
		return nil, fmt.Errorf("arrivals: renewal gap distribution is nil")
	}
	r := &Renewal{gap: gap}
	if e, ok := gap.(expGaps); ok {
		r.exp = &e
	}
	return r, nil
}

// Next returns the next arrival. It does not allocate.
//
// Special cases:
//
//   - a gap that is negative or NaN is an error naming the value;
//   - a gap that takes the arrival beyond the range of [engine.Time]
//     (about 292 years) is an error.
//
// After an error the process's time is unchanged (the random source has
// still advanced), so the error repeats only if the distribution keeps
// producing bad gaps.
func (r *Renewal) Next() (Arrival, error) {
	var g float64
	if r.exp != nil {
		g = r.exp.Rand()
	} else {
		g = r.gap.Rand()
	}
	if !(g >= 0) {
		return Arrival{}, fmt.Errorf("arrivals: renewal gap %g s is negative or NaN; gaps must be >= 0", g)
	}
	t, ok := afterSeconds(r.t, g)
	if !ok {
		return Arrival{}, fmt.Errorf("arrivals: renewal arrival at %v s + gap %g s is beyond the range of engine.Time (about 292 years)", r.t, g)
	}
	r.t = t
	return Arrival{T: t, Sub: -1}, nil
}

// NextTimes fills dst with the instants of the next len(dst) arrivals, the
// ones len(dst) calls of Next would return (their Key is 0, Sub -1, Line
// 0), and returns how many it filled: all of them, or, when a draw fails
// as Next's would, the n before it and Next's error. It does not allocate
// and costs no call per arrival for Poisson gaps.
func (r *Renewal) NextTimes(dst []engine.Time) (int, error) {
	if r.exp == nil {
		for i := range dst {
			a, err := r.Next()
			if err != nil {
				return i, err
			}
			dst[i] = a.T
		}
		return len(dst), nil
	}
	e, t := r.exp, r.t
	for i := range dst {
		g := e.r.ExpFloat64() / e.rate
		// afterSeconds (engine.FromSeconds and addTime) inline; an
		// exponential draw is never negative or NaN.
		x := math.Round(g * 1e9)
		if !(x < 0x1p63) || t+engine.Time(x) < t {
			r.t = t
			return i, fmt.Errorf("arrivals: renewal arrival at %v s + gap %g s is beyond the range of engine.Time (about 292 years)", t, g)
		}
		t += engine.Time(x)
		dst[i] = t
	}
	r.t = t
	return len(dst), nil
}

// TimeFiller is a [Process] whose arrivals carry no key, sub-bucket or
// line, drawn a batch of instants at a time (see [Renewal.NextTimes]).
type TimeFiller interface {
	Process
	NextTimes(dst []engine.Time) (int, error)
}

// Times returns p as a TimeFiller when its arrivals can be drawn a batch
// of instants at a time: a [Renewal] process, alone or as the whole of a
// [Generated] one without keys, or a [Trace] without key or sub-bucket
// columns.
func Times(p Process) (TimeFiller, bool) {
	if t, ok := p.(*Trace); ok {
		return t, t.timesOnly()
	}
	if g, ok := p.(*Generated); ok {
		if g.Keyed {
			return nil, false
		}
		p = g.Process
	}
	r, ok := p.(*Renewal)
	return r, ok
}
