// Package engine owns the simulation clock and the discrete-event loop that
// every timed model in ratesim runs on.
//
// It knows nothing about token buckets or arrivals: components schedule their
// own events on a [Sim], and observers are called after each event. Later
// models (reconciliation timers, store outages, retrying clients) are further
// components on the same loop.
//
// # Time
//
// Simulation time is a [Time]: float64 seconds since the start of the run.
// The choice is deliberate. The alternative, 64-bit integer ticks as in ns-3
// and OMNeT++, makes ties exact but cannot represent the departure instants
// of a token bucket exactly either (a rate of 3 tokens/s puts departures
// 1/3 s apart, which no decimal tick divides), and its range at 1 ns
// resolution (about 292 years) is too short for the slow rates researchers
// probe (rate 1e-10 tokens/s means 1e10 s between tokens). float64 seconds
// give:
//
//   - Range: every finite value; instants up to 2^53 s (about 2.9e8 years)
//     are kept with a resolution of at least 1 s, and integers up to 2^53
//     are exact. A computed instant that is not finite is reported as an
//     error by the components that compute it, never wrapped around.
//   - Resolution: relative, 2^-52 of the instant (unit roundoff u = 2^-53):
//     about 1.1e-10 s at 1e6 s (11.6 days), 2.2e-16 s at 1 s. A 23-day
//     trace (2e6 s) is resolved to better than 0.5 ns, finer than any
//     trace format ratesim reads.
//   - Ties: events are ordered by (time, insertion sequence), so two events
//     at the same instant run in the order they were scheduled, on every
//     machine. Exact float equality is used only for this ordering.
//
// Trace readers convert timestamps exactly to integer nanoseconds, subtract
// the first arrival in integer arithmetic and round once to float64, so an
// input of 0.3 s becomes the float64 nearest 0.3 rather than an accumulated
// difference of two large rounded numbers.
//
// # Cost
//
// Schedule and Step cost O(log n) where n is the number of pending events;
// the queue is a binary heap of event values (no per-event allocation, no
// interface boxing).
package engine
