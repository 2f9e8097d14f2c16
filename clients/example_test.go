package clients_test

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// bucket is a policing token bucket of burst 1 and one token per period,
// full at 0, in integer nanoseconds; a refused job learns when the next
// token is due.
type bucket struct {
	period, level, last engine.Time
}

func (b *bucket) Offer(t engine.Time, _ int64) buckets.Decision {
	b.level = min(b.period, b.level+t-b.last)
	b.last = t
	if b.level == b.period {
		b.level = 0
		return buckets.Decision{Verdict: buckets.Admit}
	}
	return buckets.Decision{Verdict: buckets.Reject, RetryAfter: b.period - b.level}
}

func (b *bucket) Next() engine.Time         { return engine.Forever }
func (b *bucket) Release() buckets.Released { panic("bucket: nothing queued") }

// This example runs five clients arriving together at a bucket that
// passes one request per second, first retrying with full jitter (seed
// 11), then honouring the bucket's Retry-After exactly: all those refused
// come back together at each whole second and one gets through, so
// 5 + 4 + 3 + 2 + 1 = 15 attempts, the last at 4 s.
func Example() {
	for _, b := range []clients.Backoff{
		clients.FullJitter{Base: 250 * engine.Millisecond, Cap: 4 * engine.Second},
		clients.HonorRetryAfter{Fallback: clients.NoBackoff{}},
	} {
		res, err := clients.Run(clients.Scenario{
			Arrivals: func(yield func(engine.Time) bool) {
				for range 5 {
					if !yield(0) {
						return
					}
				}
			},
			Retry: clients.RetryPolicy{Backoff: b},
			Seed:  11,
		}, &bucket{period: engine.Second, level: engine.Second})
		if err != nil {
			fmt.Println(err)
			return
		}
		f := res.Foreground
		fmt.Printf("%T: %d attempts for %d requests, drained in %.3f s\n", b, f.Attempts, f.Requests, f.Drain)
	}
	// Output:
	// clients.FullJitter: 23 attempts for 5 requests, drained in 5.450 s
	// clients.HonorRetryAfter: 15 attempts for 5 requests, drained in 4.000 s
}

// The sleeps of capped exponential backoff: base·2^n, n = 1 for the first
// retry, up to the cap.
func ExampleExponential() {
	b := clients.Exponential{Base: 100 * engine.Millisecond, Cap: engine.Second}
	for n := 1; n <= 5; n++ {
		fmt.Printf("retry %d sleeps %v s\n", n, b.Sleep(clients.Failure{N: n}, nil))
	}
	// Output:
	// retry 1 sleeps 0.2 s
	// retry 2 sleeps 0.4 s
	// retry 3 sleeps 0.8 s
	// retry 4 sleeps 1 s
	// retry 5 sleeps 1 s
}

// A paced client sends at most Rate requests per second: three requests
// handed over at once at 3/s go out 1/3 s apart, rounded up to the
// nanosecond.
func ExamplePaced() {
	s := engine.NewSim()
	g := clients.NewGate(s, &bucket{period: 1, level: 1}) // admits one per ns
	p, err := clients.NewPaced(s, g, clients.PaceParams{Rate: exact.Int(3)}, 0, rand.NewPCG(1, 1))
	if err != nil {
		fmt.Println(err)
		return
	}
	p.RecordSends()
	p.Backlog(3)
	s.Run()
	fmt.Println(p.Sends())
	// Output:
	// [0 0.333333334 0.666666668]
}

// One run of Brooker's study with two clients and no network variance:
// both read version 0 at 10 ms and write at 30 ms; the second write fails,
// its client sleeps 10 ms (5 ms·2^1) and succeeds on its second write:
// three writes, the last answer at 90 ms.
func ExampleRunOCC() {
	b := clients.Exponential{Base: 5 * engine.Millisecond, Cap: 2 * engine.Second}
	run := clients.RunOCC(2, b, 0.010, 0, func(client int) rand.Source {
		return clients.OCCStream(11, "exponential", 2, 0, client)
	})
	fmt.Printf("%d writes, done at %v s\n", run.Calls, run.End)
	// Output:
	// 3 writes, done at 0.09 s
}

// A small version of Brooker's study: 20 clients, 30 runs per strategy,
// the mean and the half-width of the 95% confidence interval of the writes
// and of the completion time. The numbers depend only on the seed.
func ExampleOCCStudy() {
	p := clients.DefaultOCC()
	p.Clients = []int{20}
	p.Runs = 30
	pts, err := clients.OCCStudy(p)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, pt := range pts {
		fmt.Printf("%-12s %4.0f ± %.0f writes %6.0f ± %4.0f ms\n", pt.Strategy, pt.Calls, pt.CallsCI, pt.TimeMs, pt.TimeCI)
	}
	// Output:
	// none          152 ± 4 writes    598 ±   19 ms
	// exponential   153 ± 5 writes  14826 ± 1078 ms
	// full          100 ± 1 writes    990 ±  101 ms
	// equal         109 ± 2 writes   1604 ±  162 ms
	// decorrelated  100 ± 2 writes    821 ±   68 ms
}
