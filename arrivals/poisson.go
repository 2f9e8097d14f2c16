package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// NewPoisson returns a Poisson arrival process with the given rate in
// jobs per second: a [Renewal] process whose gaps are exponential with mean
// 1/rate seconds, drawn from distuv.Exponential{Rate: rate, Src: src}.
//
// The first arrival is at the first gap (an exponential draw), not at 0.
// Each call to Next draws one float64 from src and does not allocate.
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
	return NewRenewal(distuv.Exponential{Rate: rate, Src: src})
}
