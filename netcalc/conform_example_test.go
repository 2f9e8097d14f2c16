package netcalc_test

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// A sliding-window limiter's promise of 2 jobs per second, checked on a
// stream that has 3 jobs within 0.9 s. The same stream conforms to a token
// bucket of rate 2 jobs/s and burst 2 (3 <= 2 + 2·0.9).
func ExampleConforms() {
	ts := []engine.Time{0, 500 * engine.Millisecond, 900 * engine.Millisecond, 2000 * engine.Millisecond}
	v, ok, err := netcalc.Conforms(ts, netcalc.Staircase{Jobs: 2, Window: exact.Int(1)})
	if err != nil {
		panic(err)
	}
	fmt.Println("staircase conforms:", ok)
	if !ok {
		fmt.Printf("jobs %d..%d: %d jobs in %v s, at most %v allowed\n", v.First, v.Last, v.Jobs, v.Length, v.Bound)
	}
	_, ok, _ = netcalc.Conforms(ts, netcalc.TokenBucket{Rate: exact.Int(2), Burst: exact.Int(2)})
	fmt.Println("γ(r=2, b=2) conforms:", ok)
	// Output:
	// staircase conforms: false
	// jobs 0..2: 3 jobs in 0.9 s, at most 2 allowed
	// γ(r=2, b=2) conforms: true
}
