package drl

import (
	"math"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/systems"
)

// store is the central store: each decision is a round trip of delay D
// (drawn from Spec.Store.RTT) to one shared bucket (R, B) per key (or the
// limiter of Spec.Store.Limiter), which decides
// when the request reaches it, at t + floor(D/2); the job is held for the
// rest of the round trip and then for the bucket's wait, so its delay is
// D + wait. A job sent while the store is down (t in an outage) is decided
// at once by the node as Spec.Store.Fail says, with no round trip (the
// connection is refused).
type store struct {
	s    Spec
	u    units
	res  *Result
	f    *fleet
	keys map[uint64]*bucketState
	// lims holds the store's limiter per key when it is not a token
	// bucket (Spec.Store.Limiter), built by newLim.
	lims   map[uint64]buckets.Limiter
	newLim func() (buckets.Limiter, error)
	rng    *rand.Rand
	cb     callbacks
	// The on/off process: the current down interval [downFrom, downTo),
	// the next one once t passes downTo.
	onoff            *rand.Rand
	downFrom, downTo engine.Time
	// over caches, per (node, key), the instant (ns) until which the
	// key is over limit (Spec.Store.Cache).
	over map[nodeKey]engine.Time
}

func newStore(s Spec, u units, res *Result) (*store, error) {
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	st := &store{s: s, u: u, res: res, f: f, keys: map[uint64]*bucketState{}, rng: rand.New(rand.NewPCG(s.Seed, StreamStoreRTT))}
	switch s.Store.Limiter {
	case StoreGCRA:
		g := buckets.MatchGCRA(s.Bucket)
		st.newLim = func() (buckets.Limiter, error) { return buckets.NewGCRA(g) }
	case StoreLibrary:
		st.newLim = func() (buckets.Limiter, error) { return s.Store.Profile(), nil }
	case StoreFixedWindow:
		w, err := s.Bucket.Burst.Quo(s.Bucket.Rate)
		if err != nil {
			return nil, err
		}
		// The family's fixed window (limiterstudy.NewLimiter), edges at
		// k·W from the Unix epoch on a trace's clock (s.Origin).
		fw := limiterstudy.Params{Rate: s.Bucket.Rate, Limit: s.Bucket.Burst.Floor().Int64(), Window: w, Origin: s.Origin}
		st.newLim = func() (buckets.Limiter, error) { return limiterstudy.NewLimiter("fixed-window", fw, nil) }
	}
	if st.newLim != nil {
		if _, err := st.newLim(); err != nil { // once, so that a key's limiter always builds
			return nil, err
		}
		st.lims = map[uint64]buckets.Limiter{}
	}
	if s.Store.OutageUp > 0 {
		st.onoff = rand.New(rand.NewPCG(s.Seed, StreamOutage))
		st.nextOutage(0)
	}
	return st, nil
}

// exp draws an exponential duration of mean m ns, rounded, >= 1 ns.
func (st *store) exp(m engine.Time) engine.Time {
	x := math.Round(st.onoff.ExpFloat64() * float64(m))
	if x >= float64(engine.Forever/4) {
		return engine.Forever / 4
	}
	return max(1, engine.Time(x))
}

// nextOutage draws the up time after instant from and the outage after it.
func (st *store) nextOutage(from engine.Time) {
	st.downFrom = addSat(from, st.exp(st.s.Store.OutageUp))
	st.downTo = addSat(st.downFrom, st.exp(st.s.Store.OutageDown))
}

// down reports whether the store is down at instant t (non-decreasing
// from call to call).
func (st *store) down(t engine.Time) bool {
	for _, o := range st.s.Store.Outages {
		if o.Contains(t) {
			return true
		}
	}
	if st.onoff != nil {
		for st.downTo <= t {
			st.nextOutage(st.downTo)
		}
		return st.downFrom <= t
	}
	return false
}

func (st *store) Offer(sim *engine.Sim, j systems.Job) error {
	l, err := st.f.dispatch(j)
	if err != nil {
		return err
	}
	if st.down(j.T) {
		st.fallback(l, j)
		return nil
	}
	nk := nodeKey{l, j.Key}
	if st.s.Store.Cache {
		if until, ok := st.over[nk]; ok {
			if j.T < until {
				st.res.reject(l, j)
				return nil
			}
			delete(st.over, nk)
		}
	}
	rtt := st.s.Store.RTT.Draw(st.rng)
	st.res.Messages++
	decide := func(now engine.Time) {
		if st.lims != nil {
			st.decideLimiter(sim, nk, j, rtt, now)
		} else {
			st.decideBucket(sim, nk, j, rtt, now)
		}
	}
	if rtt == 0 {
		decide(j.T)
		return nil
	}
	st.cb.at(sim, addSat(j.T, rtt/2), decide)
	return nil
}

// fallback decides j at node l while the store is down, as Spec.Store.Fail says.
func (st *store) fallback(l int, j systems.Job) {
	st.res.Fallback++
	switch st.s.Store.Fail {
	case FailOpen:
		st.res.admit(l, j, 0, st.u.at(0))
	case FailClosed:
		st.res.reject(l, j)
	case FailLocal:
		if w, ok, hint := st.f.local(l, j, st.u.at(j.T), st.u, st.s.Police); ok {
			st.res.admit(l, j, 0, w)
		} else {
			st.res.rejectHint(l, j, 0, hint)
		}
	}
}

// decideLimiter decides at the store, at instant now, the job j sent by
// node nk.node with round trip rtt, with the key's limiter (gcra,
// fixed-window or a library profile).
func (st *store) decideLimiter(sim *engine.Sim, nk nodeKey, j systems.Job, rtt, now engine.Time) {
	l := nk.node
	lim := st.lims[j.Key]
	if lim == nil {
		lim, _ = st.newLim() // built once in newStore: no error
		st.lims[j.Key] = lim
	}
	d := lim.Offer(now, j.ID)
	switch d.Verdict {
	case buckets.Admit:
		st.res.admit(l, j, rtt, exact.Int128{})
		return
	case buckets.Delay: // a profile that delays (x/time/rate's Reserve)
		w, err := d.Wait.Mul(exact.Int(st.u.scale))
		if err != nil {
			panic("drl: a store limiter's wait overflows the exact model: " + err.Error())
		}
		st.res.admit(l, j, rtt, w.Ceil())
		return
	case buckets.Queue:
		panic("drl: a store limiter answered Queue: it must decide at arrival (every profile does)")
	}
	hint := engine.Time(0)
	if st.s.Store.Limiter == StoreLibrary {
		hint = d.RetryAfter // the library's own hint (redis-cell's CL.THROTTLE reply)
	}
	st.res.rejectHint(l, j, rtt-rtt/2, hint)
	if st.s.Store.Cache && d.RetryAfter > 0 && d.RetryAfter != buckets.NoRetry && st.s.Store.Limiter != StoreLibrary {
		// No job of the key passes before now + RetryAfter: the
		// GCRA's TAT and a window's count only grow until then.
		st.cache(sim, nk, j.T, rtt, now+d.RetryAfter)
	}
}

// decideBucket decides at the store, at instant now, the job j sent by
// node nk.node with round trip rtt, with the key's bucket (R, B).
func (st *store) decideBucket(sim *engine.Sim, nk nodeKey, j systems.Job, rtt, now engine.Time) {
	l := nk.node
	t := st.u.at(now)
	b := st.keys[j.Key]
	if b == nil {
		b = &bucketState{f: t}
		st.keys[j.Key] = b
	}
	w, ok := b.decide(t, st.u.tau, st.u.beta, st.s.Police)
	if ok {
		st.res.admit(l, j, rtt, w)
		return
	}
	st.res.rejectAfter(l, j, rtt-rtt/2)
	if st.s.Store.Cache {
		// The next token is due at now + w exactly; a job at an
		// instant before ceil(now + w) finds none.
		st.cache(sim, nk, j.T, rtt, now+engine.Time(w.CeilDiv(st.u.scale).Int64()))
	}
}

// cache records at node nk.node that key nk.key is over limit until the
// instant until, once the reply to the job sent at t with round trip rtt
// is back.
func (st *store) cache(sim *engine.Sim, nk nodeKey, t, rtt, until engine.Time) {
	set := func(engine.Time) {
		if st.over == nil {
			st.over = map[nodeKey]engine.Time{}
		}
		st.over[nk] = max(st.over[nk], until)
	}
	if rtt == 0 {
		set(t)
		return
	}
	st.cb.at(sim, addSat(t, rtt), set)
}
