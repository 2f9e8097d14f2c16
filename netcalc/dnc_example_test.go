package netcalc_test

import (
	"fmt"

	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// docs/commands.md's curves in the string format of the DiscoDNC network
// calculator, for its Curve.getFactory().createArrivalCurve(String) and
// createServiceCurve(String). A dual token bucket has a breakpoint where
// 1 + 3t = 4 + t/3, at t = 9/8 s.
func ExampleFormatDNCArrival() {
	tb := netcalc.TokenBucket{Rate: exact.Int(1), Burst: exact.Int(4)}
	ac, err := netcalc.FormatDNCArrival(tb)
	if err != nil {
		panic(err)
	}
	fmt.Println(ac)
	dual, err := netcalc.FormatDNCArrival(netcalc.Concave{
		{Rate: exact.Int(3), Burst: exact.Int(1)},
		{Rate: exact.MustParse("1/3"), Burst: exact.Int(4)},
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(dual)
	// Output:
	// AC{(0,0),0;!(0,4),1}
	// AC{(0,0),0;!(0,1),3;(9 / 8,35 / 8),1 / 3}
}

// docs/commands.md's server of rate 3 jobs/s and latency 3 s.
func ExampleFormatDNCService() {
	sc, err := netcalc.FormatDNCService(netcalc.RateLatency{Rate: exact.Int(3), Latency: exact.Int(3)})
	if err != nil {
		panic(err)
	}
	fmt.Println(sc)
	// Output:
	// SC{(0,0),0;!(3,0),3}
}

// DiscoDNC's output curve for docs/commands.md's example, as its double backend
// prints it, read back.
func ExampleParseDNCArrival() {
	out, err := netcalc.ParseDNCArrival("AC{(0.0,0.0),0.0;!(0.0,7.0),1.0}")
	if err != nil {
		panic(err)
	}
	fmt.Println(out)
	// Output:
	// min(γ(r=1, b=7))
}

// A rate-latency curve as DiscoDNC prints it with its rational backend.
func ExampleParseDNCService() {
	s, err := netcalc.ParseDNCService("SC{(0,0),0;!(1 / 2,0),5 / 2}")
	if err != nil {
		panic(err)
	}
	fmt.Println(s)
	// Output:
	// β(R=2.5, T=0.5)
}
