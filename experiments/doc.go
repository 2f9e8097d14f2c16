// Package experiments owns runs: it builds them from specifications, drives
// the systems with arrival processes, collects statistics and checks, and
// writes results whole or not at all. cmd/ratesim reduces flags to the
// specs here and prints what comes back; report and the counterexample
// search (package experiments/verify) build on the same runs. The limiters
// study is package experiments/limiterstudy, the clients study (the backoff
// and overload studies with it) package experiments/clientstudy: each is a
// [Model] the runner runs.
//
// What each part owns, by file:
//
//	arrivals.go        one arrivals builder for every command: ArrivalsSpec (a trace, or an
//	                   arrival spec with its default rate λ = load·r) -> BuildArrivals; the
//	                   Poisson test that selects closed forms (Arrivals.PoissonRate)
//	run.go             one run of the one bucket against its split (RunSpec, Run, Result,
//	                   CheckResult), the random streams of a run (Source), input errors
//	series.go          the same run sampled over time for figures (RunSeries, Series)
//	jobs.go            the per-job CSV of a run (JobsHeader)
//	stats.go           delay statistics: exact nearest-rank quantiles up to
//	                   ExactQuantileJobs delayed jobs, then a log-linear histogram
//	                   (one run, HistogramAccuracy) or DDSketch (pooled) (Stats, Distribution)
//	ci.go              confidence intervals of means and of the split/one ratio
//	spec.go            the sweep specification: YAML and flags, axes, grids, points,
//	                   validation with file:line errors (Spec, Point, SpecError)
//	sweep.go           running a sweep: replication seeds, workers, progress,
//	                   Pollaczek–Khinchine columns (RunSweep, ReplicationSeed, MD1Wait)
//	model.go           the seam for studies of other models (package drl's, say): a Model
//	                   the runner calls per point and replication, with the same seeds,
//	                   workers, shards and progress as RunSweep, and its results Table
//	                   (RunModel, Table, ReadTable, MergeTables, CheckResume; SpecModel picks the model)
//	shard.go, merge.go splitting a sweep into shards and merging their results
//	results.go         sweep results: CSV and JSON (schema_version), reading back,
//	                   resuming (Results, PointResult, WriteFiles, ReadResults)
//	builtin.go         the built-in sweep specs (Builtin, BuiltinNames)
//	figures.go         figures of runs and sweeps, their captions, writing them
//	                   (SweepFigures, RunFigures, SaveFigures)
//	delaystats.go      the delay statistics and arrival errors of runs, for the studies of
//	                   other packages (DelayStats, ArrivalError)
//	seam.go            caption numbers and YAML errors of the split study's words, for them
//	paramsweep.go      a sweep over a model's parameters (ParamSweep, ParamGrid, ParamAxis)
//	panic.go           a panic in a worker returned as a *PanicError
//
// Randomness: every random component draws from its own PCG stream derived
// from the run's seed (see Source, CommonSeed and ReplicationSeed), so results depend on
// the seed alone, not on the machine or the number of workers.
package experiments
