// Package netcalc owns ratesim's deterministic network calculus: arrival
// and service curves, the delay, backlog and output bounds they imply, a
// rate-latency server simulated job by job to check those bounds, greedy
// sources that attain them, a conformance check for job streams, and an
// export of curves to the string format of the DiscoDNC tool.
//
// Everything is computed exactly, with rationals ([exact.Rat] in the API,
// [math/big] inside); floating point appears nowhere.
//
// # Units
//
// Time is in seconds (an [exact.Rat]) in every curve, bound and simulated
// departure; job streams come in as [engine.Time] instants (integer
// nanoseconds since the run's origin) or as exact instants in seconds.
// Amounts are in jobs, each job of size 1, and rates in jobs per second.
//
// # Curves
//
// An arrival curve α bounds the jobs of a stream in every window. The
// types are [TokenBucket] (the affine curve γ_{r,b}), [Concave] (the minimum
// of token buckets: every concave piecewise-linear curve) and [Staircase]
// (L jobs per window of W seconds, the curve of a window limiter). They all
// follow the convention of Le Boudec and Thiran (§1.2.1) that α(0) = 0, so
// that
//
//	γ_{r,b}(t) = b + r·t   for t > 0,   γ_{r,b}(0) = 0,
//
// and a stream with cumulative count R conforms when R(t) − R(s) ≤ α(t − s)
// for all s ≤ t, R(t) counting the jobs in [0, t). In terms of closed
// windows, which is how [Conforms] states it: for every d ≥ 0 the jobs in
// any interval [s, s+d] number at most α(d+), the limit from the right, so
// b + r·d jobs for a token bucket (b jobs at a single instant) and
// L·(floor(d/W)+1) for a staircase.
//
// The service curve is [RateLatency], β_{R,T}(t) = R·(t − T)^+ (§1.3.1).
//
// # Bounds
//
// [Delay] is the horizontal deviation h(α, β) and [Backlog] the vertical
// deviation v(α, β) (§3.1.11; Theorems 1.4.1 and 1.4.2); [Output] is the
// arrival curve α ⊘ β of the departures (Theorem 1.4.3); [Concat] is the
// service curve of servers in series (Theorem 1.4.6) and [Tandem] the same
// for servers that forward whole jobs. For a token bucket into a
// rate-latency server with r ≤ R:
//
//	h = T + b/R,   v = b + r·T,   α ⊘ β = γ_{r, b + r·T}.
//
// A bound that is infinite (a long-term arrival rate above R) is an error
// wrapping [ErrUnbounded].
//
// # Simulation
//
// [RateLatency.Serve] runs a stream through a FIFO server that delays each
// job by T seconds and then serves it in 1/R seconds, and reports exact
// departures, the maximum delay and the maximum backlog. [Greedy] builds the
// stream that sends each job as early as α allows. With unit jobs the
// theory holds as follows (Le Boudec and Thiran §1.7 on packets):
//
//   - every delay is at most h(α, β), and the greedy source of a token
//     bucket with an integer burst b attains h = T + b/R exactly (the b-th
//     job of the initial burst);
//   - the backlog in jobs, which counts the job in service, is at most
//     ceil(v(α, β)): the fluid backlog is at most v and the job in service
//     adds less than one job. The greedy token-bucket source attains v when
//     b and r·T are integers (at the instant T, before the first departure).
//   - the departures conform to [Output] for the latency T + 1/R, and the
//     delay through servers in series is bounded by [Tandem] (store and
//     forward adds 1/R per server), not by [Concat] alone.
//
// [Conforms] checks a stream against a curve exactly, for instance that a
// shaping limiter's output or a policing limiter's admitted jobs keep the
// curve they promise, and returns the first window that does not.
// [MeasureOvershoot] (and [OvershootMeter], as a stream comes) says by how
// much, exactly: the supremum over every window length of the jobs in a
// window minus α(d+), and over α(d+), with the windows where they are
// reached.
//
// # References
//
//   - J.-Y. Le Boudec and P. Thiran, Network Calculus: A Theory of
//     Deterministic Queuing Systems for the Internet, Springer LNCS 2050,
//     2001. Section numbers above refer to it.
//   - C.-S. Chang, Performance Guarantees in Communication Networks,
//     Springer, 2000.
//   - S. Bondorf and J. B. Schmitt, The DiscoDNC v2, ValueTools 2014, for
//     the curve format of [FormatDNCArrival].
package netcalc
