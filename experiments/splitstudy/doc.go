// Package splitstudy is the study of R. Guérin's note "When Two is Worse
// Than One": a token bucket (r, b) against its split into k sub-buckets
// behind a dispatcher, fed the same arrivals, with Theorem 2 and Lemma 1
// checked at every instant. It owns the single run (ratesim run), its
// series for figures and its per-job CSV, and the sweep (ratesim sweep):
// the spec read from YAML or flags, its points, the sweep as an
// [experiments.Model] run by [experiments.RunModel], its results (CSV and
// JSON), merging shards, and its figures.
//
// What each part owns, by file:
//
//	runparams.go the parameters of a run as given, declared once (RunParams, RunTable;
//	             ratesim run's flags), checked into a RunSpec
//	run.go       one run of the one bucket against its split (RunSpec, Run, Result,
//	             CheckResult)
//	runjson.go   the JSON of a run (RunJSON)
//	series.go    the same run sampled over time for figures (RunSeries, Series)
//	jobs.go      the per-job CSV of a run (JobsHeader)
//	spec.go      the sweep specification: YAML and flags, validation with file:line
//	             errors (Spec)
//	axes.go      the sweep's grids and axes (Sweep, Grid, Axis)
//	points.go    the points of a sweep, each built and checked (Point)
//	sweep.go     the sweep as a Model: common random numbers (CommonSeed), a point's
//	             statistics from its replications, Pollaczek–Khinchine columns
//	             (Model, NewModel, RunSweep, MD1Wait)
//	results.go   sweep results: CSV and JSON (schema_version), reading back,
//	             resuming (Results, PointResult, WriteFiles, ReadResults)
//	merge.go     merging the results of shards (Merge)
//	builtin.go   the built-in split-ratio study (Builtin, BuiltinNames)
//	figures.go   figures of a sweep and their captions (SweepFigures)
//	runfigures.go the figures of a run (RunFigures, RunCaption)
//	leastbad.go  the least bad stable point of each group (LeastBad)
//	tracefit.go  a trace study fitted to its trace: the whole trace by default, its
//	             mean rate as the points' λ (FitTrace)
package splitstudy
