package drl

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// Online drives a design one job at a time on the caller's clock, for
// clients that react to its decisions (package clients): it is a
// [clients.Remote]. Every job is of key 0, dispatched to a node as
// Spec.Dispatch says. Before an offer at t the caller makes the design's
// events due at or before t (sync messages, demand estimates, store
// round trips) through Step, as [Run] does before each arrival, so that a
// job at t is decided on the state the design has at t.
//
// A design that decides at once (one, static, sync, grd, fps, a store
// with no round trip or down) answers the offer: admitted at once,
// delayed by its wait, or rejected. A store's decision takes a round trip
// D: the offer is answered Queue, and the job passes D + wait after it
// was offered, or the node learns of its rejection at t + D (the store
// decided at t + floor(D/2) and the reply takes the rest). A lease node
// with no token asks for more: the jobs waiting for the reply are
// answered when it comes.
//
// The zero value is not usable; create an Online with [NewOnline].
type Online struct {
	d   Model
	res *Result
	sim *engine.Sim
	now engine.Time // the instant of the last offer
	err error

	cur     int64 // the id of the job being offered, -1 outside Offer
	curSet  bool
	curDec  buckets.Decision
	out     []clients.Answer // answers made and not yet stepped out
	started bool
	cb      callbacks // the late refusals
}

// NewOnline returns a design of s driven online, or an error wrapping
// ErrSpec if s is invalid or its dispatch needs a column of the
// arrivals (column).
func NewOnline(s Spec) (*Online, error) {
	if s.Dispatch == "column" {
		return nil, fmt.Errorf("drl: dispatch %q needs arrivals naming their node; clients have none: %w", s.Dispatch, ErrSpec)
	}
	d, res, err := start(s)
	if err != nil {
		return nil, err
	}
	res.Theorem2 = Theorem2{NA: "clients react to the decisions (the check is of an open-loop run)"}
	o := &Online{d: d, res: res, sim: engine.NewSim(), cur: -1}
	res.online = o
	return o, nil
}

// Offer offers job id (ids increasing) at t, after every event due at or
// before t has been made (Next() > t). It returns Admit or Delay (the
// exact wait, ns) or Reject when the design decides at once, and Queue
// when the answer comes from a later Step.
func (o *Online) Offer(t engine.Time, id int64) buckets.Decision {
	if n := o.Next(); n <= t {
		panic(fmt.Sprintf("drl: Online.Offer at %v s with an event due at %v s", t, n))
	}
	res := o.res
	if !o.started {
		o.started = true
		res.First = t
		if res.streams != nil {
			res.streams.first = t
		}
	}
	if res.streams != nil {
		res.streams.advance(t)
	}
	o.now, res.Last = t, t
	res.Jobs++
	o.cur, o.curSet = id, false
	if err := o.d.Offer(o.sim, systems.Job{ID: id, T: t}); err != nil && o.err == nil {
		o.err = &systems.JobError{ID: id, Err: err}
	}
	o.cur = -1
	if !o.curSet {
		return buckets.Decision{Verdict: buckets.Queue}
	}
	return o.curDec
}

// Next returns the instant of the design's next event, ns: now when an
// answer is ready, engine.Forever when nothing is pending.
func (o *Online) Next() engine.Time {
	if len(o.out) > 0 {
		return max(o.now, o.sim.Now())
	}
	return o.sim.Peek()
}

// Step makes the design's next event and reports the job it answered, if
// any.
func (o *Online) Step() (clients.Answer, bool) {
	if len(o.out) == 0 {
		o.sim.Step()
	}
	if len(o.out) == 0 {
		return clients.Answer{}, false
	}
	a := o.out[0]
	o.out = o.out[1:]
	return a, true
}

// Finish ends the run after the last offer and every event, and returns
// what the design did (for [Summarize] with Spec's promise), or the first
// error a decision met.
func (o *Online) Finish() (*Result, error) {
	o.sim.Run()
	if o.err != nil {
		return nil, o.err
	}
	if st := o.res.streams; st != nil {
		st.finish(o.res.Last)
		if o.res.streamErr != nil {
			return nil, o.res.streamErr
		}
	}
	return o.res, nil
}

// admitted is told that job j passes tot/Scale ns after its arrival.
func (o *Online) admitted(j systems.Job, tot exact.Int128) {
	w := exact.Frac(tot, o.res.Scale)
	if j.ID == o.cur {
		o.curSet = true
		o.curDec = buckets.Decision{Verdict: buckets.Admit}
		if tot.Sign() != 0 {
			o.curDec = buckets.Decision{Verdict: buckets.Delay, Wait: w}
		}
		return
	}
	o.out = append(o.out, clients.Answer{ID: j.ID, Wait: w})
}

// rejected is told that job j's node learns of its rejection back ns
// from now, with the deciding limiter's retry hint (0 for none).
func (o *Online) rejected(j systems.Job, back, hint engine.Time) {
	if back == 0 {
		if j.ID == o.cur {
			o.curSet = true
			o.curDec = buckets.Decision{Verdict: buckets.Reject, RetryAfter: hint}
			return
		}
		o.out = append(o.out, clients.Answer{ID: j.ID, Refused: true, RetryAfter: hint})
		return
	}
	now := max(o.now, o.sim.Now())
	o.cb.at(o.sim, addSat(now, back), func(engine.Time) {
		o.out = append(o.out, clients.Answer{ID: j.ID, Refused: true, RetryAfter: hint})
	})
}
