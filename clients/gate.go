package clients

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Job is what a client offers through a [Gate]: the downstream class the
// job is counted in (see [Server]) and a tag the client uses to find its
// own request again when the job is released.
type Job struct {
	Class int // downstream accounting class, >= 0 (0 is foreground by convention)
	Tag   int // the client's own reference, returned in Released
}

// A Caller is a client whose jobs pass through a [Gate]. When the Gate
// answers an offer Queue, it later calls Released when the job succeeds:
// at the instant of the limiter's event (now, a whole nanosecond), with
// the exact instant the job passes, in nanoseconds (at > now - 1; later
// than now when a [Remote] answers with a wait, or, with [Gate.Serve], the
// instant the job leaves the server); or Refused when a [Remote] refuses
// it or the server loses it, at the instant the client learns it (now),
// with the Retry-After the limiter gave (0 for none). Neither may offer
// through the Gate before it returns (it schedules its next attempt).
type Caller interface {
	Released(s *engine.Sim, j Job, at exact.Rat)
	Refused(s *engine.Sim, j Job, retryAfter engine.Time)
}

// A Remote is a limiter whose answer to an offer may come later, and may
// then be a refusal: a distributed rate limiter whose node asks a central
// store and waits for the reply (package drl's Online). Offer returns
// Admit, Delay or Reject when the limiter answers at once, and Queue when
// the answer comes from a later Step. Next returns the instant of its next
// internal event (a message, a timer, a reply; [engine.Forever] if none),
// and Step makes that event and reports the job it answered, if any. As
// for a [buckets.Limiter], instants given to Offer are non-decreasing and
// every event due at or before t is made before an offer at t.
//
// [FromLimiter] makes a Remote of a [buckets.Limiter].
type Remote interface {
	Offer(t engine.Time, id int64) buckets.Decision
	Next() engine.Time
	Step() (Answer, bool)
}

// Answer is a [Remote]'s late answer to the job offered as ID: refused
// (with the Retry-After the limiter gave, ns, 0 for none), or passing
// Wait ns (exact, >= 0) after the instant it was offered.
type Answer struct {
	ID         int64
	Refused    bool
	Wait       exact.Rat
	RetryAfter engine.Time
}

// FromLimiter returns l as a [Remote]: every event of l releases a job,
// which passes.
func FromLimiter(l buckets.Limiter) Remote { return limiterRemote{l} }

type limiterRemote struct{ buckets.Limiter }

func (l limiterRemote) Step() (Answer, bool) {
	r := l.Release()
	return Answer{ID: r.ID, Wait: r.Wait}, true
}

// A Sink receives every job a [Gate] lets pass, at the exact instant it
// passes (in nanoseconds since the origin, a rational between two
// nanoseconds when the limiter's rate does not divide them). A [Server] is
// a Sink.
type Sink interface {
	Arrive(s *engine.Sim, at exact.Rat, class int)
}

// Gate drives a [buckets.Limiter] (or a [Remote]) on an [engine.Sim]:
// clients offer jobs through it, it makes the limiter's internal events
// (releases of queued jobs, a Remote's messages and replies) at their
// instants, hands late answers back to the client that offered the job,
// and passes every job that passes, admitted, delayed or released, to its
// sink at the exact instant it passes.
//
// Several clients may share one Gate (foreground traffic and a backfill
// sharing one limiter). Before each offer at t the Gate makes the
// limiter's events due at or before t, as the [buckets.Limiter] contract asks.
//
// Pass instants reach the sink in an order the sink must not rely on: a
// job delayed to g is sent when it is offered, before jobs admitted
// between now and g. A [Server] sorts what it receives.
//
// The zero value is not usable; create a Gate with [NewGate].
type Gate struct {
	sim     *engine.Sim
	lim     Remote
	sink    Sink
	nextID  int64
	queued  map[int64]queuedJob // jobs the limiter answered Queue, by id
	pending engine.Time         // instant of the earliest release event scheduled, Forever if none
	offers  int64
	server  *Server // with Serve: a job succeeds when served there
}

type queuedJob struct {
	c  Caller
	j  Job
	at engine.Time // offer instant
}

// NewGate returns a Gate for l on s, with no sink.
func NewGate(s *engine.Sim, l buckets.Limiter) *Gate { return NewRemoteGate(s, FromLimiter(l)) }

// NewRemoteGate returns a Gate for r on s, with no sink.
func NewRemoteGate(s *engine.Sim, r Remote) *Gate {
	return &Gate{sim: s, lim: r, queued: make(map[int64]queuedJob), pending: engine.Forever}
}

// Connect sets the sink that receives passing jobs (nil for none).
func (g *Gate) Connect(k Sink) { g.sink, g.server = k, nil }

// Serve makes sv the downstream of the jobs that pass, and makes a job's
// success its service there: a job that passes the limiter is answered
// Queue, and its client is told Released at the exact instant the job
// leaves the server (the end of its service), or Refused (with no
// Retry-After) when the server's buffer is full: a 503 from downstream,
// learnt at the instant the job reaches the server, rounded up to the
// nanosecond. sv must serve this Gate only.
func (g *Gate) Serve(sv *Server) {
	g.sink, g.server = sv, sv
	sv.gate = g
}

// served is told by the server that job id leaves it at depart.
func (g *Gate) served(id int64, depart exact.Rat) {
	q := g.waiting(id)
	q.c.Released(g.sim, q.j, depart)
}

// lost is told by the server that job id found its buffer full.
func (g *Gate) lost(id int64) {
	q := g.waiting(id)
	q.c.Refused(g.sim, q.j, 0)
}

func (g *Gate) waiting(id int64) queuedJob {
	q, ok := g.queued[id]
	if !ok {
		panic(fmt.Sprintf("clients: the server answered job %d, which the Gate does not wait for", id))
	}
	delete(g.queued, id)
	return q
}

// Offers returns the number of jobs offered so far.
func (g *Gate) Offers() int64 { return g.offers }

// Queued returns the number of jobs the limiter holds in its queue.
func (g *Gate) Queued() int { return len(g.queued) }

// Offer offers job j of client c to the limiter at s.Now() and returns the
// limiter's decision (Queue for a job that passes when the Gate waits for
// its service downstream: see [Gate.Serve]). For Admit the job passes at
// once and for Delay at Now() + Wait; the client learns it from the
// decision. For Queue the
// Gate calls c.Released when the job passes or c.Refused when a [Remote]
// refuses it; c must not be nil then. A Reject leaves nothing behind.
func (g *Gate) Offer(c Caller, j Job) buckets.Decision {
	now := g.sim.Now()
	g.release(now)
	id := g.nextID
	g.nextID++
	g.offers++
	d := g.lim.Offer(now, id)
	switch d.Verdict {
	case buckets.Admit, buckets.Delay:
		if g.server != nil && c != nil {
			g.queued[id] = queuedJob{c: c, j: j, at: now}
			g.server.arriveTagged(g.sim, PassAt(now, d), j.Class, id)
			d = buckets.Decision{Verdict: buckets.Queue}
			break
		}
		g.pass(PassAt(now, d), j.Class)
	case buckets.Queue:
		if c == nil {
			panic("clients: Gate.Offer with a nil Caller got a Queue verdict")
		}
		g.queued[id] = queuedJob{c: c, j: j, at: now}
	}
	g.arm()
	return d
}

// PassAt returns the exact instant, in nanoseconds, at which a job offered
// at t with decision d passes: t for Admit and t + Wait for Delay. It
// panics for Queue and Reject, whose pass instant the decision does not
// give.
func PassAt(t engine.Time, d buckets.Decision) exact.Rat {
	switch d.Verdict {
	case buckets.Admit:
		return exact.Int(int64(t))
	case buckets.Delay:
		return addRat(exact.Int(int64(t)), d.Wait)
	}
	panic("clients: PassAt of a " + d.Verdict.String() + " verdict")
}

// Handle makes the limiter's events due at now; it is the Gate's own
// event handler.
func (g *Gate) Handle(s *engine.Sim, now engine.Time, _ int) {
	if now == g.pending {
		g.pending = engine.Forever
	}
	g.release(now)
	g.arm()
}

// release makes every limiter event due at or before now.
func (g *Gate) release(now engine.Time) {
	for g.lim.Next() <= now {
		r, ok := g.lim.Step()
		if !ok {
			continue
		}
		q, ok := g.queued[r.ID]
		if !ok {
			panic(fmt.Sprintf("clients: limiter answered job %d, which it never queued", r.ID))
		}
		if r.Refused {
			delete(g.queued, r.ID)
			q.c.Refused(g.sim, q.j, r.RetryAfter)
			continue
		}
		at := addRat(exact.Int(int64(q.at)), r.Wait)
		if g.server != nil {
			g.server.arriveTagged(g.sim, at, q.j.Class, r.ID) // the server answers
			continue
		}
		delete(g.queued, r.ID)
		g.pass(at, q.j.Class)
		q.c.Released(g.sim, q.j, at)
	}
}

// arm schedules an event at the limiter's next event unless one at or
// before it is already scheduled. A stale event (the limiter's next event
// moved later) does nothing when it runs.
func (g *Gate) arm() {
	if n := g.lim.Next(); n < g.pending {
		g.pending = n
		g.sim.Schedule(n, g, 0)
	}
}

func (g *Gate) pass(at exact.Rat, class int) {
	if g.sink != nil {
		g.sink.Arrive(g.sim, at, class)
	}
}
