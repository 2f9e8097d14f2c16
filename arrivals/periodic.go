package arrivals

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/engine"
)

// Periodic is a deterministic arrival process with fixed spacing:
//
//	T_n = offset + n·spacing   (seconds), n = 0, 1, 2, …
//
// so the first arrival is at offset (0 unless given). Each time is computed
// from n with one fused multiply-add, a single rounding, so errors do not
// accumulate as they would with repeated addition. The process is infinite;
// wrap it with [Limit] to stop. Arrivals have Key 0, Sub -1 and Line 0.
//
// A Periodic must be made with [NewPeriodic]; the zero value yields every
// arrival at 0.
type Periodic struct {
	spacing float64 // seconds between arrivals, finite, > 0
	offset  float64 // time of the first arrival, seconds, finite, >= 0
	n       int64   // index of the next arrival
}

// NewPeriodic returns a periodic process with spacing seconds between
// arrivals (finite, > 0) and the first arrival at offset seconds (finite,
// >= 0). Invalid values give an error naming the value.
func NewPeriodic(spacing, offset float64) (*Periodic, error) {
	if !(spacing > 0) || math.IsInf(spacing, 1) {
		return nil, fmt.Errorf("arrivals: periodic spacing %g s is invalid: want finite and > 0", spacing)
	}
	if !(offset >= 0) || math.IsInf(offset, 1) {
		return nil, fmt.Errorf("arrivals: periodic offset %g s is invalid: want finite and >= 0", offset)
	}
	return &Periodic{spacing: spacing, offset: offset}, nil
}

// Next returns the next arrival. It does not allocate.
//
// Special cases: once n·spacing overflows to +Inf, Next returns an error and
// the process stays at that arrival.
func (p *Periodic) Next() (Arrival, error) {
	t := math.FMA(float64(p.n), p.spacing, p.offset)
	if math.IsInf(t, 1) {
		return Arrival{}, fmt.Errorf("arrivals: periodic arrival %d overflowed: %g s + %d·%g s is +Inf", p.n, p.offset, p.n, p.spacing)
	}
	p.n++
	return Arrival{T: engine.Time(t), Sub: -1}, nil
}
