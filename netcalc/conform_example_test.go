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

// The departures of a server are a stream of exact instants: here the
// greedy source of γ(r=1, b=4) through β(R=3, T=3) departs in a burst of
// jobs 1/3 s apart, which the output curve of the server with its
// packetizer, α ⊘ β_{3, 3+1/3} = γ(r=1, b=4+10/3), allows, and a curve of
// burst 1 does not.
func ExampleConformsSeconds() {
	alpha := netcalc.TokenBucket{Rate: exact.Int(1), Burst: exact.Int(4)}
	srv := netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.Int(3)}
	ts, _ := netcalc.Greedy(alpha, 10)
	res, _ := srv.ServeSeconds(ts)
	out, _ := netcalc.Output(alpha, netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.MustParse("10/3")})
	_, ok, _ := netcalc.ConformsSeconds(res.Departures, out)
	fmt.Println(out, "conforms:", ok)
	one := netcalc.TokenBucket{Rate: exact.Int(1), Burst: exact.Int(1)}
	v, ok, _ := netcalc.ConformsSeconds(res.Departures, one)
	fmt.Println(one, "conforms:", ok, "- jobs", v.First, "to", v.Last, "in", v.Length, "s, at most", v.Bound)
	// Output:
	// min(γ(r=1, b=22/3)) conforms: true
	// γ(r=1, b=1) conforms: false - jobs 0 to 1 in 1/3 s, at most 4/3
}
