package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// buildGenerated builds the process of an --arrivals spec (see
// arrivals.SpecHelp) for a run with root seed seed, with
// experiments.BuildArrivals: component i draws from
// experiments.Source(seed, systems.StreamArrivals + id), id the
// component's arrivals.ProcessStream or TransformStream, so the first
// process uses the stream a Poisson run always used. A process without
// rate= takes λ = load·rate; loadGiven reports whether --load was given,
// which is an error when no component uses it. The process to run is the
// returned *arrivals.Generated (keys are named as #id).
func buildGenerated(spec string, load float64, rate exact.Rat, seed uint64, loadGiven bool) (*arrivals.Generated, error) {
	if _, ok := experiments.DefaultLambda(load, rate); !ok && (loadGiven || !strings.Contains(spec, "rate=")) {
		return nil, flagError("load", load, fmt.Sprintf("a finite load > 0 whose arrival rate load·rate has a finite mean gap, got λ = %v jobs/s", load*rate.Float64()))
	}
	a, err := experiments.BuildArrivals(context.Background(), experiments.ArrivalsSpec{Spec: spec, Load: load, Rate: rate}, seed)
	if err != nil {
		msg := strings.TrimPrefix(err.Error(), fmt.Sprintf("arrivals: spec %q: ", spec))
		return nil, flagError("arrivals", spec, "a valid arrival spec (see 'ratesim run --help'): "+msg)
	}
	g := a.Generated
	if loadGiven && !g.DefaultRate {
		return nil, fmt.Errorf("--load %v has no effect: every process of --arrivals %q sets its own rate; leave out --load or a rate=", load, spec)
	}
	return g, nil
}
