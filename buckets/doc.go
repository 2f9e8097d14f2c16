// Package buckets owns the limiters of ratesim: the token bucket (policing
// or shaping, any service order), the leaky bucket as a queue, the GCRA
// (the leaky bucket as a meter), the fixed window counter, the sliding
// window log and counter, and the throttle, all behind one protocol,
// [Limiter]: offered a job at instant t, a limiter returns a [Decision]
// (admit now, admit after an exact wait, queue for a later release, or
// reject with a retry-after), and it exposes its next internal event.
//
// # Exactness
//
// Time is passed in as integer nanoseconds ([engine.Time]), never read
// from a clock, and parameters are exact rationals ([exact.Rat]: a rate
// written 0.7 is 7/10 tokens/s, 10/13 is 10/13). Each limiter keeps its
// instants in units of 1/S ns, S the smallest scale that makes one token's
// time and its burst's time whole numbers of units, so every decision (a
// token due exactly at an arrival, a job exactly on a window edge, a job
// exactly W old) is the decision of exact arithmetic, at any instant of a
// Unix-epoch trace. Floating point appears only in what is reported (a
// wait converted to seconds once) and in a throttle's random draw.
//
// # The token bucket and the note
//
// [TokenBucket] is modelled as the note's G/D/1 queue (R. Guérin, "When Two
// is Worse Than One", 2019, eq. (1)); [GD1] exposes its exact state (N(t),
// U(t), S(t) in closed form) for the check of Theorem 2 and Lemma 1, which
// package systems runs on systems of token buckets.
//
// # Errors
//
// Constructors validate their parameters and return errors wrapping
// [ErrParam] (a [*ParamError] names the parameter, its value and what
// would fit). Offering a time earlier than an earlier one, or releasing
// when nothing is queued, is a caller's error and panics.
package buckets
