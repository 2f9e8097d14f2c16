package engine_test

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
)

// ticker is a component that fires every Period, Count times.
type ticker struct {
	Period engine.Time
	Count  int
}

func (tk *ticker) Handle(s *engine.Sim, now engine.Time, n int) {
	fmt.Printf("tick %d at %v s\n", n, now)
	if n+1 < tk.Count {
		s.Schedule(now+tk.Period, tk, n+1)
	}
}

// This example runs a component that schedules its own events, with an
// observer that counts them.
func Example() {
	s := engine.NewSim()
	events := 0
	s.Observe(func(engine.Event) { events++ })
	s.Schedule(0, &ticker{Period: 500 * engine.Millisecond, Count: 3}, 0)
	s.Run()
	fmt.Println("events:", events, "now:", s.Now())
	// Output:
	// tick 0 at 0 s
	// tick 1 at 0.5 s
	// tick 2 at 1 s
	// events: 3 now: 1
}

// This example parses durations in the one grammar of every flag and
// YAML key: plain seconds, fractions, units and their sums, and a value
// finer than 1 ns, refused with the two nearest that fit.
func ExampleParseDuration() {
	for _, s := range []string{"0.1", "1/8", "2 s", "1h30m", "1d", "inf", "1.5ns"} {
		d, err := engine.ParseDuration(s)
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%s = %d ns = %s\n", s, int64(d), engine.FormatDuration(d))
	}
	// Output:
	// 0.1 = 100000000 ns = 100ms
	// 1/8 = 125000000 ns = 125ms
	// 2 s = 2000000000 ns = 2s
	// 1h30m = 5400000000000 ns = 1h30m0s
	// 1d = 86400000000000 ns = 24h0m0s
	// inf = 9223372036854775807 ns = inf
	// "1.5ns" is finer than 1 ns: 1ns or 2ns fit
}
