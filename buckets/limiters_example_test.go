package buckets_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// A policing token bucket (2 tokens/s, 2 tokens) rejects the third job at 0
// and admits again once a token has accrued, at 0.5 s.
func ExampleWithPolicing() {
	b, _ := buckets.NewTokenBucket(buckets.Params{Rate: 2, Burst: 2}, buckets.WithPolicing())
	for _, t := range []engine.Time{0, 0, 0, 0.5} {
		fmt.Println(t, b.Offer(t).Admitted)
	}
	// Output:
	// 0 true
	// 0 true
	// 0 false
	// 0.5 true
}

// A shaping token bucket (1 token/s, 1 token) with a queue of one job: the
// second job waits 1 s for the next token, the third finds the queue full.
func ExampleWithQueueCapacity() {
	b, _ := buckets.NewTokenBucket(buckets.Params{Rate: 1, Burst: 1}, buckets.WithQueueCapacity(1))
	for range 3 {
		fmt.Printf("%+v\n", b.Offer(0))
	}
	// Output:
	// {Admitted:true Delay:0}
	// {Admitted:true Delay:1}
	// {Admitted:false Delay:0}
}

// The leaky bucket releases one job every 1/R = 0.5 s: three jobs at 0
// leave at 0, 0.5 and 1 s.
func ExampleNewLeakyBucket() {
	l, _ := buckets.NewLeakyBucket(buckets.LeakyParams{Rate: 2})
	for range 3 {
		fmt.Println(l.Offer(0).Delay)
	}
	// Output:
	// 0
	// 0.5
	// 1
}

// GCRA(T = 1/r, τ = (b - 1)/r) is the policing token bucket (r, b) as a
// meter: for r = 1, b = 3 it admits three jobs at 0 and rejects the fourth.
func ExampleMatchGCRA() {
	p := buckets.MatchGCRA(buckets.Params{Rate: 1, Burst: 3})
	g, _ := buckets.NewGCRA(p)
	fmt.Printf("T = %v s, τ = %v s\n", p.Interval, p.Tolerance)
	for range 4 {
		fmt.Print(g.Offer(0).Admitted, " ")
	}
	fmt.Println()
	// Output:
	// T = 1 s, τ = 2 s
	// true true true false
}

// The sliding window counter weights the previous window's count by the
// part of it still inside the sliding window: 10 jobs at the end of window
// [0, 10) leave room for only 2.5 more at 2.5 s into the next one.
func ExampleSlidingCounter_Estimate() {
	c, _ := buckets.NewSlidingCounter(buckets.WindowParams{Limit: 10, Window: 10})
	for range 10 {
		c.Offer(9)
	}
	fmt.Println(c.Estimate(12.5))
	// Output:
	// 7.5
}

// The throttle's response function against the policing bucket's cliff,
// for b = 10 tokens, soft threshold 4.5 and hard threshold 9 tokens of
// deficit.
func ExampleThrottleParams_Admission() {
	p := buckets.ThrottleParams{Rate: 1, Burst: 10, Soft: 4.5, Hard: 9}
	for _, d := range []float64{0, 4.5, 6, 7.5, 9} {
		fmt.Printf("deficit %-3v throttle %.3f\n", d, p.Admission(d))
	}
	// Output:
	// deficit 0   throttle 1.000
	// deficit 4.5 throttle 1.000
	// deficit 6   throttle 0.667
	// deficit 7.5 throttle 0.333
	// deficit 9   throttle 0.000
}

// A throttle at deficit between its thresholds admits at random; the source
// is injected, so the run is reproducible.
func ExampleNewThrottle() {
	th, _ := buckets.NewThrottle(buckets.ThrottleParams{Rate: 0.1, Burst: 10, Soft: 2, Hard: 9}, rand.NewPCG(1, 1))
	admitted := 0
	for range 20 {
		if th.Offer(0).Admitted {
			admitted++
		}
	}
	fmt.Println(admitted, "of 20 admitted at once; deficit", th.Deficit(0))
	// Output:
	// 8 of 20 admitted at once; deficit 8
}

// α*(d) is the most instants in any closed interval of length d.
func ExampleMeasureArrivalCurve() {
	pts, _ := buckets.MeasureArrivalCurve([]engine.Time{0, 0, 1, 3, 3, 3, 7}, []engine.Time{0, 2, 3})
	for _, p := range pts {
		fmt.Printf("α*(%v) = %d in [%v, %v]\n", p.D, p.Jobs, p.From, p.To)
	}
	// Output:
	// α*(0) = 3 in [3, 3]
	// α*(2) = 4 in [1, 3]
	// α*(3) = 6 in [0, 3]
}
