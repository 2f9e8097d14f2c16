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
