package arrivals_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/arrivals"
)

func ExampleNewPoisson() {
	p, err := arrivals.NewPoisson(2, rand.NewPCG(1, 1)) // 2 jobs/s
	if err != nil {
		fmt.Println(err)
		return
	}
	for range 3 {
		a, _ := p.Next()
		fmt.Printf("%.4f s\n", a.T)
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
	p, _ := arrivals.NewPeriodic(0.1, 1) // every 0.1 s from t = 1 s
	for range 3 {
		a, _ := p.Next()
		fmt.Println(a.T)
	}
	// Output:
	// 1
	// 1.1
	// 1.2
}

func ExampleNewRenewal() {
	// Gamma gaps with shape 2 and rate 4 per second: mean gap 0.5 s.
	r, _ := arrivals.NewRenewal(distuv.Gamma{Alpha: 2, Beta: 4, Src: rand.NewPCG(1, 1)})
	for range 3 {
		a, _ := r.Next()
		fmt.Printf("%.4f s\n", a.T)
	}
	// Output:
	// 0.7830 s
	// 0.9945 s
	// 1.3810 s
}

func ExampleLimit() {
	p, _ := arrivals.NewPeriodic(0.5, 0)
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
