package arrivals

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Periodic is a deterministic arrival process with fixed spacing p seconds
// from an offset o, on the nanosecond clock: arrival n = 0, 1, 2, … is at
//
//	T_n = ceil(o·1e9) + n·ceil(p·1e9)   nanoseconds.
//
// A spacing that is a whole number of nanoseconds is kept exactly (0.1 s
// is 100000000 ns apart, for ever; every decimal spacing with at most nine
// places). A spacing that is not (1/3 s, rate 3 jobs/s) is rounded up to
// the next nanosecond, as a timer of 1 ns resolution fires at or after its
// deadline: the gaps stay equal, so the process stays periodic (a token
// bucket of rate 1/p and burst 1 never delays one of its jobs), and its
// rate is below 1/p by less than 1 ns per gap (rate 3 runs at
// 2.999999991 jobs/s). [Periodic.Spacing] reports the spacing used.
// Instants are computed from n in 128-bit integer arithmetic, never by
// repeated addition.
//
// The process is infinite; wrap it with [Limit] to stop. Arrivals have
// Key 0, Sub -1 and Line 0.
//
// A Periodic must be made with [NewPeriodic] or [NewPeriodicRate]; the
// zero value yields every arrival at 0.
type Periodic struct {
	g               grid
	spacing, offset exact.Rat // seconds, for messages
	n               int64     // index of the next arrival
}

// NewPeriodic returns a periodic process with spacing seconds between
// arrivals (> 0) and the first arrival at offset seconds (>= 0), both
// exact (see [exact.ParseRat]; [exact.FromFloat64] gives the decimal a
// float64 parameter was written as).
//
// It returns an error naming the value when spacing <= 0 or under 1 ns
// (the clock's resolution), offset < 0, or
// either does not fit the 128-bit arithmetic of the instants (a numerator
// beyond about 10^29 or a denominator beyond 2^63 once in nanoseconds).
func NewPeriodic(spacing, offset exact.Rat) (*Periodic, error) {
	if spacing.Sign() <= 0 {
		return nil, fmt.Errorf("arrivals: periodic spacing %s is invalid: want > 0", ratSeconds(spacing))
	}
	if spacing.Cmp(exact.NewRat(1, 1e9)) < 0 {
		return nil, fmt.Errorf("arrivals: periodic spacing %s is shorter than the clock's 1 ns: want a spacing >= 1e-9 s (a rate <= 1e9 jobs/s)", ratSeconds(spacing))
	}
	if err := checkNonNegative("periodic offset", offset); err != nil {
		return nil, fmt.Errorf("arrivals: %w", err)
	}
	g, err := newGrid(ceilNanos(offset), ceilNanos(spacing))
	if err != nil {
		return nil, fmt.Errorf("arrivals: periodic spacing %s with offset %s %w", ratSeconds(spacing), ratSeconds(offset), err)
	}
	return &Periodic{g: g, spacing: spacing, offset: offset}, nil
}

// ceilNanos returns x seconds rounded up to a whole number of nanoseconds,
// as seconds; x unchanged when it does not fit (newGrid reports it).
func ceilNanos(x exact.Rat) exact.Rat {
	ns, err := x.Mul(exact.Int(1e9))
	if err != nil {
		return x
	}
	c := ns.Ceil()
	if !c.IsInt64() {
		return x
	}
	return exact.NewRat(c.Int64(), 1e9)
}

// Spacing returns the spacing between arrivals on the clock, ns: the
// requested spacing rounded up to a whole nanosecond.
func (p *Periodic) Spacing() engine.Time {
	return engine.Time(p.g.b.FloorDiv(p.g.d).Int64())
}

// NewPeriodicRate returns a periodic process of rate jobs/s (> 0), whose
// spacing is exactly 1/rate seconds (1/3 s for rate 3), with the first
// arrival at offset seconds (>= 0). Errors are those of [NewPeriodic],
// naming the rate.
func NewPeriodicRate(rate, offset exact.Rat) (*Periodic, error) {
	if rate.Sign() <= 0 {
		return nil, fmt.Errorf("arrivals: periodic rate %s jobs/s is invalid: want > 0", rate)
	}
	spacing, err := exact.Int(1).Quo(rate)
	if err != nil {
		return nil, fmt.Errorf("arrivals: periodic rate %s jobs/s is invalid: its spacing 1/rate %w", rate, errGridRange)
	}
	return NewPeriodic(spacing, offset)
}

// Next returns the next arrival. It does not allocate.
//
// Special cases: once an instant is beyond the range of [engine.Time]
// (about 292 years), Next returns an error and the process stays at that
// arrival.
func (p *Periodic) Next() (Arrival, error) {
	t, ok := p.g.at(p.n)
	if !ok || p.n == math.MaxInt64 {
		return Arrival{}, fmt.Errorf("arrivals: periodic arrival %d at %s + %d·%s is beyond the range of engine.Time (about 292 years)",
			p.n, ratSeconds(p.offset), p.n, ratSeconds(p.spacing))
	}
	p.n++
	return Arrival{T: t, Sub: -1}, nil
}
