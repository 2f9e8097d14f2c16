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
// Simulation time is a [Time]: an integer count of nanoseconds since the
// run's origin (the first arrival of a trace, or 0 for generated arrivals),
// as ns-3 keeps Time and OMNeT++ simtime_t, and as golang.org/x/time/rate
// keeps its clock. The reason is exactness: real traces are full of ties
// (whole seconds, millisecond grids, periodic clients), and a model must
// decide a token due exactly when a job arrives, or a job exactly on a
// window edge, as exact arithmetic does. With integer instants every tie
// is a tie; in float64 seconds 0.1 + 0.2 > 0.3 decides it.
//
//   - Range: ±2^63 ns, about ±292 years from the origin. A model whose
//     instants would leave it reports an error rather than wrapping.
//   - Resolution: 1 ns everywhere in the range. Trace readers parse
//     decimal timestamps exactly into nanoseconds (so 1700000000.3 after
//     1700000000.0 is exactly 300000000 ns later, at any point of a
//     Unix-epoch trace), decimal periods are exact (0.1 s is 100000000 ns),
//     and continuous random gaps are rounded to the nearest nanosecond.
//   - Instants between nanoseconds. A limiter whose rate does not divide a
//     nanosecond (3 tokens/s puts tokens 1/3 s apart) computes its instants
//     as exact rationals in units of its own (package exact) and decides
//     with them. An event it schedules on the clock is delivered at the
//     next whole nanosecond, as a timer fires at or after its deadline:
//     since every arrival is on the clock, an instant g is at or before an
//     arrival at t exactly when ceil(g) is, so the order of such events
//     against arrivals is the exact order.
//   - Ties: events are ordered by (time, priority, insertion sequence), so
//     two events at the same instant run by priority (a release before an
//     arrival) and then in the order they were scheduled, on every machine.
//
// Reported quantities (delays in seconds, means, totals) are converted to
// float64 once, from their exact values ([Time.Seconds] rounds correctly).
//
// # Cost
//
// Schedule and Step cost O(log n) where n is the number of pending events;
// the queue is a binary heap of event values (no per-event allocation, no
// interface boxing).
package engine
