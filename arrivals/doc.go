// Package arrivals owns where jobs come from: seeded generators of arrival
// processes and streaming readers of real arrival traces.
//
// A [Process] yields [Arrival] values in non-decreasing time order, one at a
// time, so memory does not grow with the number of jobs. Generators take an
// injected math/rand/v2 source; trace readers convert timestamps to seconds
// since the first arrival once, at the edge, and report bad input as errors
// that name the file and line.
package arrivals
