package splitstudy_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
)

// This example reads a spec from YAML, runs its sweep on two workers and
// prints the split/one ratio of each point with its 95% confidence
// interval. Every sub-bucket has burst 1, so the split's mean delay can be
// compared with Pollaczek-Khinchine. Both points of a replication see the
// same arrivals (common random numbers), so the one bucket's mean is the
// same at both.
func ExampleRunSweep() {
	spec, err := splitstudy.ParseSpec(strings.NewReader(`
rate: 1
burst: 2
k: 2
dispatch: weighted
jobs: 20000
warmup: 2000
replications: 5
seed: 1
load: 0.5
sweep:
  p: [0.3, 0.5]
`), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	res, err := splitstudy.RunSweep(context.Background(), spec, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range res.Points {
		fmt.Printf("p = %.1f: split mean %.2f s (Pollaczek-Khinchine %.2f s), ratio %.1f in [%.1f, %.1f], %d violations\n",
			p.TrafficShares[0], p.Split.MeanDelay, p.Split.PK, p.Ratio, p.RatioLo, p.RatioHi, p.Violations)
	}
	// Output:
	// p = 0.3: split mean 1.77 s (Pollaczek-Khinchine 1.76 s), ratio 12.0 in [11.5, 12.6], 0 violations
	// p = 0.5: split mean 1.00 s (Pollaczek-Khinchine 1.00 s), ratio 6.8 in [6.6, 7.0], 0 violations
}

// This example shows the points a sweep grid expands to: the last axis
// varies fastest, and the shorthand q sets the rate and burst shares of
// sub-bucket 1.
func ExampleSpec_Points() {
	spec, err := splitstudy.ParseSpec(strings.NewReader(`
burst: 10
sweep:
  load: [0.5, 0.9]
  q: [0.3, 0.5]
`), "grid.yaml")
	if err != nil {
		log.Fatal(err)
	}
	pts, err := spec.Points()
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range pts {
		subs, err := p.Subs()
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("point %d: load %v, sub-buckets %v\n", p.Index, p.Load, subs)
	}
	// Output:
	// point 0: load 0.5, sub-buckets [(0.3, 3) (0.7, 7)]
	// point 1: load 0.5, sub-buckets [(0.5, 5) (0.5, 5)]
	// point 2: load 0.9, sub-buckets [(0.3, 3) (0.7, 7)]
	// point 3: load 0.9, sub-buckets [(0.5, 5) (0.5, 5)]
}
