package engine

import "math"

// Time is a simulation instant in seconds since the start of the run
// (float64). See the package documentation for its range and resolution.
type Time float64

// Forever is an instant later than every finite one; a component with
// nothing to do reports it as its next event time.
const Forever = Time(math.MaxFloat64)

// Seconds returns t as a plain float64 count of seconds.
func (t Time) Seconds() float64 { return float64(t) }
