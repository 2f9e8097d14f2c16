package arrivals

import "github.com/ratesim/ratesim/engine"

// Arrival is one job arriving at the limiter.
type Arrival struct {
	// T is the arrival instant in nanoseconds since the origin (the first
	// arrival of a trace, or 0 for generators), exact: trace timestamps
	// are converted to integer nanoseconds without rounding, and
	// generators keep an integer clock (see [engine.Time]). T >= 0.
	T engine.Time
	// Key identifies the job's key (a trace's key column, a Zipf rank):
	// equal values have equal ids and different values different ids
	// (ids are dense, 1, 2, 3, ..., in order of first appearance), so
	// keyed limiters and key counts compare keys by value. 0 when the
	// process has no keys. A [KeyNamer] process gives the value of an id.
	Key uint64
	// Hash is the 64-bit FNV-1a hash of the key's value (0 without keys):
	// hash dispatch uses it, so that a key goes to the same sub-bucket in
	// every trace that holds it.
	Hash uint64
	// Sub is a sub-bucket index (0-based) read from a trace column, or -1
	// when the process assigns none. Column dispatch uses it.
	Sub int
	// Line is the 1-based line of a trace file the arrival was read from,
	// or 0 for generated arrivals. Errors about the arrival cite it.
	Line int
}

// Process is a stream of arrivals in non-decreasing time order.
//
// Next returns the next arrival. At the end of the stream it returns io.EOF;
// any other error is bad input (for trace readers it names the file and
// line) and ends the stream.
type Process interface {
	Next() (Arrival, error)
}
