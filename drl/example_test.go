package drl_test

import (
	"context"
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/exact"
)

// This example runs four designs on the same 2000 Poisson jobs at 1.5
// times the limit (R, B) = (10, 20), policing, over 4 nodes: the static
// split rejects about what the one bucket does; reconciling every 100 ms
// through an owner lets the nodes spend stale copies of the bucket, and
// the store failing open for 50 s admits every job of the outage, both
// beyond the promise (overshoot above 1).
func ExampleRun() {
	limit := buckets.Params{Rate: exact.Int(10), Burst: exact.Int(20)}
	base := drl.Spec{Bucket: limit, Nodes: 4, Police: true, Dispatch: "rr", Seed: 1,
		Store: drl.StoreParams{Outages: []drl.Interval{{From: 20e9, To: 70e9}}, Fail: drl.FailOpen},
		Sync:  drl.SyncParams{Period: 100e6, BatchLimit: 1000}, // 100 ms
	}
	for _, design := range []string{"one", "static", "reconcile", "store"} {
		s := base
		s.Design = design
		jobs, _ := arrivals.NewPoisson(15, rand.NewPCG(1, 0))
		r, err := drl.Run(context.Background(), s, jobs, 2000)
		if err != nil {
			fmt.Println(err)
			return
		}
		sum, _ := drl.Summarize(r, limit, nil, 0)
		fmt.Printf("%-9s admitted %4d rejected %4d overshoot %.4f excess %.4g\n", design, sum.Admitted, sum.Rejected, sum.Overshoot, sum.Excess)
	}
	// Output:
	// one       admitted 1340 rejected  660 overshoot 1.0000 excess -0.001219
	// static    admitted 1336 rejected  664 overshoot 0.9981 excess -2.29
	// reconcile admitted 1760 rejected  240 overshoot 1.3363 excess 419.6
	// store     admitted 1609 rejected  391 overshoot 1.5078 excess 269
}
