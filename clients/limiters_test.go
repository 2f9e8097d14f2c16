package clients

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Small exact limiters for the tests, written independently of package
// buckets and as plainly as possible.

// policer is a policing token bucket of burst b tokens refilled one token
// every T ns, full at 0, in integer nanoseconds: its level L counts
// nanoseconds of refill, capped at b·T, and a job needs T of them. A
// rejected job learns how long until a token is there: T - L.
type policer struct {
	T, b  int64
	level int64
	last  engine.Time
}

func newPolicer(T engine.Time, b int64) *policer {
	return &policer{T: int64(T), b: b, level: int64(T) * b}
}

func (p *policer) Offer(t engine.Time, id int64) buckets.Decision {
	p.level = min(p.b*p.T, p.level+int64(t-p.last))
	p.last = t
	if p.level >= p.T {
		p.level -= p.T
		return buckets.Decision{Verdict: buckets.Admit}
	}
	return buckets.Decision{Verdict: buckets.Reject, RetryAfter: engine.Time(p.T - p.level)}
}

func (p *policer) Next() engine.Time         { return engine.Forever }
func (p *policer) Release() buckets.Released { panic("policer: nothing to release") }

// shaper is a first-come-first-served shaping bucket of burst 1 and rate
// 1e9/T tokens/s (T ns a rational): job k passes at
// pass_k = max(t_k, pass_{k-1} + T). With maxWait > 0 a job whose wait
// would exceed maxWait is rejected instead, with Retry-After the time
// until its wait would be maxWait, rounded up to the nanosecond.
type shaper struct {
	T       exact.Rat
	maxWait engine.Time
	free    exact.Rat // pass_{k-1} + T; 0 before the first job
	started bool
}

func (p *shaper) Offer(t engine.Time, id int64) buckets.Decision {
	pass := exact.Int(int64(t))
	if p.started && p.free.Cmp(pass) > 0 {
		pass = p.free
	}
	wait := must(pass.Sub(exact.Int(int64(t))))
	if p.maxWait > 0 && wait.Cmp(exact.Int(int64(p.maxWait))) > 0 {
		ra := must(wait.Sub(exact.Int(int64(p.maxWait))))
		return buckets.Decision{Verdict: buckets.Reject, RetryAfter: engine.Time(ra.Ceil().Int64())}
	}
	p.free, p.started = must(pass.Add(p.T)), true
	if wait.Sign() == 0 {
		return buckets.Decision{Verdict: buckets.Admit}
	}
	return buckets.Decision{Verdict: buckets.Delay, Wait: wait}
}

func (p *shaper) Next() engine.Time         { return engine.Forever }
func (p *shaper) Release() buckets.Released { panic("shaper: nothing to release") }

// spacer queues every job and releases them first come, first served,
// one every T ns (a rational): job k leaves at g_k = max(t_k, g_{k-1} + T).
// It answers Queue to every job and releases at its own events.
type spacer struct {
	T    exact.Rat
	last exact.Rat // g of the last job queued
	any  bool
	q    []spaced
}

type spaced struct {
	id int64
	t  engine.Time
	g  exact.Rat
}

func (p *spacer) Offer(t engine.Time, id int64) buckets.Decision {
	if p.Next() <= t {
		panic(fmt.Sprintf("spacer: offer at %v with an event due at %v", t, p.Next()))
	}
	g := exact.Int(int64(t))
	if p.any {
		if nx := must(p.last.Add(p.T)); nx.Cmp(g) > 0 {
			g = nx
		}
	}
	p.last, p.any = g, true
	p.q = append(p.q, spaced{id: id, t: t, g: g})
	return buckets.Decision{Verdict: buckets.Queue}
}

func (p *spacer) Next() engine.Time {
	if len(p.q) == 0 {
		return engine.Forever
	}
	return engine.Time(p.q[0].g.Ceil().Int64())
}

func (p *spacer) Release() buckets.Released {
	j := p.q[0]
	p.q = p.q[1:]
	return buckets.Released{ID: j.id, Wait: must(j.g.Sub(exact.Int(int64(j.t))))}
}

// admitAll admits every job.
type admitAll struct{}

func (admitAll) Offer(engine.Time, int64) buckets.Decision {
	return buckets.Decision{Verdict: buckets.Admit}
}
func (admitAll) Next() engine.Time         { return engine.Forever }
func (admitAll) Release() buckets.Released { panic("admitAll: nothing to release") }

// logged records every decision of the limiter it wraps.
type logged struct {
	buckets.Limiter
	log []offer
}

type offer struct {
	At      engine.Time
	Verdict buckets.Verdict
}

func (l *logged) Offer(t engine.Time, id int64) buckets.Decision {
	d := l.Limiter.Offer(t, id)
	l.log = append(l.log, offer{t, d.Verdict})
	return d
}

func must(r exact.Rat, err error) exact.Rat {
	if err != nil {
		panic(err)
	}
	return r
}
