package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// NewPoisson returns a Poisson arrival process with the given rate in
// jobs per second: a [Renewal] process whose gaps are exponential with mean
// 1/rate seconds, the draws of distuv.Exponential{Rate: rate, Src: src}
// (rand.ExpFloat64 on src, divided by rate), taken from one rand.Rand kept
// for the process rather than one built per draw: the same numbers, at a
// fraction of the cost.
//
// The first arrival is at the first gap (an exponential draw), not at 0.
// Each call to Next draws from src and does not allocate.
//
// rate must be finite and > 0, and src must not be nil (ratesim never falls
// back to the global source); otherwise NewPoisson returns an error naming
// the value.
//
// See [Poisson point process].
//
// [Poisson point process]: https://en.wikipedia.org/wiki/Poisson_point_process
func NewPoisson(rate float64, src rand.Source) (*Renewal, error) {
	if !(rate > 0) || math.IsInf(rate, 1) {
		return nil, fmt.Errorf("arrivals: Poisson rate %g jobs/s is invalid: want finite and > 0", rate)
	}
	if src == nil {
		return nil, fmt.Errorf("arrivals: Poisson random source is nil")
	}
	return NewRenewal(expGaps{r: rand.New(src), rate: rate})
}

// expGaps draws exponential gaps of the given rate as distuv.Exponential
// does, from a rand.Rand made once.
type expGaps struct {
	r    *rand.Rand
	rate float64
}

func (e expGaps) Rand() float64 { return e.r.ExpFloat64() / e.rate }

// PoissonRate reports whether p is a Poisson process, and its rate in
// jobs/s: a process made by [NewPoisson], or a [Renewal] process with
// exponential gaps, alone or built by [BuildSpec] from a single such
// component without transforms. Closed forms that
// hold for Poisson arrivals only (Pollaczek–Khinchine, PASTA) are selected
// by this test, not by the name of a spec.
func PoissonRate(p Process) (float64, bool) {
	if g, ok := p.(*Generated); ok {
		p = g.Process
	}
	r, ok := p.(*Renewal)
	switch {
	case !ok:
		return 0, false
	case r.exp != nil:
		return r.exp.rate, true
	}
	if e, ok := r.gap.(distuv.Exponential); ok {
		return e.Rate, true // renewal:dist=exp
	}
	return 0, false
}
