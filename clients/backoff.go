package clients

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// Failure describes the rejected attempt a [Backoff] reacts to.
type Failure struct {
	// N counts the request's failed attempts so far, >= 1. The sleep
	// before the first retry has N = 1, as the attempt number n in
	// Brooker's simulator, so capped exponential backoff sleeps
	// min(cap, 2·base) before the first retry.
	N int
	// Prev is the previous sleep of the same request in nanoseconds,
	// 0 before the first retry ([DecorrelatedJitter] starts from Base).
	Prev engine.Time
	// RetryAfter is the limiter's Retry-After for this rejection in
	// nanoseconds ([buckets.Decision].RetryAfter), 0 when it gave none,
	// [buckets.RetryNow] for a hint of zero, [buckets.NoRetry] when no
	// retry would ever pass.
	RetryAfter engine.Time
}

// A Backoff decides how long a client sleeps after a rejected attempt
// before it tries again. Sleep returns the sleep in nanoseconds, >= 0;
// strategies that draw take their randomness from r (never the global
// source) and may be given a nil r if they do not draw. Validate reports
// invalid parameters.
//
// The strategies are those compared in Marc Brooker, [Exponential Backoff
// And Jitter], AWS Architecture Blog, 4 March 2015: [NoBackoff],
// [Exponential], [FullJitter], [EqualJitter] and [DecorrelatedJitter],
// plus [Constant] and [HonorRetryAfter]. Random sleeps are drawn as
// float64 seconds and converted to nanoseconds once, with
// [engine.FromSeconds] (round to nearest).
//
// [Exponential Backoff And Jitter]: https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
type Backoff interface {
	Sleep(f Failure, r *rand.Rand) engine.Time
	Validate() error
}

// NoBackoff retries at once: every sleep is 0 (Brooker's "no backoff").
type NoBackoff struct{}

// Sleep returns 0.
func (NoBackoff) Sleep(Failure, *rand.Rand) engine.Time { return 0 }

// Validate returns nil: NoBackoff has no parameters.
func (NoBackoff) Validate() error { return nil }

// Constant sleeps Base after every rejection.
type Constant struct {
	Base engine.Time // ns, >= 0
}

// Sleep returns Base.
func (c Constant) Sleep(Failure, *rand.Rand) engine.Time { return c.Base }

// Validate returns an error if Base < 0.
func (c Constant) Validate() error {
	if c.Base < 0 {
		return fmt.Errorf("clients: constant backoff base %v s < 0", c.Base)
	}
	return nil
}

// Exponential is capped exponential backoff without jitter: the sleep
// after the n-th failed attempt is
//
//	sleep(n) = min(Cap, Base·2^n)
//
// computed in integer nanoseconds (no overflow: Base·2^n is compared with
// Cap before it is formed).
type Exponential struct {
	Base engine.Time // ns, >= 0
	Cap  engine.Time // ns, >= Base
}

// Sleep returns min(Cap, Base·2^N).
func (e Exponential) Sleep(f Failure, _ *rand.Rand) engine.Time { return ceiling(e.Base, e.Cap, f.N) }

// Validate returns an error unless 0 <= Base <= Cap.
func (e Exponential) Validate() error { return validBaseCap("exponential", e.Base, e.Cap) }

// FullJitter draws the sleep after the n-th failed attempt uniformly on
// [0, min(Cap, Base·2^n)] (Brooker's "Full Jitter"):
//
//	sleep(n) = uniform(0, min(Cap, Base·2^n))
type FullJitter struct {
	Base engine.Time // ns, >= 0
	Cap  engine.Time // ns, >= Base
}

// Sleep draws uniform(0, min(Cap, Base·2^N)).
func (j FullJitter) Sleep(f Failure, r *rand.Rand) engine.Time {
	return uniform(r, 0, ceiling(j.Base, j.Cap, f.N))
}

// Validate returns an error unless 0 <= Base <= Cap.
func (j FullJitter) Validate() error { return validBaseCap("full jitter", j.Base, j.Cap) }

// EqualJitter keeps half of the capped exponential sleep and draws the
// other half (Brooker's "Equal Jitter"): with v = min(Cap, Base·2^n),
//
//	sleep(n) = v/2 + uniform(0, v/2)
//
// that is, uniform on [floor(v/2), v] nanoseconds.
type EqualJitter struct {
	Base engine.Time // ns, >= 0
	Cap  engine.Time // ns, >= Base
}

// Sleep draws uniformly on [v/2, v], v = min(Cap, Base·2^N).
func (j EqualJitter) Sleep(f Failure, r *rand.Rand) engine.Time {
	v := ceiling(j.Base, j.Cap, f.N)
	return uniform(r, v/2, v)
}

// Validate returns an error unless 0 <= Base <= Cap.
func (j EqualJitter) Validate() error { return validBaseCap("equal jitter", j.Base, j.Cap) }

// DecorrelatedJitter grows each sleep from the previous one (Brooker's
// "Decorrelated Jitter"):
//
//	sleep = min(Cap, uniform(Base, 3·prev)),   prev = Base before the first retry
//
// so every sleep lies in [Base, Cap] (Base <= Cap) and is at most three
// times the previous one.
type DecorrelatedJitter struct {
	Base engine.Time // ns, > 0 (with 0 every sleep would be 0)
	Cap  engine.Time // ns, >= Base
}

// Sleep draws min(Cap, uniform(Base, 3·Prev)), with Prev = Base when
// f.Prev is 0.
func (j DecorrelatedJitter) Sleep(f Failure, r *rand.Rand) engine.Time {
	prev := f.Prev
	if prev <= 0 {
		prev = j.Base
	}
	hi := engine.Time(math.MaxInt64)
	if prev <= hi/3 {
		hi = 3 * prev
	}
	if hi < j.Base {
		hi = j.Base // a Prev below Base/3 (set by another strategy) still sleeps Base
	}
	return min(j.Cap, uniform(r, j.Base, hi))
}

// Validate returns an error unless 0 < Base <= Cap.
func (j DecorrelatedJitter) Validate() error {
	if j.Base <= 0 {
		return fmt.Errorf("clients: decorrelated jitter base %v s <= 0", j.Base)
	}
	return validBaseCap("decorrelated jitter", j.Base, j.Cap)
}

// HonorRetryAfter obeys the limiter's Retry-After, exactly as the limiter
// (for a profile, its library) gives it: after a rejection that carries
// one it sleeps
//
//	sleep = RetryAfter + uniform(0, Spread)
//
// exactly RetryAfter when Spread is 0 (every client told the same instant
// comes back at that instant), and otherwise it sleeps what Fallback
// decides.
type HonorRetryAfter struct {
	Fallback Backoff     // used when the limiter gives no Retry-After; not nil
	Spread   engine.Time // jitter on top of Retry-After, ns, >= 0
}

// Sleep returns RetryAfter plus a draw on [0, Spread] (0 plus the draw for
// a hint of zero, [buckets.RetryNow]), or the fallback's sleep when
// f.RetryAfter is 0 (no hint). A client honouring hints never sleeps on
// [buckets.NoRetry]: it gives up first (see [Retrying]); Sleep panics if
// asked to.
func (h HonorRetryAfter) Sleep(f Failure, r *rand.Rand) engine.Time {
	switch f.RetryAfter {
	case 0:
		return h.Fallback.Sleep(f, r)
	case buckets.NoRetry:
		panic("clients: HonorRetryAfter.Sleep on a refusal with no retry (buckets.NoRetry): the client gives up instead")
	}
	ra := max(f.RetryAfter, 0) // buckets.RetryNow: at once
	if h.Spread == 0 {
		return ra
	}
	return ra + uniform(r, 0, h.Spread)
}

// Validate returns an error if Fallback is nil or invalid or Spread < 0.
func (h HonorRetryAfter) Validate() error {
	if h.Fallback == nil {
		return fmt.Errorf("clients: Retry-After backoff without a fallback")
	}
	if h.Spread < 0 {
		return fmt.Errorf("clients: Retry-After spread %v s < 0", h.Spread)
	}
	return h.Fallback.Validate()
}

// BackoffNames lists the names [NewBackoff] accepts, Brooker's five first.
func BackoffNames() []string {
	return []string{"none", "exponential", "full", "equal", "decorrelated", "constant"}
}

// NewBackoff returns the strategy called name with the given base and cap
// in nanoseconds: "none" ([NoBackoff]), "exponential", "full", "equal",
// "decorrelated" (Brooker's names) or "constant" (which ignores cap). It
// returns an error naming the accepted names for any other name, and the
// strategy's validation error for invalid parameters.
func NewBackoff(name string, base, cap engine.Time) (Backoff, error) {
	var b Backoff
	switch name {
	case "none":
		b = NoBackoff{}
	case "constant":
		b = Constant{Base: base}
	case "exponential":
		b = Exponential{Base: base, Cap: cap}
	case "full":
		b = FullJitter{Base: base, Cap: cap}
	case "equal":
		b = EqualJitter{Base: base, Cap: cap}
	case "decorrelated":
		b = DecorrelatedJitter{Base: base, Cap: cap}
	default:
		return nil, fmt.Errorf("clients: no backoff %q, want one of %s", name, strings.Join(BackoffNames(), ", "))
	}
	if err := b.Validate(); err != nil {
		return nil, err
	}
	return b, nil
}

// ceiling returns min(cap, base·2^n) for base, cap >= 0 and n >= 0,
// without forming a product that would overflow: base·2^n > cap exactly
// when base > floor(cap/2^n).
func ceiling(base, cap engine.Time, n int) engine.Time {
	if base <= 0 {
		return 0
	}
	if n < 0 {
		n = 0
	}
	if n >= 62 || base > cap>>uint(n) {
		return cap
	}
	return base << uint(n)
}

// uniform returns a draw uniform on [lo, hi] nanoseconds (lo <= hi): the
// float64 lo + U·(hi - lo) seconds with U = r.Float64() in [0, 1),
// converted to nanoseconds once, to the nearest (so hi itself is drawn
// with probability about 1/(2(hi - lo))). No draw is made when lo == hi.
func uniform(r *rand.Rand, lo, hi engine.Time) engine.Time {
	if hi <= lo {
		return lo
	}
	d, ok := engine.FromSeconds(r.Float64() * (hi - lo).Seconds())
	if !ok || d > hi-lo {
		d = hi - lo // the product rounded up past the span; cannot exceed it by a nanosecond
	}
	return lo + d
}

func validBaseCap(name string, base, cap engine.Time) error {
	if base < 0 {
		return fmt.Errorf("clients: %s backoff base %v s < 0", name, base)
	}
	if cap < base {
		return fmt.Errorf("clients: %s backoff cap %v s < base %v s", name, cap, base)
	}
	return nil
}
