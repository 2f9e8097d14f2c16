package experiments

import (
	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/exact"
)

// DelayStats accumulates the delays of one system for a study's model
// (the limiters' shapers, say) as the split runs do: the total, the mean
// and the maximum exactly (rationals of nanoseconds); unless it is a
// summary, the quantiles exactly over the first [ExactQuantileJobs]
// positive delays and from a DDSketch of [RelativeAccuracy] beyond. Make
// one with [NewDelayStats]; it is not safe for concurrent use.
type DelayStats struct{ s delayStats }

// NewDelayStats returns empty statistics: with summary, the count, total,
// mean and maximum only, in O(1) memory (Stats' quantiles are 0 and its
// Quantiles "none").
func NewDelayStats(summary bool) *DelayStats {
	return &DelayStats{delayStats{summary: summary}}
}

// Add records one job's exact wait in nanoseconds (0 for a job that did
// not wait).
func (d *DelayStats) Add(w exact.Rat) { d.s.add(w) }

// Stats returns the statistics of the delays added so far, in seconds;
// the error is that of a delay the quantile sketch could not keep.
func (d *DelayStats) Stats() (Stats, error) { return d.s.stats(), d.s.err }

// ArrivalError names arrival a of proc in err, as a run's errors do: the
// trace's name and line ("name:line: err") when a came from a trace line,
// its instant otherwise, wrapping [ErrInput]; a cancellation is returned
// as it is.
func ArrivalError(proc arrivals.Process, a arrivals.Arrival, err error) error {
	return (&arrivalSource{proc: proc, cur: a}).wrap(err)
}
