package profiles_test

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/profiles"
)

// This example offers eight requests in the same millisecond to nginx's
// limit_req at 10r/s with burst=5, then the same with nodelay.
func ExampleParse() {
	for _, spec := range []string{"nginx:rate=10r/s,burst=5", "nginx:rate=10r/s,burst=5,nodelay"} {
		p, err := profiles.Parse(spec)
		if err != nil {
			fmt.Println(err)
			return
		}
		l := p.New()
		fmt.Print(p, ":")
		for i := range 8 {
			d := l.Offer(0, int64(i))
			if d.Verdict == buckets.Delay {
				fmt.Printf(" %v(%gs)", d.Verdict, d.WaitSeconds())
			} else {
				fmt.Printf(" %v", d.Verdict)
			}
		}
		fmt.Println()
	}
	// Output:
	// nginx:rate=10r/s,burst=5: admit delay(0.1s) delay(0.2s) delay(0.3s) delay(0.4s) delay(0.5s) reject reject
	// nginx:rate=10r/s,burst=5,nodelay: admit admit admit admit admit admit reject reject
}

// This example shows the burst conventions side by side: how many of 20
// requests at the same instant pass at once.
func ExampleProfile_New() {
	for _, spec := range []string{
		"xrate:limit=10,burst=5",                       // b: starts full
		"throttled:max_rate=10,max_burst=5",            // b + 1
		"redis-rate:rate=10,burst=5,origin=1483228800", // exactly b
		"guava-bursty:permits_per_second=5",            // first free, starts empty
		"uber:rate=10,slack=5",                         // a pacer: the first only, from cold
	} {
		l := profiles.MustParse(spec).New()
		n := 0
		for i := range 20 {
			if l.Offer(0, int64(i)).Verdict == buckets.Admit {
				n++
			}
		}
		fmt.Printf("%-45s %d\n", spec, n)
	}
	// Output:
	// xrate:limit=10,burst=5                        5
	// throttled:max_rate=10,max_burst=5             6
	// redis-rate:rate=10,burst=5,origin=1483228800  5
	// guava-bursty:permits_per_second=5             1
	// uber:rate=10,slack=5                          1
}

// This example lists the registry as the CLI's help would.
func ExampleRegistry() {
	for _, in := range profiles.Registry()[:2] {
		fmt.Println(in.Name, "-", in.Library)
		for _, k := range in.Keys {
			fmt.Printf("  %s=%s (%s)\n", k.Name, k.Default, k.Unit)
		}
	}
	// Output:
	// xrate - golang.org/x/time/rate (Limiter: AllowN, ReserveN, WaitN)
	//   limit=10 (events/s)
	//   burst=1 (tokens)
	//   call=allow (allow|reserve|wait)
	//   max_wait=inf (duration)
	//   version=v0.16.0 (v0.MINOR.PATCH)
	// guava-bursty - Guava RateLimiter.create(permitsPerSecond) (SmoothBursty), acquire() or tryAcquire(timeout)
	//   permits_per_second=10 (permits/s)
	//   call=acquire (acquire|try_acquire)
	//   timeout=0s (duration)
}

// This example reads an RFC 2697 marker's colour counts.
func ExampleSrTCM_Counts() {
	m, _ := profiles.NewSrTCM(profiles.SrTCMConfig{
		CIR: exact.Int(10), CBS: 2, EBS: 1, Size: 1, Map: profiles.DefaultColourVerdicts,
	})
	for i := range 5 {
		m.Offer(engine.Time(i)*10*engine.Millisecond, int64(i))
	}
	fmt.Printf("%+v\n", m.Counts())
	// Output:
	// {Green:2 Yellow:1 Red:2}
}
