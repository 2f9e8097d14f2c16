package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// buildGenerated builds the process of an --arrivals spec (see
// arrivals.SpecHelp) for a run with root seed seed: component i draws from
// experiments.Source(seed, systems.StreamArrivals + id), id the
// component's arrivals.ProcessStream or TransformStream, so the first
// process uses the stream a Poisson run always used. A process without
// rate= takes λ = load·rate; loadGiven reports whether --load was given,
// which is an error when no component uses it.
func buildGenerated(spec string, load, rate float64, seed uint64, loadGiven bool) (*arrivals.Generated, error) {
	var lambda float64
	if finitePositive(load) && finitePositive(load*rate) && !math.IsInf(1/(load*rate), 0) {
		lambda = load * rate
	} else if loadGiven || !strings.Contains(spec, "rate=") {
		return nil, flagError("load", load, fmt.Sprintf("a finite load > 0 whose arrival rate load·rate has a finite mean gap, got λ = %v jobs/s", load*rate))
	}
	g, err := arrivals.BuildSpec(spec, arrivals.SpecEnv{
		Rate: lambda,
		Source: func(id uint64) rand.Source {
			return experiments.Source(seed, systems.StreamArrivals+id)
		},
	})
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", spec))
		return nil, flagError("arrivals", spec, "a valid arrival spec (see 'ratesim run --help'): "+msg)
	}
	if loadGiven && !g.DefaultRate {
		return nil, fmt.Errorf("--load %v has no effect: every process of --arrivals %q sets its own rate; leave out --load or a rate=", load, spec)
	}
	return g, nil
}
