package buckets

import (
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Verdict is what a [Limiter] decides for one job.
type Verdict uint8

const (
	// Admit: the job passes at once.
	Admit Verdict = iota
	// Delay: the job passes after Decision.Wait, known when it arrives
	// (a shaper serving its queue first come, first served).
	Delay
	// Queue: the job waits and is released later by one of the limiter's
	// own events ([Limiter.Release]); which job a token goes to is decided
	// then (a shaper serving its queue LIFO or in random order).
	Queue
	// Reject: the job is refused. Decision.RetryAfter says when a retry
	// would pass, where the model can say.
	Reject
)

// String returns the verdict's name: "admit", "delay", "queue" or "reject".
func (v Verdict) String() string {
	switch v {
	case Admit:
		return "admit"
	case Delay:
		return "delay"
	case Queue:
		return "queue"
	case Reject:
		return "reject"
	}
	return "Verdict(?)"
}

// Decision is a limiter's decision about one job.
type Decision struct {
	Verdict Verdict
	// Wait is the exact delay of a Delay verdict in nanoseconds, > 0, a
	// rational because a rate such as 3 tokens/s releases jobs between
	// two nanoseconds; 0 for every other verdict.
	Wait exact.Rat
	// RetryAfter, for a Reject verdict, is the retry hint the limiter
	// sends, in nanoseconds. The limiters of this package send how long
	// after its arrival the same job, offered again with nothing offered
	// in between, would be admitted, rounded up to the nanosecond; a
	// library profile (package profiles) sends what its library sends,
	// which may be coarser (whole seconds) or absent. 0 when the limiter
	// gives no hint (a window limiter's edge is known, a throttle's draw
	// is not; nginx sends none) and for every other verdict; [RetryNow]
	// for a hint of zero (retry at once); [NoRetry] when no retry would
	// ever pass.
	RetryAfter engine.Time
}

// Special values of Decision.RetryAfter besides a wait > 0 and 0 (no
// hint).
const (
	// NoRetry says that the job would never be admitted, however long
	// it waits: x/time/rate's InfDuration (a zero limit, or a burst
	// smaller than the job). A client honouring hints gives up.
	NoRetry = engine.Forever
	// RetryNow is a hint of zero: retry at once (Envoy's
	// x-ratelimit-reset: 0, redis-cell's retry_after 0).
	RetryNow engine.Time = -1
)

// Admitted reports whether the job passes, at once or later.
func (d Decision) Admitted() bool { return d.Verdict != Reject }

// WaitSeconds returns Wait in seconds, rounded once from its exact value.
func (d Decision) WaitSeconds() float64 { return waitSeconds(d.Wait) }

// A Limiter decides, one job at a time, whether jobs pass: the token bucket
// (policing or shaping), the leaky bucket, the GCRA, the window counters,
// the throttle and the library profiles are all Limiters, and a [System]
// puts k of them of any kind behind a dispatcher.
//
// Time is passed in, never read from a clock: t is an instant in
// nanoseconds since the run's origin. Instants passed to Offer must be
// non-decreasing, and every internal event due at or before t must have
// been made first (Next() > t); Offer panics otherwise, as that is a
// caller's error. A rejected job leaves the limiter as it was, apart from
// the passing of time and the random draw of a throttle. Every decision is
// the one exact arithmetic makes (see package exact): ties between an
// arrival and a token, or an arrival and a window edge, are decided as
// ties.
//
// Next returns the instant of the limiter's next internal event, the
// release of a job it queued, on the nanosecond clock: an exact instant g
// between two nanoseconds is reported as ceil(g), which is at or before an
// arrival at t exactly when g is. It returns [engine.Forever] when no event
// is pending (always, for a limiter that never returns Queue). Release
// makes that event and reports the job released and its exact wait; it
// panics if no event is pending.
type Limiter interface {
	Offer(t engine.Time, id int64) Decision
	Next() engine.Time
	Release() Released
}

// Released is a job a limiter released from its queue.
type Released struct {
	ID   int64     // the id the job was offered with
	Wait exact.Rat // its exact wait in nanoseconds, >= 0
}

// A Curve is a limiter that states its arrival curve: the most jobs it
// lets pass (a policer, a window) or releases (a shaper) in any closed
// interval of length d nanoseconds. Token buckets, the GCRA, the leaky
// bucket, the throttle and the sliding window log keep their promise; the
// fixed window and the sliding window counter do not, and
// [MeasureArrivalCurve] measures by how much.
type Curve interface {
	Promise(d engine.Time) float64
}

// waitSeconds converts an exact wait in nanoseconds to float64 seconds,
// correctly rounded.
func waitSeconds(w exact.Rat) float64 {
	return w.QuoFloat64(1e9)
}
