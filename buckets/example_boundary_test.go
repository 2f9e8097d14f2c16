package buckets_test

import (
	"fmt"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// This example demonstrates the boundary burst: with a limit of 100 jobs
// per 60 s, 100 jobs at 59 s and 100 at 61 s. The fixed window admits all
// 200 (two windows), so 200 = 2L pass in 2 s; the sliding window log admits
// 100; a policing token bucket of 100/60 tokens/s and 100 tokens admits 100
// at 59 s and the 3 tokens accrued by 61 s.
func Example_boundaryBurst() {
	times := slices.Concat(slices.Repeat([]engine.Time{59}, 100), slices.Repeat([]engine.Time{61}, 100))
	win := buckets.WindowParams{Limit: 100, Window: 60}
	fixed, _ := buckets.NewFixedWindow(win)
	log, _ := buckets.NewSlidingLog(win)
	police, _ := buckets.NewTokenBucket(buckets.Params{Rate: 100.0 / 60, Burst: 100}, buckets.WithPolicing())
	for _, l := range []struct {
		name string
		lim  buckets.Limiter[engine.Time]
	}{{"fixed window", fixed}, {"sliding log", log}, {"token bucket", police}} {
		var passed []engine.Time
		for _, t := range times {
			if l.lim.Offer(t).Admitted {
				passed = append(passed, t)
			}
		}
		pts, _ := buckets.MeasureArrivalCurve(passed, []engine.Time{2})
		fmt.Printf("%-12s admits %3d; α*(2 s) = %d, promise %.4g\n", l.name, len(passed), pts[0].Jobs, l.lim.Promise(2))
	}
	// Output:
	// fixed window admits 200; α*(2 s) = 200, promise 100
	// sliding log  admits 100; α*(2 s) = 100, promise 100
	// token bucket admits 103; α*(2 s) = 103, promise 103.3
}
