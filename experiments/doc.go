// Package experiments is the runner of ratesim's studies: it runs a study
// (a [Model]) point by point and replication by replication on workers,
// by shard, with progress and resumption, and collects its rows in a
// results [Table]; it builds arrivals, keeps delay statistics and
// confidence intervals, and writes results whole or not at all. The
// studies live in packages of their own (experiments/splitstudy,
// experiments/limiterstudy, experiments/clientstudy), each a [Model];
// cmd/ratesim reduces flags to their specs and
// prints what comes back.
//
// What each part owns, by file:
//
//	arrivals.go        one arrivals builder for every command: ArrivalsSpec (a trace, or an
//	                   arrival spec with its default rate λ = load·r) -> BuildArrivals; the
//	                   Poisson test that selects closed forms (Arrivals.PoissonRate)
//	jobsource.go       an arrival process fed to the systems, errors naming the trace line
//	                   (JobSource, its WrapArrival; ErrInput, ErrOverflow)
//	stats.go           delay statistics: exact nearest-rank quantiles up to
//	                   ExactQuantileJobs delayed jobs, then a log-linear histogram
//	                   (one run, histogramAccuracy) or DDSketch (pooled) (Stats, Distribution;
//	                   DelayStats in delaystats.go)
//	ci.go              confidence intervals of means and of ratios
//	seeds.go           the random streams of a run (Source) and of a sweep's replications
//	                   (ReplicationSeed)
//	model.go           the runner of every study: a Model the runner calls per point and
//	                   replication, on workers, by shard, with progress and resumption, and
//	                   its results Table (RunModel, Table, ReadTable, MergeTables, CheckResume)
//	shard.go           splitting a sweep into shards
//	yamlspec.go        the bounds of a sweep (MaxPoints, MaxReplications); its sweep block
//	                   is internal/specfile's (specfile.ParseSweep, specfile.Sweep)
//	figures.go         saving figures (NamedFigure, SaveFigures) and the numbers in their text
//	tablefigures.go    figures of a model's results table (TableFigures)
//	tailfigures.go     delay distributions drawn as CDFs and tails (Distribution.CDFLine,
//	                   Distribution.TailLines; their y range is plots.TailRange)
//	num.go             a statistic that may be undefined, in JSON (Num)
//	delaystats.go      the delay statistics of runs, for the studies of
//	                   other packages (DelayStats)
//	seam.go            caption numbers of the split study's words, for them
//	panic.go           a panic in a worker returned as a *PanicError
//
// Randomness: every random component draws from its own PCG stream derived
// from the run's seed (see [Source] and [ReplicationSeed]; the split study
// uses common random numbers across points, splitstudy.CommonSeed), so
// results depend on the seed alone, not on the machine or the number of
// workers.
package experiments
