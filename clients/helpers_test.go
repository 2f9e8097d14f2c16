package clients

import (
	"github.com/ratesim/ratesim/engine"
)

// Shared test helpers.

// ms returns x milliseconds.
func ms(x int64) engine.Time { return engine.Time(x) * engine.Millisecond }

// times returns the instants as an iterator.
func times(ts ...engine.Time) func(func(engine.Time) bool) {
	return func(yield func(engine.Time) bool) {
		for _, t := range ts {
			if !yield(t) {
				return
			}
		}
	}
}
