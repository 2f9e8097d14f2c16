package limiterstudy_test

import (
	"context"
	"fmt"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
)

// RunLimiters on the built-in boundary pattern for L = 4 jobs per W = 4 s:
// 4 jobs 1 s before the window edge at 4 s, 4 jobs 1 s after it, 4 more
// over the rest of the window. The fixed window lets 2L = 8 through in 2 s;
// the sliding window counter 7 in 3.25 s; the log keeps its promise.
func ExampleRunLimiters() {
	proc, _ := arrivals.NewBoundary(arrivals.BoundarySpec{Window: 4 * engine.Second, Gap: engine.Second, Burst: 4, Stream: 4, Cycles: 1})
	spec := limiterstudy.LimitersSpec{
		Params:    limiterstudy.Params{Rate: exact.Int(1), Limit: 4, Window: exact.Int(4)},
		Names:     []string{"fixed-window", "sliding-log", "sliding-counter", "token-police"},
		Durations: []engine.Time{0, 2 * engine.Second, 3250 * engine.Millisecond},
	}
	res, err := limiterstudy.RunLimiters(context.Background(), spec, proc)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, l := range res.Limiters {
		w := l.Worst
		fmt.Printf("%-15s admits %d of %d; worst α*(%v s) = %d, %.3g× the promise %.4g\n", l.Name, l.Admitted, res.Jobs, w.D, w.Jobs, w.Ratio, w.Promise)
	}
	// Output:
	// fixed-window    admits 8 of 12; worst α*(2 s) = 8, 2× the promise 4
	// sliding-log     admits 4 of 12; worst α*(0 s) = 4, 1× the promise 4
	// sliding-counter admits 7 of 12; worst α*(3.25 s) = 7, 1.75× the promise 4
	// token-police    admits 7 of 12; worst α*(0 s) = 4, 1× the promise 4
}
