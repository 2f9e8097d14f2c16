package clients

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// RetryPolicy says how a client retries a rejected request.
type RetryPolicy struct {
	Backoff Backoff // the sleep after each rejection; not nil
	// MaxAttempts bounds the attempts of one request, first one included:
	// after the MaxAttempts-th rejection the client gives up. 0 means no
	// bound; 1 never retries.
	MaxAttempts int
	// Deadline, in ns, bounds how long after its arrival a request may be
	// retried: a client gives up at a rejection when its next attempt
	// would come later than arrival + Deadline. 0 means no deadline.
	Deadline engine.Time
	// Class is the downstream class of the requests' jobs (see [Job]).
	Class int
}

// Validate returns an error naming the first invalid field, or nil.
func (p RetryPolicy) Validate() error {
	if p.Backoff == nil {
		return fmt.Errorf("clients: retry policy without a backoff")
	}
	if err := p.Backoff.Validate(); err != nil {
		return err
	}
	if p.MaxAttempts < 0 {
		return fmt.Errorf("clients: max attempts %d < 0", p.MaxAttempts)
	}
	if p.Deadline < 0 {
		return fmt.Errorf("clients: deadline %v s < 0", p.Deadline)
	}
	if p.Class < 0 {
		return fmt.Errorf("clients: class %d < 0", p.Class)
	}
	return nil
}

// A Rander draws a random number: here a think time in seconds, >= 0.
// Every gonum distuv distribution is one (distuv.Exponential{Rate: 2,
// Src: src} thinks 0.5 s on average); [Fixed] always returns the same.
type Rander interface {
	Rand() float64
}

// Fixed is a think time that is always the same number of seconds.
type Fixed float64

// Rand returns f.
func (f Fixed) Rand() float64 { return float64(f) }

// Retrying is a population of clients that retry rejected requests. Each
// request is offered to the limiter through a [Gate] at its arrival; if the
// limiter rejects it, the client sleeps what the policy's [Backoff] says
// and offers it again, until it passes, or it has used MaxAttempts
// attempts, or its next attempt would miss its Deadline (a give-up).
// A request passes when the limiter admits it (at once), delays it (at
// arrival + Wait) or releases it from its queue.
//
// Requests come from an open-loop stream of arrival instants
// ([Retrying.OpenLoop]: the stream does not care how earlier requests
// fared) or from a closed loop of users ([Retrying.ClosedLoop]: each user
// sends its next request a think time after the previous one finished).
// Both may run at once.
//
// Everything is a plain event handler on the Sim; backoff draws come from
// the source given to [NewRetrying], in the order the events run, so a
// run is a function of the seed.
//
// The zero value is not usable; create one with [NewRetrying].
type Retrying struct {
	sim    *engine.Sim
	gate   *Gate
	policy RetryPolicy
	rng    *rand.Rand
	stats  Stats

	reqs []request // active requests; tags index it
	free []int     // free slots of reqs

	streams []*stream

	users   int
	think   Rander
	horizon engine.Time // closed-loop users start no request after it
}

type request struct {
	arrived  engine.Time
	attempts int
	prev     engine.Time // previous sleep
	user     int         // closed-loop user, -1 for open loop
}

// stream is an open-loop arrival stream being pulled.
type stream struct {
	next func() (engine.Time, bool)
	stop func()
	last engine.Time
}

// advance returns the stream's next arrival, or false when it has ended
// (and is then stopped). It panics when arrivals go back in time.
func (st *stream) advance() (engine.Time, bool) {
	if st.stop == nil {
		return 0, false
	}
	t, ok := st.next()
	if !ok {
		st.stop()
		st.stop = nil
		return 0, false
	}
	if t < st.last {
		panic(fmt.Sprintf("clients: open-loop arrivals go back from %v s to %v s", st.last, t))
	}
	st.last = t
	return t, true
}

// Event kinds, in the low bits of an event's argument.
const (
	evAttempt = iota // arg>>2 is a request slot
	evArrival        // arg>>2 is a stream
	evUser           // arg>>2 is a user
	evKinds   = 4
)

// NewRetrying returns a population that offers its requests through g,
// recording its statistics in series bins of width bin (0 for none), or
// an error if the policy is invalid. Backoff draws come from src.
func NewRetrying(s *engine.Sim, g *Gate, p RetryPolicy, bin engine.Time, src rand.Source) (*Retrying, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if bin < 0 {
		return nil, fmt.Errorf("clients: series bin %v s < 0", bin)
	}
	if src == nil {
		return nil, fmt.Errorf("clients: nil random source")
	}
	return &Retrying{sim: s, gate: g, policy: p, rng: rand.New(src), stats: Stats{Bin: bin}}, nil
}

// Stats returns the population's statistics so far.
func (c *Retrying) Stats() *Stats { return &c.stats }

// Active returns the number of requests not yet finished.
func (c *Retrying) Active() int { return len(c.reqs) - len(c.free) }

// OpenLoop adds a stream of request arrivals: one request at each instant
// of arrivals, which must be non-decreasing and not before Now() (the
// stream is pulled one instant at a time, as the simulation reaches it).
// A stream that goes back in time panics when pulled. [Retrying.Stop]
// releases streams that were not pulled to their end.
func (c *Retrying) OpenLoop(arrivals iter.Seq[engine.Time]) {
	next, stop := iter.Pull(arrivals)
	st := &stream{next: next, stop: stop, last: c.sim.Now()}
	c.streams = append(c.streams, st)
	c.pull(len(c.streams) - 1)
}

// Stop stops the open-loop streams that have not ended; no further
// requests arrive from them.
func (c *Retrying) Stop() {
	for _, st := range c.streams {
		if st.stop != nil {
			st.stop()
			st.stop = nil
		}
	}
}

// ClosedLoop starts users closed-loop users at Now(): each sends a
// request, and when it has finished (passed the limiter, or been given up)
// thinks for think.Rand() seconds (nil: no think time) and sends the next,
// until horizon: no user starts a request after it. It panics if called
// twice.
func (c *Retrying) ClosedLoop(users int, think Rander, horizon engine.Time) {
	c.ClosedLoopContext(context.Background(), users, think, horizon)
}

// ClosedLoopContext is [Retrying.ClosedLoop] that stops scheduling users,
// returning ctx.Err(), when ctx is cancelled (checked every 4096 users:
// starting 10^7 users takes seconds).
func (c *Retrying) ClosedLoopContext(ctx context.Context, users int, think Rander, horizon engine.Time) error {
	if c.users != 0 {
		panic("clients: Retrying.ClosedLoop called twice")
	}
	c.users, c.think, c.horizon = users, think, horizon
	for u := range users {
		if u%checkEvery == checkEvery-1 && ctx.Err() != nil {
			return ctx.Err()
		}
		c.sim.Schedule(c.sim.Now(), c, u*evKinds+evUser)
	}
	return nil
}

// Handle runs the population's events.
func (c *Retrying) Handle(s *engine.Sim, now engine.Time, arg int) {
	i := arg / evKinds
	switch arg % evKinds {
	case evAttempt:
		c.attempt(now, i)
	case evArrival:
		c.attempt(now, c.newRequest(now, -1))
		c.pull(i)
	case evUser:
		if now <= c.horizon {
			c.attempt(now, c.newRequest(now, i))
		}
	}
}

// pull schedules the next arrival of stream i.
func (c *Retrying) pull(i int) {
	if t, ok := c.streams[i].advance(); ok {
		c.sim.Schedule(t, c, i*evKinds+evArrival)
	}
}

func (c *Retrying) newRequest(now engine.Time, user int) int {
	c.stats.request(now)
	r := request{arrived: now, user: user}
	if n := len(c.free); n > 0 {
		slot := c.free[n-1]
		c.free = c.free[:n-1]
		c.reqs[slot] = r
		return slot
	}
	c.reqs = append(c.reqs, r)
	return len(c.reqs) - 1
}

// attempt offers request slot to the limiter at now.
func (c *Retrying) attempt(now engine.Time, slot int) {
	r := &c.reqs[slot]
	r.attempts++
	c.stats.attempt(now)
	d := c.gate.Offer(c, Job{Class: c.policy.Class, Tag: slot})
	switch d.Verdict {
	case buckets.Admit, buckets.Delay:
		c.succeed(slot, PassAt(now, d))
	case buckets.Queue:
		// Released calls succeed.
	case buckets.Reject:
		c.refused(now, slot, d.RetryAfter)
	}
}

// Refused is called by the Gate when a [Remote] refuses a job it answered
// late: the client learns it now and backs off from now.
func (c *Retrying) Refused(s *engine.Sim, j Job, retryAfter engine.Time) {
	c.refused(s.Now(), j.Tag, retryAfter)
}

// refused handles the refusal of request slot's attempt, learnt at now:
// it gives up or sleeps and tries again.
func (c *Retrying) refused(now engine.Time, slot int, retryAfter engine.Time) {
	r := &c.reqs[slot]
	if retryAfter == buckets.NoRetry {
		if _, ok := c.policy.Backoff.(HonorRetryAfter); ok {
			// Told that no retry would ever pass (x/time/rate's
			// InfDuration): give up now, counted apart, no latency.
			c.stats.giveUpNoRetry(now)
			c.release(slot, r.user, now)
			return
		}
	}
	if c.policy.MaxAttempts > 0 && r.attempts >= c.policy.MaxAttempts {
		c.finish(slot, now, false)
		return
	}
	sleep := c.policy.Backoff.Sleep(Failure{N: r.attempts, Prev: r.prev, RetryAfter: retryAfter}, c.rng)
	if sleep < 0 {
		panic(fmt.Sprintf("clients: backoff returned a negative sleep %v s", sleep))
	}
	next := now + sleep
	if c.policy.Deadline > 0 && next-r.arrived > c.policy.Deadline {
		c.finish(slot, now, true)
		return
	}
	r.prev = sleep
	c.sim.Schedule(next, c, slot*evKinds+evAttempt)
}

// Released is called by the Gate when the limiter releases a queued job.
func (c *Retrying) Released(s *engine.Sim, j Job, at exact.Rat) { c.succeed(j.Tag, at) }

// succeed records request slot passing at the exact instant at.
func (c *Retrying) succeed(slot int, at exact.Rat) {
	r := c.reqs[slot]
	c.stats.success(r.arrived, r.attempts, at)
	c.release(slot, r.user, engine.Time(at.Ceil().Int64()))
}

// finish records request slot given up at now.
func (c *Retrying) finish(slot int, now engine.Time, deadline bool) {
	r := c.reqs[slot]
	c.stats.giveUp(now, deadline)
	c.release(slot, r.user, now)
}

// release frees slot; a closed-loop user thinks, from done on, and sends
// its next request.
func (c *Retrying) release(slot, user int, done engine.Time) {
	c.free = append(c.free, slot)
	if user < 0 {
		return
	}
	var think engine.Time
	if c.think != nil {
		x := c.think.Rand()
		var ok bool
		think, ok = engine.FromSeconds(x)
		if !ok || think < 0 {
			panic(fmt.Sprintf("clients: think time %v s out of range", x))
		}
	}
	if next := done + think; next <= c.horizon {
		c.sim.Schedule(next, c, user*evKinds+evUser)
	}
}
