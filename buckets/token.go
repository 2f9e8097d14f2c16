package buckets

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// TokenBucket is a token bucket (r, b): tokens accrue continuously at rate
// r up to the capacity b, and each job takes exactly one whole token. In
// shaping mode (the default) a job that finds less than one token waits
// for it; the queue is unbounded unless [WithQueueCapacity] bounds it. In
// policing mode ([WithPolicing]) such a job is rejected instead (J.
// Heinanen and R. Guérin, [RFC 2697], Section 3: a packet of size 1
// conforms when the bucket holds at least one token). The bucket starts
// full unless [WithInitialTokens] says otherwise.
//
// It is modelled as the equivalent G/D/1 queue with service time 1/r (R.
// Guérin, "When Two is Worse Than One", 2019, Section 1). With U(t) the
// unfinished work of that queue, job i arriving at a_i waits, first come
// first served (the note's eq. (1), generalised from r = 1),
//
//	d_i = max(0, U(a_i-) + (1 - b)/r)
//
// and the number of waiting jobs and the accrued delay are
//
//	N(t) = ceil(max(0, r·U(t) - b))
//	S(t) = ∫_0^t N(u) du
//
// The state is the instant F at which the G/D/1 queue empties, so that
// U(t) = max(0, F - t); an arrival sets F = max(F, t) + 1/r (the Lindley
// recursion). F is kept in exact units of 1/S ns (see [WithScale]), so
// every decision (a token due exactly at an arrival is there for it) is
// exact, at any instant of a Unix-epoch trace, for any rational rate and
// burst.
//
// Service order: first come, first served, a waiting job's delay is known
// when it arrives and Offer returns it (a Delay verdict); the bucket then
// keeps no queue at all, so its memory is O(1) even under overload. Under
// [LIFO] or [Random] order (see [WithOrder]) the token that becomes
// available goes to the job the order chooses, so Offer returns Queue and
// the bucket releases jobs at its grant instants ([TokenBucket.Next],
// [TokenBucket.Release]). Grants are at the same instants whatever the
// order (every order is work-conserving), so N(t) and S(t) are too.
//
// The zero value is not usable; create one with [NewTokenBucket].
//
// [RFC 2697]: https://www.rfc-editor.org/rfc/rfc2697
type TokenBucket struct {
	p     Params
	scale int64        // units per ns
	token exact.Int128 // one token's time 1/r, units
	burst exact.Int128 // the burst's time b/r, units
	limit int          // the most jobs that may wait: -1 unbounded, 0 polices
	order Order
	rng   *rand.Rand

	finish exact.Int128 // F: the instant the G/D/1 queue empties, units
	last   engine.Time  // the last instant offered
	q      jobQueue     // LIFO and random orders: jobs waiting for a token
	grant  exact.Int128 // LIFO and random orders: the next grant instant while q is not empty, units
	waits  exact.Int128 // Σ waits of every job admitted so far, units

	admitted, delayed, rejected int64
}

type bucketConfig struct {
	order   Order
	src     rand.Source
	initial *exact.Rat
	limit   int
	scale   int64
}

// Option configures a [TokenBucket].
type Option func(*bucketConfig) error

// WithOrder sets the service order among waiting jobs. src is required for
// [Random] (it draws which job is served) and ignored otherwise.
func WithOrder(o Order, src rand.Source) Option {
	return func(c *bucketConfig) error {
		switch o {
		case FCFS, LIFO:
		case Random:
			if src == nil {
				return &ParamError{Name: "service order random", Value: "no random source", Want: "a rand.Source"}
			}
		default:
			return &ParamError{Name: "service order", Value: o, Want: "fcfs, lifo or random"}
		}
		c.order, c.src = o, src
		return nil
	}
}

// WithInitialTokens sets the tokens in the bucket at time 0, in [0, b];
// the default is b (a full bucket).
func WithInitialTokens(x exact.Rat) Option {
	return func(c *bucketConfig) error {
		c.initial = &x
		return nil
	}
}

// WithPolicing puts the bucket in policing mode: a job that finds less
// than one token is rejected instead of waiting (RFC 2697's single-rate
// policer with one bucket). It is WithQueueCapacity(0).
func WithPolicing() Option { return WithQueueCapacity(0) }

// WithQueueCapacity bounds the queue of a shaping bucket: a job that finds
// less than one token and q jobs already waiting is rejected. q = 0 is
// policing ([WithPolicing]); without this option the queue is unbounded.
// q must be >= 0.
func WithQueueCapacity(q int) Option {
	return func(c *bucketConfig) error {
		if q < 0 {
			return &ParamError{Name: "queue capacity", Value: q, Want: ">= 0 jobs (0 polices)"}
		}
		c.limit = q
		return nil
	}
}

// WithScale builds the bucket in units of 1/s ns, s a multiple of the
// bucket's own scale, so that buckets built with one scale (see
// [CommonScale]) keep instants that compare without conversion, as the
// check of Theorem 2 needs.
func WithScale(s int64) Option {
	return func(c *bucketConfig) error {
		if s < 1 {
			return &ParamError{Name: "scale", Value: s, Want: ">= 1 unit per nanosecond"}
		}
		c.scale = s
		return nil
	}
}

// NewTokenBucket returns a token bucket with parameters p, full at time 0,
// shaping and serving waiting jobs first come, first served unless opts
// say otherwise. It returns an error wrapping [ErrParam] if p or an option
// is invalid, if the initial tokens are outside [0, b], or if one token's
// time 1/r does not fit the exact model (rate and burst with so many
// digits that their common unit is finer than 2^-63 ns).
func NewTokenBucket(p Params, opts ...Option) (*TokenBucket, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	c := bucketConfig{limit: -1, scale: 1}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, err
		}
	}
	initial := p.Burst
	if c.initial != nil {
		initial = *c.initial
		if initial.Sign() < 0 || initial.Cmp(p.Burst) > 0 {
			return nil, &ParamError{Name: "initial tokens", Value: initial, Want: fmt.Sprintf("in [0, burst %v]", p.Burst)}
		}
	}
	spans, err := p.spans(initial)
	if err != nil {
		return nil, err
	}
	scale, n, err := scaleFor(c.scale, spans...)
	if err != nil {
		return nil, err
	}
	if c.scale > 1 && scale != c.scale {
		return nil, fmt.Errorf("buckets: scale %d is not a multiple of the %v bucket's own (it needs %d): %w", c.scale, p, scale, ErrParam)
	}
	b := &TokenBucket{p: p, scale: scale, token: n[0], burst: n[1], limit: c.limit, order: c.order,
		finish: n[2]}
	if c.src != nil {
		b.rng = rand.New(c.src)
	}
	return b, nil
}

// Params returns the bucket's rate and burst.
func (b *TokenBucket) Params() Params { return b.p }

// Order returns the bucket's service order.
func (b *TokenBucket) Order() Order { return b.order }

// QueueCapacity returns the most jobs that may wait: 0 in policing mode,
// -1 for an unbounded queue.
func (b *TokenBucket) QueueCapacity() int { return b.limit }

// Offer presents job id arriving at instant t and decides it:
//
//   - Admit when the job finds at least one token (its eq. (1) delay is 0);
//   - otherwise, in policing mode or with the queue at its capacity,
//     Reject with RetryAfter the time until a retry would pass; the
//     bucket is left as it was;
//   - otherwise Delay with the exact wait of eq. (1) (FCFS), or Queue
//     (LIFO, random): the job is released by a later [TokenBucket.Release].
//
// Panics if t is earlier than an instant already offered, or if a grant
// due at or before t has not been released (Next() <= t).
func (b *TokenBucket) Offer(t engine.Time, id int64) Decision {
	if t < b.last || b.q.len() > 0 && b.Next() <= t {
		panic(fmt.Sprintf("buckets: TokenBucket.Offer(%v) after instant %v, next grant %v", t, b.last, b.Next()))
	}
	ts := at(t, b.scale)
	f := b.finish
	if f.Less(ts) {
		f = ts // the G/D/1 queue is empty at t: a busy period starts
	}
	f = f.Add(b.token)
	wait := f.Sub(ts).Sub(b.burst) // units; eq. (1)
	if wait.Sign() <= 0 {
		b.finish, b.last = f, t
		b.admitted++
		return Decision{Verdict: Admit}
	}
	if b.limit == 0 || b.limit > 0 && b.waitingAt(ts) >= int64(b.limit) {
		b.rejected++
		return Decision{Verdict: Reject, RetryAfter: b.retryAfter(t, ts)}
	}
	b.finish, b.last = f, t
	b.admitted++
	b.delayed++
	b.waits = b.waits.Add(wait)
	if b.order == FCFS {
		return Decision{Verdict: Delay, Wait: exact.Frac(wait, b.scale)}
	}
	if b.q.len() == 0 {
		b.grant = f.Sub(b.burst) // this job's FCFS grant is the next grant
	}
	b.q.push(waiting{id: id, at: t})
	return Decision{Verdict: Queue}
}

// retryAfter returns how long after t a job rejected at t would pass if
// offered again with nothing in between: at the first instant t' at which
// it would find a token (policing), or a place in the queue.
func (b *TokenBucket) retryAfter(t engine.Time, ts exact.Int128) engine.Time {
	// A job at t' >= t waits F + 1/r - b/r - t' when F > t' (and not at
	// all otherwise, as b >= 1): it passes once t' >= F + 1/r - b/r. With
	// a queue of capacity q it finds a place once N(t') <= q - 1, that is
	// once t' >= F - b/r - (q - 1)/r.
	var due exact.Int128
	if b.limit == 0 {
		due = b.finish.Add(b.token).Sub(b.burst)
	} else {
		k, ok := b.token.Mul64OK(int64(b.limit - 1))
		if !ok {
			return 0
		}
		due = b.finish.Sub(b.burst).Sub(k)
	}
	r := ceilNanos(due, b.scale)
	if r == engine.Forever {
		return 0 // beyond the clock: the model cannot say
	}
	return r - t
}

// Next returns the instant of the next grant to a queued job (LIFO and
// random orders), rounded up to the nanosecond, or [engine.Forever] when
// none is queued (always, under FCFS).
func (b *TokenBucket) Next() engine.Time {
	if b.q.len() == 0 {
		return engine.Forever
	}
	return ceilNanos(b.grant, b.scale)
}

// Release grants the token due at Next() to the waiting job the service
// order chooses and returns the job and its exact wait. Panics if no job
// is queued.
func (b *TokenBucket) Release() Released {
	if b.q.len() == 0 {
		panic("buckets: TokenBucket.Release with no job queued")
	}
	g := b.grant
	var w waiting
	switch b.order {
	case LIFO:
		w = b.q.popBack()
	case Random:
		w = b.q.popAt(b.rng.IntN(b.q.len()))
	default:
		w = b.q.popFront()
	}
	if b.q.len() > 0 {
		b.grant = g.Add(b.token) // the bucket is empty after a grant: the next token takes 1/r
	}
	return Released{ID: w.id, Wait: exact.Frac(g.Sub(at(w.at, b.scale)), b.scale)}
}

// Queued returns the jobs queued for release (LIFO and random orders; 0
// under FCFS, where waiting jobs are not kept: see [TokenBucket.Waiting]).
func (b *TokenBucket) Queued() int { return b.q.len() }

// Waiting returns N(t), the number of jobs waiting for a token at instant
// t, whatever the order. t must not be earlier than the last instant
// offered.
func (b *TokenBucket) Waiting(t engine.Time) int64 { return b.waitingAt(at(t, b.scale)) }

func (b *TokenBucket) waitingAt(ts exact.Int128) int64 {
	return b.State().Waiting(ts)
}

// Tokens returns the tokens in the bucket at instant t, in [0, b]:
// b - r·U(t) while no job waits, and the fraction of a token accrued
// towards the next grant while jobs wait. t must not be earlier than the
// last instant offered.
func (b *TokenBucket) Tokens(t engine.Time) exact.Rat {
	ts := at(t, b.scale)
	u := b.finish.Sub(ts)
	if u.Sign() < 0 {
		u = exact.Int128{}
	}
	// (b/r - U + N/r)/(1/r) tokens, in units over units.
	x := b.burst.Sub(u)
	if n := b.waitingAt(ts); n > 0 {
		k, _ := b.token.Mul64OK(n)
		x = x.Add(k)
	}
	// x/token in lowest terms needs a 64-bit denominator: reduce exactly.
	r, err := exact.RatOf(x, b.token)
	if err != nil {
		panic(fmt.Sprintf("buckets: Tokens out of range: %v", err))
	}
	return r
}

// Delay returns the FCFS wait, eq. (1), of a job arriving at instant t,
// exactly, in nanoseconds, without admitting it: max(0, U(t-) + (1 - b)/r).
func (b *TokenBucket) Delay(t engine.Time) exact.Rat {
	ts := at(t, b.scale)
	f := b.finish
	if f.Less(ts) {
		f = ts
	}
	w := f.Add(b.token).Sub(b.burst).Sub(ts)
	if w.Sign() < 0 {
		return exact.Rat{}
	}
	return exact.Frac(w, b.scale)
}

// Counts returns the jobs admitted (at once or after a wait), the jobs
// among them that waited, and the jobs rejected so far.
func (b *TokenBucket) Counts() (admitted, delayed, rejected int64) {
	return b.admitted, b.delayed, b.rejected
}

// Promise returns b + r·d (see [Params.Promise]).
func (b *TokenBucket) Promise(d engine.Time) float64 { return b.p.Promise(d) }

// State returns the exact state of the bucket's equivalent G/D/1 queue.
func (b *TokenBucket) State() GD1 {
	return GD1{Scale: b.scale, Token: b.token, Burst: b.burst, Finish: b.finish, Waits: b.waits}
}

// GD1 is the exact state of a token bucket's equivalent G/D/1 queue, in
// units of 1/Scale ns (see [TokenBucket]); instants passed to its methods
// are in those units and must not be earlier than the bucket's last
// arrival. It is what the check of Theorem 2 and Lemma 1 reads.
type GD1 struct {
	Scale  int64        // units per nanosecond
	Token  exact.Int128 // one token's time 1/r, units
	Burst  exact.Int128 // the burst's time b/r, units
	Finish exact.Int128 // F, the instant the queue empties: U(x) = max(0, F - x)
	Waits  exact.Int128 // Σ waits of every job admitted so far, units
}

// Unfinished returns U(x) = max(0, F - x), units.
func (g GD1) Unfinished(x exact.Int128) exact.Int128 {
	u := g.Finish.Sub(x)
	if u.Sign() < 0 {
		return exact.Int128{}
	}
	return u
}

// Waiting returns N(x) = ceil(max(0, r·U(x) - b)) = ceil(max(0, U(x) -
// b/r)/(1/r)), the jobs waiting at instant x.
func (g GD1) Waiting(x exact.Int128) int64 {
	d := g.Finish.Sub(x).Sub(g.Burst)
	if d.Sign() <= 0 {
		return 0
	}
	q, r := d.DivMod(g.Token)
	if r.Sign() != 0 {
		q = q.Add64(1)
	}
	return q.Int64()
}

// LastGrant returns the instant of the grant of the last job admitted,
// F - b/r (under FCFS it is that job's; whatever the order it is the last
// grant of the busy period), units.
func (g GD1) LastGrant() exact.Int128 { return g.Finish.Sub(g.Burst) }

// Accrued returns S(x), the delay accrued by all jobs up to instant x,
// units: the waits of every job admitted, less what the N(x) jobs still
// waiting have yet to wait. The grants of those jobs are the last N(x) of
// the busy period, 1/r apart and ending at F - b/r, so what remains is
//
//	N·(F - b/r - x) - (1/r)·N(N - 1)/2
//
// It panics if a product overflows 128 bits (beyond any run's range).
func (g GD1) Accrued(x exact.Int128) exact.Int128 {
	n := g.Waiting(x)
	if n == 0 {
		return g.Waits
	}
	rest, ok1 := g.LastGrant().Sub(x).Mul64OK(n)
	tri, ok2 := exact.Mul64(n, n-1).FloorDiv(2).Mul(g.Token)
	if !ok1 || !ok2 {
		panic("buckets: GD1.Accrued overflows 128 bits")
	}
	return g.Waits.Sub(rest.Sub(tri))
}

// Scale returns the bucket's units per nanosecond (see [WithScale]).
func (b *TokenBucket) Scale() int64 { return b.scale }

// FastFCFS reports whether [TokenBucket.AdmitFCFS] applies: the bucket
// shapes with an unbounded queue, first come first served.
func (b *TokenBucket) FastFCFS() bool { return b.order == FCFS && b.limit < 0 }

// AdmitFCFS admits a job arriving at instant t, given as ts = t·Scale()
// units, to a bucket for which [TokenBucket.FastFCFS] holds, and returns
// its exact wait in units (0 when it passes at once): the note's eq. (1)
// by the Lindley recursion, as [TokenBucket.Offer] computes it, without
// building a [Decision]. It is the hot path of the systems package's fast
// driver. ok is false, and the bucket unchanged, when the job's release
// would be beyond the clock's range (see [TokenBucket.Offer]).
//
// Panics if t is earlier than an instant already offered.
func (b *TokenBucket) AdmitFCFS(t engine.Time, ts exact.Int128) (wait exact.Int128, ok bool) {
	if t < b.last {
		panic(fmt.Sprintf("buckets: TokenBucket.AdmitFCFS(%v) after instant %v", t, b.last))
	}
	f, wait := Step(b.finish, ts, b.token, b.burst)
	if wait.Sign() == 0 {
		b.finish, b.last = f, t
		b.admitted++
		return exact.Int128{}, true
	}
	if !wait.Less(b.horizon(t)) {
		return exact.Int128{}, false
	}
	b.finish, b.last = f, t
	b.admitted++
	b.delayed++
	b.waits = b.waits.Add(wait)
	return wait, true
}

// Step is the note's eq. (1) for one job, exactly, on a token bucket's
// equivalent G/D/1 queue: a bucket whose queue empties at instant f
// (its unfinished work U(x) = max(0, f - x)), with token time tau = 1/r
// and burst time beta = b/r, offered a job at instant x, gives the job
// the wait
//
//	wait = max(0, U(x-) + tau - beta)
//
// and, once the job is admitted, empties at next = max(f, x) + tau (the
// Lindley recursion). Every argument and result is in the same units
// (units of 1/Scale ns for [TokenBucket]). A policing bucket admits the
// job only when wait is 0, and then takes next; a refused job leaves f
// as it was. [TokenBucket.AdmitFCFS] and package drl's buckets take
// this step; AdmitFCFSBatch takes it on int64 (see lindley64).
func Step(f, x, tau, beta exact.Int128) (next, wait exact.Int128) {
	if f.Less(x) {
		f = x
	}
	next = f.Add(tau)
	wait = next.Sub(x).Sub(beta)
	if wait.Sign() < 0 {
		wait = exact.Int128{}
	}
	return next, wait
}

// lindley64 is a bucket's state on int64 for the batch paths, where
// every instant and wait stays below fast62 units: the instant f its
// queue empties, its token and burst times, and the count and sum of the
// waits it gave.
type lindley64 struct {
	f, tok, bur, delayed int64
	sum                  exact.Int128
}

// admit is [Step] on int64 for a job at instant x (units): it returns
// the job's wait and counts it.
func (s *lindley64) admit(x int64) int64 {
	s.f = max(s.f, x) + s.tok
	w := s.f - x - s.bur
	if w <= 0 {
		return 0
	}
	s.delayed++
	s.sum = s.sum.Add64(w)
	return w
}

// horizon returns the longest wait in units that a job arriving at t can
// have with its release still on the clock: (Forever - t)·Scale().
func (b *TokenBucket) horizon(t engine.Time) exact.Int128 {
	return exact.Mul64(int64(engine.Forever-t), b.scale)
}

// TotalWait returns the sum of the waits of every job admitted so far, in
// units (see [TokenBucket.Scale]): the accrued delay S once every waiting
// job is served, and an upper bound of S(t) at any instant t.
func (b *TokenBucket) TotalWait() exact.Int128 { return b.waits }

// FCFSState is a saved state of a bucket on the fast path (see
// [TokenBucket.SaveFCFS]); its zero value is not a state to restore.
type FCFSState struct {
	finish, waits     exact.Int128
	last              engine.Time
	admitted, delayed int64
}

// SaveFCFS returns the state [TokenBucket.AdmitFCFS] and
// [TokenBucket.AdmitFCFSBatch] change, for [TokenBucket.RestoreFCFS].
func (b *TokenBucket) SaveFCFS() FCFSState {
	return FCFSState{finish: b.finish, waits: b.waits, last: b.last, admitted: b.admitted, delayed: b.delayed}
}

// RestoreFCFS puts the bucket back in a state s saved by
// [TokenBucket.SaveFCFS] since which only AdmitFCFS and AdmitFCFSBatch
// were called: the jobs admitted since are forgotten.
func (b *TokenBucket) RestoreFCFS(s FCFSState) {
	b.finish, b.waits, b.last, b.admitted, b.delayed = s.finish, s.waits, s.last, s.admitted, s.delayed
}

// fast returns the bucket's state on int64, for a batch that
// [TokenBucket.AdmitFCFSBatch]'s guard has admitted.
func (b *TokenBucket) fast() lindley64 {
	return lindley64{f: b.finish.Int64(), tok: b.token.Int64(), bur: b.burst.Int64(), delayed: b.delayed, sum: b.waits}
}

// setFast writes back the state of a batch whose last job arrived at last.
func (b *TokenBucket) setFast(s lindley64, last engine.Time) {
	b.finish, b.waits, b.delayed, b.last = exact.I128(s.f), s.sum, s.delayed, last
}

// fast62 is the bound below which AdmitFCFSBatch keeps every instant and
// wait in units: then no int64 sum or product in its loop overflows.
const fast62 = 1 << 62

// AdmitFCFSBatch admits the jobs arriving at ts[from], ts[from+stride],
// ts[from+2·stride], ... (nanoseconds) to a bucket for which
// [TokenBucket.FastFCFS] holds, one after the other, exactly as
// [TokenBucket.AdmitFCFS] would, and writes each job's wait in units
// (0 when it passes at once) to waits at the job's index. It does the
// Lindley recursion on int64 and returns false, leaving the bucket
// unchanged (and waits in any state), when those instants decrease or
// start before an instant already offered, or when an instant or a wait
// of the batch could reach 2^62 units (a run beyond about 146 years at one unit per ns): the
// caller then admits the jobs one by one with AdmitFCFS, which is exact
// at any instant. Under 2^62 units every release is on the clock, so no
// job is refused for the clock's range.
//
// Panics if waits is shorter than ts or stride < 1.
func (b *TokenBucket) AdmitFCFSBatch(ts []engine.Time, from, stride int, waits []int64) bool {
	if stride < 1 || len(waits) < len(ts) {
		panic("buckets: TokenBucket.AdmitFCFSBatch: stride < 1 or waits shorter than ts")
	}
	if from >= len(ts) {
		return true
	}
	n := int64((len(ts)-1-from)/stride + 1)
	lastT := ts[from+int(n-1)*stride]
	// Every instant is at most lastT·scale and F at most
	// max(F, lastT·scale) + n/r: both must stay below 2^62.
	xl, ok := exact.I128(int64(lastT)).Mul64OK(b.scale)
	if !ok || int64(lastT) < 0 || !xl.Less(exact.I128(fast62)) {
		return false
	}
	top := b.finish
	if top.Less(xl) {
		top = xl
	}
	grow, ok := b.token.Mul64OK(n)
	if !ok || !top.Add(grow).Less(exact.I128(fast62)) || !b.burst.Less(exact.I128(fast62)) || b.finish.Sign() < 0 {
		return false
	}
	st, sc := b.fast(), b.scale
	prev := b.last
	for i := from; i < len(ts); i += stride {
		if ts[i] < prev {
			return false // out of order: AdmitFCFS panics, its caller reports it
		}
		prev = ts[i]
		waits[i] = st.admit(int64(ts[i]) * sc)
	}
	b.setFast(st, lastT)
	b.admitted += n
	return true
}

// RoundRobinMax is the most sub-buckets [AdmitRoundRobinFCFS] takes (its
// state is kept in arrays of this size).
const RoundRobinMax = 8

// AdmitRoundRobinFCFS admits the jobs arriving at ts (nanoseconds) both
// to one and, round-robin from subs[r0], to the sub-buckets subs (job i
// goes to subs[(r0+i) mod k]), as AdmitFCFSBatch would for one with
// stride 1 and for each sub-bucket with stride k, in a single pass over
// the jobs; each job's waits in units go to wa[i] and wb[i]. All buckets
// must satisfy [TokenBucket.FastFCFS] and share one scale. It returns
// false, leaving every bucket unchanged (wa and wb in any state), in the
// cases AdmitFCFSBatch would for one of them.
//
// Panics if wa or wb is shorter than ts, subs is empty or longer than
// [RoundRobinMax], or r0 is not in [0, len(subs)).
func AdmitRoundRobinFCFS(one *TokenBucket, subs []*TokenBucket, r0 int, ts []engine.Time, wa, wb []int64) bool {
	k := len(subs)
	if k == 0 || k > RoundRobinMax || r0 < 0 || r0 >= k || len(wa) < len(ts) || len(wb) < len(ts) {
		panic("buckets: AdmitRoundRobinFCFS: no sub-bucket or more than RoundRobinMax, r0 out of range or waits shorter than ts")
	}
	if len(ts) == 0 {
		return true
	}
	// The guard of AdmitFCFSBatch, for each bucket with the jobs it gets.
	xl, ok := exact.I128(int64(ts[len(ts)-1])).Mul64OK(one.scale)
	if !ok || ts[len(ts)-1] < 0 || !xl.Less(exact.I128(fast62)) {
		return false
	}
	fits := func(b *TokenBucket, n int64) bool {
		top := b.finish
		if top.Less(xl) {
			top = xl
		}
		grow, ok := b.token.Mul64OK(n)
		return ok && b.scale == one.scale && top.Add(grow).Less(exact.I128(fast62)) && b.burst.Less(exact.I128(fast62)) && b.finish.Sign() >= 0
	}
	if !fits(one, int64(len(ts))) {
		return false
	}
	var ss [RoundRobinMax]lindley64
	st, sc := one.fast(), one.scale
	for l, b := range subs {
		if !fits(b, int64(len(ts)/k+1)) {
			return false
		}
		ss[l] = b.fast()
	}
	prev := one.last
	l := r0
	for i, t := range ts {
		if t < prev { // every bucket was offered the same instants: one's last is the latest
			return false // out of order
		}
		prev = t
		x := int64(t) * sc
		wa[i] = st.admit(x)
		wb[i] = ss[l].admit(x)
		if l++; l == k {
			l = 0
		}
	}
	one.setFast(st, ts[len(ts)-1])
	one.admitted += int64(len(ts))
	for l, b := range subs {
		n := int64(len(ts) / k)
		if (l-r0+k)%k < len(ts)%k {
			n++
		}
		if n == 0 {
			continue
		}
		// the last instant offered to b: its last job's
		b.setFast(ss[l], ts[len(ts)-1-((len(ts)-1-((l-r0+k)%k))%k)])
		b.admitted += n
	}
	return true
}
