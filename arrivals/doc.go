// Package arrivals owns where jobs come from: seeded generators of arrival
// processes and streaming readers of real arrival traces.
//
// A [Process] yields [Arrival] values in non-decreasing time order, one at a
// time, so memory does not grow with the number of jobs. Generators take an
// injected math/rand/v2 source; trace readers convert timestamps to seconds
// since the first arrival once, at the edge, and report bad input as errors
// that name the file and line.
//
// # Generators
//
// [NewPoisson] and [NewRenewal] give a [Renewal] process whose gaps come
// from any gonum distuv.Rander; [NewPeriodic] gives evenly spaced arrivals.
// Generators are infinite; [Limit] stops one after n arrivals. Their Next
// methods do not allocate.
//
// # Traces
//
// [NewTrace] and [Open] read a CSV or TSV file with a header line as a
// [*Trace], configured by [TraceOptions]: which column holds the time and in
// what format, optional key and sub-bucket columns, and whether to sort the
// trace or skip bad lines. Timestamps are parsed exactly into integer
// nanoseconds and rounded to float64 seconds once. Bad input is a
// [*TraceError] ("arrivals: FILE:LINE: MSG") wrapping a sentinel such as
// [ErrOutOfOrder].
package arrivals
