// Package arrivals owns where jobs come from: seeded generators of arrival
// processes and streaming readers of real arrival traces.
//
// A [Process] yields [Arrival] values in non-decreasing time order, one at a
// time, so memory does not grow with the number of jobs. Arrival times are
// [engine.Time] values, integer nanoseconds since the origin, and stay
// exact: generators keep an integer clock and round each random gap to the
// nanosecond once, periodic schedules are computed exactly from exact
// rational parameters, and trace readers convert timestamps to
// nanoseconds since the first arrival exactly, at the edge. Generators
// take an injected math/rand/v2 source; trace readers report bad input as
// errors that name the file and line.
//
// # Generators
//
// [NewPoisson] and [NewRenewal] give a [Renewal] process whose gaps come
// from any gonum distuv.Rander, and [GapDistribution] parameterises the
// common families (exponential, gamma, Weibull, log-normal, Pareto,
// uniform, deterministic) by mean rate and squared coefficient of
// variation; [NewPeriodic] and [NewPeriodicRate] give evenly spaced
// arrivals at exact instants (the first nanosecond at or after each
// exact instant, as a timer fires). [NewMMPP] is a
// Markov-modulated Poisson process, [NewOnOff] a superposition of on-off
// sources, [NewBatch] a batch (compound) Poisson process and [NewCron]
// synchronized clients firing at period boundaries. Generators are
// infinite; [Limit] stops one after n arrivals. Their Next methods do not
// allocate.
//
// [Superpose] merges processes; [Scale], [Thin], [Jitter] and [Window]
// transform one; [WithZipfKeys] gives its arrivals hot keys. [BuildSpec]
// builds any of these from a spec string such as
// "renewal:dist=pareto,rate=0.9,scv=4 | keys:n=1000,s=1.1" (grammar in
// [SpecHelp]), giving each component its own random stream
// ([ProcessStream], [TransformStream]).
//
// # Traces
//
// [NewTrace] and [Open] read a trace as a [*Trace], configured by
// [TraceOptions]: a CSV or TSV file with a header line ([FormatCSV]; which
// column holds the time and in what format, optional key and sub-bucket
// columns), a web-server access log ([FormatCLF]), JSON lines
// ([FormatJSONL]) or per-interval counts ([FormatCounts], [FormatWide]),
// gzip-compressed or not, sorted or streamed, with bad lines skipped or
// not, from a file or standard input ("-"). Timestamps are parsed exactly
// into integer nanoseconds since the Unix epoch; Arrival.T is the exact
// difference from the first arrival, whose instant [Trace.Origin] gives.
// Bad input is a [*TraceError] ("arrivals: FILE:LINE: MSG") wrapping a
// sentinel such as [ErrOutOfOrder]. Durations of specs are read exactly
// by the one grammar of [engine.ParseDuration] ("500ms", "0.1").
//
// # Statistics
//
// [Stats] summarises a stream in one pass (rates, peaks, gaps, index of
// dispersion, keys), and [BurstCurve] computes its burstiness curve b(r),
// the smallest token bucket that delays no job (or at most m jobs). Both
// decide exactly (which window an arrival is in, whether a job waits) and
// report float64 figures rounded from exact values.
package arrivals
