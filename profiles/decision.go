package profiles

import (
	"fmt"
	"math"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// admitted is the decision for a job that passes at once.
func admitted() buckets.Decision { return buckets.Decision{Verdict: buckets.Admit} }

// delayed is the decision for a job that passes after wait nanoseconds; a
// wait <= 0 is an admission.
func delayed(wait int64) buckets.Decision {
	if wait <= 0 {
		return admitted()
	}
	return buckets.Decision{Verdict: buckets.Delay, Wait: exact.Int(wait)}
}

// rejected is the decision for a refused job; retry is the RetryAfter in
// nanoseconds, 0 when the model cannot say.
func rejected(retry engine.Time) buckets.Decision {
	if retry < 0 {
		retry = 0
	}
	return buckets.Decision{Verdict: buckets.Reject, RetryAfter: retry}
}

// clock enforces the protocol's rule that instants passed to Offer never
// decrease.
type clock struct {
	last    engine.Time
	started bool
}

// advance records t, panicking if it is earlier than the previous instant.
func (c *clock) advance(t engine.Time, who string) {
	if c.started && t < c.last {
		panic(fmt.Sprintf("profiles: %s.Offer(%v) after Offer(%v): instants must not decrease", who, t, c.last))
	}
	c.last, c.started = t, true
}

// noQueue panics for Release on a profile, none of which queues.
func noQueue(who string) buckets.Released {
	panic("profiles: " + who + ".Release: no job is queued (Next is always engine.Forever)")
}

// firstAdmitted returns the least x >= 1 such that ok(t+x), for a
// predicate that is false at t and monotone (once true, true for every
// later instant), starting the search from guess, the library's own
// estimate. It returns 0 when no such x is found before [engine.Forever].
//
// It serves RetryAfter for the profiles whose arithmetic is float64: their
// decisions are monotone in the arrival instant, but the exact first
// admitted nanosecond follows from the library's roundings, not from a
// formula. The cost is O(log guess) evaluations of ok, and a few when
// guess is within a few nanoseconds of the answer.
func firstAdmitted(t, guess engine.Time, ok func(engine.Time) bool) engine.Time {
	limit := engine.Forever - t // largest x with t+x representable
	if limit < 1 {
		return 0
	}
	hi := min(max(guess, 1), limit)
	lo := engine.Time(0) // ok(t+lo) is false
	for !ok(t + hi) {
		if hi == limit {
			return 0
		}
		lo = hi
		hi = min(hi*2, limit)
		if hi < lo { // overflow of hi*2
			hi = limit
		}
	}
	// Gallop down from hi, then bisect (lo, hi].
	for step := engine.Time(1); hi-step > lo; step *= 2 {
		if !ok(t + hi - step) {
			lo = hi - step
			break
		}
		hi -= step
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok(t + mid) {
			hi = mid
		} else {
			lo = mid
		}
	}
	return hi
}

// ceilNanos returns ceil(s·1e9) for s >= 0 seconds as an [engine.Time],
// saturating at [engine.Forever]; it turns a library's float64 estimate
// into a starting point for [firstAdmitted].
func ceilNanos(s float64) engine.Time {
	x := math.Ceil(s * 1e9)
	if !(x < 0x1p63) {
		return engine.Forever
	}
	if x < 0 {
		return 0
	}
	return engine.Time(x)
}
