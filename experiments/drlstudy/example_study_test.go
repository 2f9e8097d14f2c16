package drlstudy_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/drlstudy"
)

// This example sweeps the sync period of the reconciling buckets (reconcile) against
// the one bucket, with two replications per point, and prints the mean
// jobs admitted and the worst overshoot of each design at each point:
// with T = 0 and no message delay reconcile decides as the one bucket; with
// T = 1 s each of the 4 nodes spends its own copy of the bucket for a
// second, and the fleet admits 1.49 times the promise (R, B) in its worst
// interval. Each point has its own seeds, so the one bucket's numbers
// differ between the points.
func ExampleParseStudy() {
	spec := `
model: drl
drl: {designs: "one,reconcile", police: true, load: 1.5, jobs: 1000, nodes: 4}
replications: 2
sweep:
  sync_period: [0, 1s]
`
	study, err := drlstudy.ParseStudy(strings.NewReader(spec), "example.yaml")
	if err != nil {
		log.Fatal(err)
	}
	t, err := experiments.RunModel(context.Background(), "example", drlstudy.ModelName, study, experiments.SweepOptions{Workers: 2})
	if err != nil {
		log.Fatal(err)
	}
	design, period, admitted, over := t.Column("design"), t.Column("sync_period_s"), t.Column("admitted"), t.Column("worst_overshoot")
	for _, r := range t.Rows {
		fmt.Printf("%-9s T = %v s: %.1f admitted, overshoot %.4f\n", r[design], r[period], r[admitted], r[over])
	}
	// Output:
	// one       T = 0 s: 665.5 admitted, overshoot 1.0000
	// reconcile T = 0 s: 665.5 admitted, overshoot 1.0000
	// one       T = 1 s: 674.5 admitted, overshoot 1.0000
	// reconcile T = 1 s: 979.5 admitted, overshoot 1.5239
}
