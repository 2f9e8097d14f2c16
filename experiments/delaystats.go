package experiments

import (
	"github.com/ratesim/ratesim/exact"
)

// DelayStats accumulates the delays of one system for a study's model
// (the limiters' shapers, say) as the split runs do: the total, the mean
// and the maximum exactly (rationals of nanoseconds); unless it is a
// summary, the quantiles exactly over the first [ExactQuantileJobs]
// positive delays and from a DDSketch of 1% relative accuracy beyond (a
// log-linear histogram for one run, [NewRunDelayStats]). Make
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

// NewRunDelayStats returns the empty statistics of one run: beyond
// [ExactQuantileJobs] delayed jobs they keep a log-linear histogram of
// 1/256 relative accuracy, cheaper per job than the sketch.
func NewRunDelayStats() *DelayStats { return &DelayStats{*newRunStats()} }

// Den returns the denominator of the waits [DelayStats.AddUnits] takes, 0
// before [DelayStats.SetDen].
func (d *DelayStats) Den() int64 { return d.s.den }

// SetDen fixes the denominator den (> 0) of the waits
// [DelayStats.AddUnits] and [DelayStats.AddUnitsBatch] take, once, before
// the first of them.
func (d *DelayStats) SetDen(den int64) { d.s.setDen(den) }

// AddUnits records one job's wait of num/den nanoseconds, den the
// denominator fixed by [DelayStats.SetDen].
func (d *DelayStats) AddUnits(num exact.Int128, den int64) { d.s.addUnits(num, den) }

// AddUnitsBatch records the waits ws[i]/den nanoseconds of a batch of jobs
// and returns how many of them waited (> 0).
func (d *DelayStats) AddUnitsBatch(ws []int64, den int64) int64 { return d.s.addUnitsBatch(ws, den) }

// Reserve makes room for n exact values at once (at most
// [ExactQuantileJobs]): for a run whose number of jobs is known.
func (d *DelayStats) Reserve(n int64) { d.s.reserve(n) }

// Merge adds the delays of o (another replication) to d.
func (d *DelayStats) Merge(o *DelayStats) { d.s.merge(&o.s) }

// Distribution returns the empirical distribution of the delays (see
// [Distribution]).
func (d *DelayStats) Distribution() Distribution { return d.s.distribution() }

// Stats returns the statistics of the delays added so far, in seconds;
// the error is that of a delay the quantile sketch could not keep.
func (d *DelayStats) Stats() (Stats, error) { return d.s.stats(), d.s.err }
