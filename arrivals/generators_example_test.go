package arrivals_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/exact"
)

func ExampleNewPoisson() {
	p, err := arrivals.NewPoisson(2, rand.NewPCG(1, 1)) // 2 jobs/s
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		a, _ := p.Next()
		fmt.Printf("%.4f s\n", a.T.Seconds())
	}
	_, err = arrivals.NewPoisson(0, rand.NewPCG(1, 1))
	fmt.Println(err)
	// Output:
	// 0.4410 s
	// 0.5120 s
	// 1.0748 s
	// arrivals: Poisson rate 0 jobs/s is invalid: want finite and > 0
}

func ExampleNewPeriodic() {
	// Every 0.1 s from t = 1 s, exactly: 0.1 s is 100000000 ns.
	p, _ := arrivals.NewPeriodic(exact.MustParse("0.1"), exact.Int(1))
	for range 3 {
		a, _ := p.Next()
		fmt.Println(a.T, "s =", int64(a.T), "ns")
	}
	// Output:
	// 1 s = 1000000000 ns
	// 1.1 s = 1100000000 ns
	// 1.2 s = 1200000000 ns
}

// This example shows a rate whose spacing is not a whole number of
// nanoseconds: at 3 jobs/s the spacing 1/3 s is rounded up to 333333334 ns,
// so the gaps stay equal.
func ExampleNewPeriodicRate() {
	p, _ := arrivals.NewPeriodicRate(exact.Int(3), exact.Rat{})
	for range 4 {
		a, _ := p.Next()
		fmt.Println(int64(a.T), "ns")
	}
	_, err := arrivals.NewPeriodicRate(exact.MustParse("-1/3"), exact.Rat{})
	fmt.Println(err)
	// Output:
	// 0 ns
	// 333333334 ns
	// 666666668 ns
	// 1000000002 ns
	// arrivals: periodic rate -1/3 jobs/s is invalid: want > 0
}

func ExampleNewRenewal() {
	// Gamma gaps with shape 2 and rate 4 per second: mean gap 0.5 s.
	r, _ := arrivals.NewRenewal(distuv.Gamma{Alpha: 2, Beta: 4, Src: rand.NewPCG(1, 1)})
	for range 3 {
		a, _ := r.Next()
		fmt.Printf("%.4f s\n", a.T.Seconds())
	}
	// Output:
	// 0.7830 s
	// 0.9945 s
	// 1.3810 s
}

func ExampleLimit() {
	p, _ := arrivals.NewPeriodic(exact.MustParse("0.5"), exact.Rat{})
	l := arrivals.Limit(p, 3)
	for {
		a, err := l.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		fmt.Println(a.T)
	}
	// Output:
	// 0
	// 0.5
	// 1
}
