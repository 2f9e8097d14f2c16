package buckets

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/compensated"
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

// Orders lists every service order.
var Orders = []Order{FCFS, LIFO, Random}

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
	for _, o := range Orders {
		if o.String() == s {
			return o, nil
		}
	}
	return 0, fmt.Errorf("buckets: unknown service order %q, want fcfs, lifo or random", s)
}

// Bucket is a token bucket: tokens accrue continuously at rate r up to the
// capacity b, and each job takes exactly one whole token. In shaping mode
// (the default) a job that finds less than one token waits in a queue,
// served in the bucket's [Order]; the queue is unbounded unless
// [WithQueueCapacity] bounds it. In policing mode ([WithPolicing]) such a
// job is rejected instead. It starts full (b tokens at time 0) unless
// [WithInitialTokens] says otherwise. [TokenBucket] is the float64 model in
// seconds and tokens; Bucket[Tick] is the exact model (see [ExactParams]).
//
// Policing and bounded queues are decided by [Bucket.Offer], the [Limiter]
// form of the bucket (J. Heinanen and R. Guérin, [RFC 2697], Section 3: a
// packet of size 1 conforms when the committed bucket holds at least one
// token). [Bucket.Arrive] admits every job, whatever the mode: it is the
// primitive that [Comparison] and Offer build on.
//
// The bucket is modelled as the equivalent G/D/1 queue with service time 1/r
// (R. Guérin, "When Two is Worse Than One", 2019, Section 1). With U(t) the
// unfinished work of that queue in seconds, job i arriving at a_i has, under
// FCFS, delay (the note's eq. (1), generalised from r = 1)
//
//	d_i = max(0, U(a_i-) + (1 - b)/r)
//
// and the number of waiting jobs ([Bucket.Waiting]) and the accrued delay
// ([Bucket.AccruedDelay]) are
//
//	N(t) = ceil(max(0, r·U(t) - b))
//	S(t) = ∫_0^t N(u) du
//
// State is kept as the start B of the current busy period of the G/D/1
// queue and the work m (in tokens) that has arrived in it, so that
// U(t) = max(0, B + m/r - t). Whatever the order, token grants happen at
// B + (m - n + 1 - b)/r, where n is the number of waiting jobs; each is
// computed afresh from B and the integer m - n (one rounding of a product
// and two of sums in float64), so errors do not accumulate over a long busy
// period.
//
// Time is passed in, never read from a clock. Callers drive the bucket by
// calling [Bucket.Grant] for every grant due (at [Bucket.NextGrant]) before
// calling [Bucket.Arrive] for a later or equal instant: at equal instants,
// grants come before arrivals.
//
// The zero value is not usable; create one with [NewTokenBucket] or
// [NewExactBucket].
//
// [RFC 2697]: https://www.rfc-editor.org/rfc/rfc2697
type Bucket[T Number] struct {
	p       Params // rate and burst, for reports
	inv     T      // time per work unit: 1/r s per token, or ticks per quantum
	burst   T      // b in work units
	one     T      // one token in work units: 1, or quanta per token
	weight  T      // Lemma 1 weight: r·U(t) = U(t)·weight in comparable units
	never   T      // the largest T: no grant pending
	order   Order
	rng     *rand.Rand
	start   T // B: start of the G/D/1 busy period
	work    T // m: work arrived in the busy period, in work units
	finish  T // B + m/r, when the G/D/1 queue empties: U(t) = max(0, finish - t)
	q       jobQueue[T]
	next    T // instant of the next grant, or never
	last    T // instant of the last arrival or grant
	delayed int64
	served  compensated.Sum[T] // Σ delays of the jobs served after waiting
	waitAt  compensated.Sum[T] // Σ arrival instants of the jobs waiting now
	queue   int                // Offer: the most jobs that may wait; 0 polices, -1 unbounded
	offered int64              // Offer: jobs admitted so far, numbering them
}

// bucketConfig collects the options of a bucket.
type bucketConfig struct {
	order   Order
	src     rand.Source
	initial float64 // tokens at time 0; NaN means full
	queue   int     // the most waiting jobs Offer allows; -1 unbounded
}

// Option configures a bucket.
type Option func(*bucketConfig) error

// WithOrder sets the service order among waiting jobs. src is required for
// [Random] (it draws which job is served) and ignored otherwise.
func WithOrder(o Order, src rand.Source) Option {
	return func(c *bucketConfig) error {
		switch o {
		case FCFS, LIFO:
		case Random:
			if src == nil {
				return fmt.Errorf("buckets: order random needs a random source")
			}
		default:
			return fmt.Errorf("buckets: unknown service order %v", o)
		}
		c.order, c.src = o, src
		return nil
	}
}

// WithInitialTokens sets the tokens in the bucket at time 0, in [0, b];
// the default is b (a full bucket). For an exact bucket x times the quantum
// must be a whole number.
func WithInitialTokens(x float64) Option {
	return func(c *bucketConfig) error {
		c.initial = x
		return nil
	}
}

// WithPolicing puts the bucket in policing mode: [Bucket.Offer] rejects a
// job that finds less than one token instead of queueing it (RFC 2697's
// single-rate policer with one bucket). It is WithQueueCapacity(0).
func WithPolicing() Option { return WithQueueCapacity(0) }

// WithQueueCapacity bounds the queue of a shaping bucket: [Bucket.Offer]
// rejects a job that finds less than one token and q jobs already waiting.
// q = 0 is policing ([WithPolicing]); without this option the queue is
// unbounded. q must be >= 0.
func WithQueueCapacity(q int) Option {
	return func(c *bucketConfig) error {
		if q < 0 {
			return &ParamError{Name: "queue capacity", Value: float64(q), Want: ">= 0 jobs (0 polices)"}
		}
		c.queue = q
		return nil
	}
}

// NewTokenBucket returns a float64 token bucket with parameters p, full at
// time 0 and serving waiting jobs FCFS unless opts say otherwise. It returns
// a *ParamError if p or an option is invalid.
func NewTokenBucket(p Params, opts ...Option) (*TokenBucket, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return newBucket(p, engine.Time(1/p.Rate), engine.Time(p.Burst), 1, engine.Time(p.Rate), opts)
}

func newBucket[T Number](p Params, inv, burst, one, weight T, opts []Option) (*Bucket[T], error) {
	c := bucketConfig{initial: math.NaN(), queue: -1}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	b := &Bucket[T]{p: p, inv: inv, burst: burst, one: one, weight: weight, never: never[T](), order: c.order, queue: c.queue}
	b.next = b.never
	if c.src != nil {
		b.rng = rand.New(c.src)
	}
	if !math.IsNaN(c.initial) {
		x := c.initial
		units := x * float64(one)
		if !(x >= 0 && x <= p.Burst) || units != math.Trunc(units) && !isFloat[T]() {
			return nil, &ParamError{Name: "initial tokens", Value: x, Want: fmt.Sprintf("in [0, burst %v] (a whole number of quanta for an exact bucket)", p.Burst)}
		}
		// A deficit of b - x tokens is initial unfinished work of
		// (b - x)/r seconds in the G/D/1 queue.
		b.work = burst - T(units)
	}
	b.finish = b.start + b.work*b.inv
	return b, nil
}

// Params returns the bucket's rate and burst (for an exact bucket, in tokens
// per tick and tokens).
func (b *Bucket[T]) Params() Params { return b.p }

// Order returns the bucket's service order.
func (b *Bucket[T]) Order() Order { return b.order }

// ErrOverflow is returned (wrapped) when an arrival would make a token
// grant instant overflow the model's arithmetic (float64 seconds beyond
// about 1.8e308).
var ErrOverflow = errors.New("grant instant overflows")

// Admissible reports whether an arrival at instant t can be admitted
// without overflow: the latest grant instant it implies, B + (m + 1 - b)/r
// in the notation of [Bucket], must be finite (below the largest T). It does
// not change the bucket. [Comparison.Arrive] calls it on both buckets an
// arrival touches before admitting it, so that a failed arrival changes
// nothing.
func (b *Bucket[T]) Admissible(t T) bool {
	start, work := b.start, b.work
	if b.q.len() == 0 && b.finish <= t {
		start, work = t, 0
	}
	last := start + (work+b.one-b.burst)*b.inv
	return last <= b.never // false for +Inf and NaN
}

// Arrive admits job id arriving at instant t and reports whether it has to
// wait for a token, whatever the bucket's mode ([Bucket.Offer] is the form
// that polices or bounds the queue). Check [Bucket.Admissible] first. A job that does not wait has delay 0; a waiting job's
// delay is known when [Bucket.Grant] serves it (under FCFS it equals
// eq. (1), see [Bucket.Delay]).
//
// Panics if t is NaN, earlier than the last arrival or grant, or not earlier
// than a grant still due (NextGrant() <= t): the caller must make due grants
// first.
func (b *Bucket[T]) Arrive(t T, id int64) (waits bool) {
	if !(t >= b.last) || b.next <= t {
		panic(fmt.Sprintf("buckets: Arrive(%v) after instant %v with a grant due at %v", t, b.last, b.next))
	}
	b.last = t
	if b.q.len() == 0 && b.finish <= t {
		// The G/D/1 queue is empty at t: a new busy period starts.
		b.start, b.work = t, 0
	}
	b.work += b.one
	b.finish = b.start + b.work*b.inv
	if b.q.len() == 0 {
		d := b.grantAt(0)
		if d <= t {
			return false
		}
		b.next = d
	}
	b.q.push(waiting[T]{id: id, at: t})
	b.waitAt.Add(t)
	b.delayed++
	return true
}

// grantAt returns the instant of the grant made when n jobs will still be
// waiting after it (n = 0 for the job that arrived last, under FCFS):
// B + (m - n - b)/r.
func (b *Bucket[T]) grantAt(n int) T {
	return b.start + (b.work-T(n)*b.one-b.burst)*b.inv
}

// NextGrant returns the instant at which the next waiting job receives its
// token, or the largest T ([engine.Forever] for a TokenBucket) when no job
// waits.
func (b *Bucket[T]) NextGrant() T { return b.next }

// Grant gives the token that becomes available at NextGrant() to a waiting
// job chosen by the service order, and returns the job, the grant instant
// and the job's delay (the grant instant minus its arrival).
//
// Panics if no job is waiting.
func (b *Bucket[T]) Grant() (id int64, at T, delay T) {
	t := b.next
	var w waiting[T]
	switch b.order {
	case FCFS:
		w = b.q.popFront()
	case LIFO:
		w = b.q.popBack()
	case Random:
		w = b.q.popAt(b.rng.IntN(b.q.len()))
	}
	b.last = t
	b.waitAt.Add(-w.at)
	b.served.Add(t - w.at)
	if n := b.q.len(); n > 0 {
		// The remaining n jobs get tokens 1/r apart; the next one is
		// served when n - 1 will still wait after it.
		b.next = max(b.grantAt(n-1), t)
	} else {
		b.next = b.never
	}
	return w.id, t, t - w.at
}

// Waiting returns N, the number of jobs waiting for a token now.
func (b *Bucket[T]) Waiting() int { return b.q.len() }

// AccruedDelay returns S(t) = ∫_0^t N(u) du, the delay accrued by all jobs
// up to instant t (seconds, or ticks): the delays of the jobs already
// served plus t - a_i for each job i still waiting. Both sums are
// compensated. t must not be earlier than the last arrival or grant, nor
// later than the next grant.
func (b *Bucket[T]) AccruedDelay(t T) T {
	return b.served.Value() + T(b.q.len())*t - b.waitAt.Value()
}

// Delayed returns the number of jobs that have had to wait so far.
func (b *Bucket[T]) Delayed() int64 { return b.delayed }

// Unfinished returns U(t), the unfinished work of the equivalent G/D/1 queue
// at instant t (seconds, or ticks). t must not be earlier than the last
// arrival.
func (b *Bucket[T]) Unfinished(t T) T {
	return max(0, b.finish-t)
}

// Work returns r·U(t), the unfinished work at instant t in the units of
// Lemma 1: tokens for a TokenBucket; for an exact bucket, a common multiple
// set by its comparison so that buckets of different rates compare exactly.
func (b *Bucket[T]) Work(t T) T {
	return b.Unfinished(t) * b.weight
}

// Tokens returns the tokens in the bucket at instant t, in [0, b]:
// b - r·U(t) while no job waits, and the fraction of a token accrued towards
// the next grant, b - r·U(t) + N, while N > 0 jobs wait. It is computed in
// float64 (approximately for an exact bucket). t must not be earlier than
// the last arrival or grant, nor later than the next grant.
func (b *Bucket[T]) Tokens(t T) float64 {
	u := float64(b.Unfinished(t)) / float64(b.inv) // r·U(t) in work units
	x := (float64(b.burst) - u + float64(b.q.len())*float64(b.one)) / float64(b.one)
	return min(max(x, 0), b.p.Burst)
}

// Delay returns eq. (1) for a job arriving at instant t, without admitting
// it: max(0, U(t-) + (1 - b)/r). Under FCFS it is the delay the job would
// get from Arrive and Grant.
func (b *Bucket[T]) Delay(t T) T {
	return max(0, b.Unfinished(t)+(b.one-b.burst)*b.inv)
}

// QueueCapacity returns the most jobs that may wait when [Bucket.Offer]
// admits jobs: 0 in policing mode, -1 for an unbounded queue.
func (b *Bucket[T]) QueueCapacity() int { return b.queue }

// Offer presents a job arriving at instant t (seconds, or ticks for an
// exact bucket) and decides it, making first every grant due at or before
// t. A job that finds at least one token passes at once (Delay 0). One that
// finds less waits for its token (Delay > 0, the grant instant minus t)
// unless the bucket polices or its queue already holds its capacity, in
// which case it is rejected and the bucket is left as it was. Offer numbers
// the jobs it admits 0, 1, 2, … for [Bucket.Grant].
//
// Offer is the [Limiter] form of the bucket: use it, or Arrive and Grant,
// not both. The delay it returns is the FCFS delay, eq. (1), which is the
// order Offer requires.
//
// Special cases:
//
//	a grant instant beyond the largest T   the job is rejected (float64:
//	                                       only for absurdly small rates
//	                                       and huge queues; see ErrOverflow)
//
// Panics if the bucket's order is not FCFS, or if t is NaN or earlier than
// the last admitted job or grant.
func (b *Bucket[T]) Offer(t T) Decision[T] {
	if b.order != FCFS {
		panic(fmt.Sprintf("buckets: Offer on a bucket with order %v; Offer needs FCFS", b.order))
	}
	if !(t >= b.last) {
		panic(fmt.Sprintf("buckets: Offer(%v) after instant %v", t, b.last))
	}
	for b.next <= t {
		b.Grant()
	}
	// The grant instant the job would get, computed as Arrive will:
	// B + (m + 1 - b)/r after it joins the busy period (a new one if the
	// G/D/1 queue is empty at t).
	start, work := b.start, b.work
	if b.q.len() == 0 && b.finish <= t {
		start, work = t, 0
	}
	g := start + (work+b.one-b.burst)*b.inv
	if g <= t {
		b.Arrive(t, b.offered)
		b.offered++
		return Decision[T]{Admitted: true}
	}
	if b.queue >= 0 && b.q.len() >= b.queue || !(g <= b.never) {
		return Decision[T]{}
	}
	b.Arrive(t, b.offered)
	b.offered++
	return Decision[T]{Admitted: true, Delay: g - t}
}

// Promise returns b + r·d, the most jobs a token bucket (r, b) lets pass, or
// releases after shaping, in any closed interval of length d (seconds, or
// ticks for an exact bucket): at most b tokens at its start and r·d accrued
// during it.
func (b *Bucket[T]) Promise(d T) float64 {
	return b.p.Burst + b.p.Rate*float64(d)
}
