package netcalc_test

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// The greedy source of docs/commands.md's curve through its server attains the
// delay bound 13/3 s (the fourth job of the burst) and the backlog bound
// 7 jobs (at 3 s: 4 + 3 jobs arrived, none departed).
func ExampleRateLatency_Serve() {
	// Greedy instants of γ(r=1, b=4): 0, 0, 0, 0, 1 s, 2 s, ...
	ts := []engine.Time{0, 0, 0, 0, 1 * engine.Second, 2 * engine.Second, 3 * engine.Second, 4 * engine.Second}
	srv := netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.Int(3)}
	res, err := srv.Serve(ts)
	if err != nil {
		panic(err)
	}
	fmt.Println("departures (s):", res.Departures)
	fmt.Println("max delay", res.MaxDelay, "s, job", res.MaxDelayJob)
	fmt.Println("max backlog", res.MaxBacklog, "jobs at", res.MaxBacklogAt, "s")
	// Output:
	// departures (s): [10/3 11/3 4 13/3 14/3 16/3 19/3 22/3]
	// max delay 13/3 s, job 3
	// max backlog 7 jobs at 3 s
}

// ServeSeconds takes exact instants, here the greedy source of a token
// bucket whose instants are not whole nanoseconds. The delay bound
// T + b/R = 0.1 + 2/3 = 23/30 s is attained.
func ExampleRateLatency_ServeSeconds() {
	ts, err := netcalc.Greedy(netcalc.TokenBucket{Rate: exact.Int(3), Burst: exact.Int(2)}, 5)
	if err != nil {
		panic(err)
	}
	srv := netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.MustParse("0.1")}
	res, err := srv.ServeSeconds(ts)
	if err != nil {
		panic(err)
	}
	fmt.Println("arrivals (s):  ", ts)
	fmt.Println("departures (s):", res.Departures)
	fmt.Println("max delay", res.MaxDelay, "s")
	// Output:
	// arrivals (s):   [0 0 1/3 2/3 1]
	// departures (s): [13/30 23/30 1.1 43/30 53/30]
	// max delay 23/30 s
}

// The greedy source of a dual token bucket: the peak-rate bucket spaces the
// first jobs, the sustained-rate bucket the later ones.
func ExampleGreedy() {
	alpha := netcalc.Concave{
		{Rate: exact.Int(4), Burst: exact.Int(1)},
		{Rate: exact.Int(1), Burst: exact.Int(3)},
	}
	ts, err := netcalc.Greedy(alpha, 6)
	if err != nil {
		panic(err)
	}
	fmt.Println(ts)
	// Output:
	// [0 0.25 0.5 1 2 3]
}
