package buckets

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// Order is the service order among jobs waiting for a token. Every order
// here is work-conserving: a waiting job leaves as soon as one whole token
// is available, so the instants at which tokens are granted do not depend
// on the order, only which job receives each token does.
type Order int

const (
	FCFS   Order = iota // first come, first served (the note's default)
	LIFO                // last come, first served
	Random              // a uniformly random waiting job
)

// String returns the order's command-line name: "fcfs", "lifo" or "random".
func (o Order) String() string {
	switch o {
	case FCFS:
		return "fcfs"
	case LIFO:
		return "lifo"
	case Random:
		return "random"
	}
	return fmt.Sprintf("Order(%d)", int(o))
}

// ParseOrder returns the Order named s ("fcfs", "lifo" or "random").
func ParseOrder(s string) (Order, error) {
	for _, o := range []Order{FCFS, LIFO, Random} {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("buckets: unknown service order %q, want fcfs, lifo or random", s)
}

// TokenBucket is a token bucket in shaping mode: tokens accrue continuously
// at rate r up to the capacity b, each job takes exactly one whole token,
// and a job that finds less than one token waits in an unbounded queue. It
// starts full (b tokens at time 0) unless [WithInitialTokens] says
// otherwise.
//
// The bucket is modelled as the equivalent G/D/1 queue with service time 1/r
// (R. Guérin, "When Two is Worse Than One", 2019, Section 1). With U(t) the
// unfinished work of that queue in seconds, job i arriving at a_i has delay
// (the note's eq. (1), generalised from r = 1)
//
//	d_i = max(0, U(a_i-) + (1 - b)/r)
//
// and the number of waiting jobs and the accrued delay are
//
//	N(t) = ceil(max(0, r·U(t) - b))
//	S(t) = ∫_0^t N(u) du
//
// State is kept as the start B of the current busy period of the G/D/1
// queue and the work m (in tokens) that has arrived in it, so that
// U(t) = max(0, B + m/r - t). Token grants happen at B + (m - n + 1 - b)/r,
// where n is the number of waiting jobs; each is computed afresh from B and
// the integer m - n (one rounding of a product and two of sums), so errors
// do not accumulate over a long busy period.
//
// Time is passed in, never read from a clock. Callers drive the bucket by
// calling [TokenBucket.Grant] for every grant due (at [TokenBucket.NextGrant])
// before calling [TokenBucket.Arrive] for a later or equal instant: at equal
// instants, grants come before arrivals.
//
// The zero value is not usable; create one with [NewTokenBucket].
type TokenBucket struct {
	p       Params
	inv     float64 // 1/r, seconds per token
	order   Order
	rng     *rand.Rand
	start   engine.Time // B: start of the G/D/1 busy period, seconds
	work    float64     // m: work arrived in the busy period, tokens
	q       jobQueue
	next    engine.Time // instant of the next grant, or engine.Forever
	last    engine.Time // instant of the last arrival or grant
	delayed int64       // jobs that have had to wait
}

// Option configures a TokenBucket.
type Option func(*TokenBucket) error

// WithOrder sets the service order among waiting jobs. src is required for
// [Random] (it draws which job is served) and ignored otherwise.
func WithOrder(o Order, src rand.Source) Option {
	return func(tb *TokenBucket) error {
		switch o {
		case FCFS, LIFO:
		case Random:
			if src == nil {
				return fmt.Errorf("buckets: order random needs a random source")
			}
			tb.rng = rand.New(src)
		default:
			return fmt.Errorf("buckets: unknown service order %v", o)
		}
		tb.order = o
		return nil
	}
}

// WithInitialTokens sets the tokens in the bucket at time 0, in [0, b].
// The default is b (a full bucket).
func WithInitialTokens(x float64) Option {
	return func(tb *TokenBucket) error {
		if !(x >= 0 && x <= tb.p.Burst) {
			return &ParamError{Name: "initial tokens", Value: x, Want: fmt.Sprintf("in [0, burst %v]", tb.p.Burst)}
		}
		// A deficit of b - x tokens is initial unfinished work of
		// (b - x)/r seconds in the G/D/1 queue.
		tb.work = tb.p.Burst - x
		return nil
	}
}

// NewTokenBucket returns a token bucket with parameters p, full at time 0
// and serving waiting jobs FCFS unless opts say otherwise. It returns a
// *ParamError if p or an option is invalid.
func NewTokenBucket(p Params, opts ...Option) (*TokenBucket, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	tb := &TokenBucket{p: p, inv: 1 / p.Rate, next: engine.Forever}
	for _, o := range opts {
		if err := o(tb); err != nil {
			return nil, err
		}
	}
	return tb, nil
}

// Params returns the bucket's rate and burst.
func (tb *TokenBucket) Params() Params { return tb.p }

// Order returns the bucket's service order.
func (tb *TokenBucket) Order() Order { return tb.order }

// Arrive admits job id arriving at instant t and reports whether it has to
// wait for a token. A job that does not wait has delay 0; a waiting job's
// delay is known when [TokenBucket.Grant] serves it (under FCFS it equals
// eq. (1), see [TokenBucket.Delay]).
//
// Panics if t is NaN, earlier than the last arrival or grant, or not earlier
// than a grant still due (NextGrant() <= t): the caller must make due grants
// first.
func (tb *TokenBucket) Arrive(t engine.Time, id int64) (waits bool) {
	if !(t >= tb.last) || tb.next <= t {
		panic(fmt.Sprintf("buckets: Arrive(%v) after instant %v with a grant due at %v", t, tb.last, tb.next))
	}
	tb.last = t
	if tb.q.len() == 0 && tb.start+engine.Time(tb.work*tb.inv) <= t {
		// The G/D/1 queue is empty at t: a new busy period starts.
		tb.start, tb.work = t, 0
	}
	tb.work++
	if tb.q.len() == 0 {
		d := tb.grantAt(0)
		if d <= t {
			return false
		}
		tb.next = d
	}
	tb.q.push(waiting{id: id, at: t})
	tb.delayed++
	return true
}

// grantAt returns the instant of the grant made when n jobs will still be
// waiting after it (n = 0 for the job that arrived last, under FCFS):
// B + (m - n - b)/r.
func (tb *TokenBucket) grantAt(n int) engine.Time {
	return tb.start + engine.Time((tb.work-float64(n)-tb.p.Burst)*tb.inv)
}

// NextGrant returns the instant at which the next waiting job receives its
// token, or [engine.Forever] when no job waits.
func (tb *TokenBucket) NextGrant() engine.Time { return tb.next }

// Grant gives the token that becomes available at NextGrant() to a waiting
// job chosen by the service order, and returns the job, the grant instant
// and the job's delay in seconds (the grant instant minus its arrival).
//
// Panics if no job is waiting.
func (tb *TokenBucket) Grant() (id int64, at engine.Time, delay float64) {
	t := tb.next
	var w waiting
	switch tb.order {
	case FCFS:
		w = tb.q.popFront()
	case LIFO:
		w = tb.q.popBack()
	case Random:
		w = tb.q.popAt(tb.rng.IntN(tb.q.len()))
	}
	tb.last = t
	if n := tb.q.len(); n > 0 {
		// The remaining n jobs get tokens 1/r apart; the next one is
		// served when n - 1 will still wait after it.
		tb.next = max(tb.grantAt(n-1), t)
	} else {
		tb.next = engine.Forever
	}
	return w.id, t, float64(t - w.at)
}

// Waiting returns N, the number of jobs waiting for a token now.
func (tb *TokenBucket) Waiting() int { return tb.q.len() }

// Delayed returns the number of jobs that have had to wait so far.
func (tb *TokenBucket) Delayed() int64 { return tb.delayed }

// Work returns r·U(t), the unfinished work of the equivalent G/D/1 queue at
// instant t in tokens (the unit of Lemma 1). t must not be earlier than the
// last arrival.
func (tb *TokenBucket) Work(t engine.Time) float64 {
	return max(0, tb.work-float64(t-tb.start)*tb.p.Rate)
}

// Unfinished returns U(t), the unfinished work of the equivalent G/D/1 queue
// at instant t in seconds.
func (tb *TokenBucket) Unfinished(t engine.Time) float64 {
	return max(0, float64(tb.start-t)+tb.work*tb.inv)
}

// Tokens returns the tokens in the bucket at instant t, in [0, b]: b - r·U(t)
// while no job waits, and the fraction of a token accrued towards the next
// grant, b - r·U(t) + N, while N > 0 jobs wait. t must not be earlier than
// the last arrival or grant, nor later than the next grant.
func (tb *TokenBucket) Tokens(t engine.Time) float64 {
	x := tb.p.Burst - tb.Work(t) + float64(tb.q.len())
	return min(max(x, 0), tb.p.Burst)
}

// Delay returns eq. (1) for a job arriving at instant t, without admitting
// it: max(0, U(t-) + (1 - b)/r) seconds. Under FCFS it is the delay the job
// would get from Arrive and Grant.
func (tb *TokenBucket) Delay(t engine.Time) float64 {
	return math.Max(0, tb.Unfinished(t)+(1-tb.p.Burst)*tb.inv)
}
