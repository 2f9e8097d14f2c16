package systems

import (
	"errors"

	"github.com/ratesim/ratesim/engine"
)

// Job is one arrival offered to a system.
type Job struct {
	ID   int64       // job number, 0-based, in order of arrival
	T    engine.Time // arrival instant, ns since the origin
	Key  uint64      // the job's key: equal keys have equal ids, different keys different ids; 0 when none
	Hash uint64      // a 64-bit hash of the key's value, for hash dispatch (0 when none)
	Sub  int         // the node the input names (0-based), or -1; for column dispatch
}

// ErrOrder is wrapped by the error of an arrival earlier than the previous
// one.
var ErrOrder = errors.New("arrivals out of order")

// ErrOverflow is wrapped by the error of a run whose instants leave the
// clock's range (about 292 years from the origin): a job released, or
// waiting, beyond it.
var ErrOverflow = errors.New("instant beyond the clock's range")

// A JobError is an error about one job of a run, which it names by
// number, so that a caller feeding jobs in batches can find the job's
// source (a trace line).
type JobError struct {
	ID  int64 // the job's number, 0-based
	Err error
}

func (e *JobError) Error() string { return e.Err.Error() }
func (e *JobError) Unwrap() error { return e.Err }
