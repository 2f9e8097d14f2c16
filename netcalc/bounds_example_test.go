package netcalc_test

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// docs/commands.md's example: a token bucket of burst 4 jobs and rate 1 job/s
// into a rate-latency server of rate 3 jobs/s and latency 3 s. The delay
// bound is T + b/R = 3 + 4/3 = 13/3 s.
func ExampleDelay() {
	tb := netcalc.TokenBucket{Rate: exact.Int(1), Burst: exact.Int(4)}
	srv := netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.Int(3)}
	h, err := netcalc.Delay(tb, srv)
	if err != nil {
		panic(err)
	}
	fmt.Printf("delay bound %v s (%.4f s)\n", h, h.Float64())
	// Output:
	// delay bound 13/3 s (4.3333 s)
}

// The backlog bound of docs/commands.md's example is b + r·T = 4 + 1·3 = 7 jobs.
func ExampleBacklog() {
	tb := netcalc.TokenBucket{Rate: exact.Int(1), Burst: exact.Int(4)}
	srv := netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.Int(3)}
	v, err := netcalc.Backlog(tb, srv)
	if err != nil {
		panic(err)
	}
	fmt.Println("backlog bound", v, "jobs")
	// Output:
	// backlog bound 7 jobs
}

// A dual token bucket (peak rate 3 jobs/s with burst 1, sustained rate
// 1 job/s with burst 4) through a server of rate 2 jobs/s and latency 1 s.
// The peak rate exceeds R, so the output starts with a line of slope R:
// α(t0) + R·(T − t0) = 5.5 + 2·(1 − 1.5) = 4.5 at the breakpoint t0 = 1.5 s.
func ExampleOutput() {
	alpha := netcalc.Concave{
		{Rate: exact.Int(3), Burst: exact.Int(1)},
		{Rate: exact.Int(1), Burst: exact.Int(4)},
	}
	srv := netcalc.RateLatency{Rate: exact.Int(2), Latency: exact.Int(1)}
	out, err := netcalc.Output(alpha, srv)
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output:
	// min(γ(r=2, b=4.5), γ(r=1, b=5))
}

// Servers in series: the fluid concatenation pays the burst once, and the
// tandem of servers that forward whole jobs adds 1/R for each server but
// the last.
func ExampleConcat() {
	a := netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.Int(1)}
	b := netcalc.RateLatency{Rate: exact.Int(2), Latency: exact.MustParse("0.5")}
	c, err := netcalc.Concat(a, b)
	if err != nil {
		panic(err)
	}
	t, err := netcalc.Tandem(a, b)
	if err != nil {
		panic(err)
	}
	fmt.Println("concat:", c)
	fmt.Println("tandem:", t)
	// Output:
	// concat: β(R=2, T=1.5)
	// tandem: β(R=2, T=11/6)
}

// Tandem bounds the delay of whole jobs through servers in series; Concat
// alone would not: one job through two servers of rate 1 job/s takes 2 s.
func ExampleTandem() {
	one := netcalc.RateLatency{Rate: exact.Int(1), Latency: exact.Int(0)}
	first, _ := one.Serve([]engine.Time{0})
	second, _ := one.ServeSeconds(first.Departures)
	job := netcalc.TokenBucket{Rate: exact.Int(0), Burst: exact.Int(1)}
	c, _ := netcalc.Concat(one, one)
	t, _ := netcalc.Tandem(one, one)
	hc, _ := netcalc.Delay(job, c)
	ht, _ := netcalc.Delay(job, t)
	fmt.Println("departs at", second.Departures[0], "s; Concat bound", hc, "s; Tandem bound", ht, "s")
	// Output:
	// departs at 2 s; Concat bound 1 s; Tandem bound 2 s
}

// Normalize keeps the buckets that draw the curve, in the order of their
// segments: 5 + t is above min(1 + 3t, 4 + t) everywhere.
func ExampleConcave_Normalize() {
	c, err := netcalc.Concave{
		{Rate: exact.Int(1), Burst: exact.Int(5)},
		{Rate: exact.Int(1), Burst: exact.Int(4)},
		{Rate: exact.Int(3), Burst: exact.Int(1)},
	}.Normalize()
	if err != nil {
		panic(err)
	}
	fmt.Println(c)
	// Output:
	// min(γ(r=3, b=1), γ(r=1, b=4))
}
