package drl

import (
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// leaseNode is one node's lease of one key: the tokens it holds, and the
// jobs waiting for the reply of its request in flight.
type leaseNode struct {
	tokens   int64
	inflight bool
	waiting  []systems.Job // the jobs waiting for the reply
	gen      uint64        // expiry generation: a later grant renews the lease
}

// lease is the allowance design (the article: "each machine holds a local
// allowance, borrows more from a central authority when needed, and returns
// what it did not use"): a node admits a job with a token it holds; with
// none, it asks the coordinator, a bucket (R, B) per key, for
// Spec.Lease.Size tokens, a round trip Spec.Store.RTT decided at half of it; the
// coordinator grants as many whole tokens as it has, up to the size. Jobs
// arriving at the node while the request is in flight wait for the reply,
// which serves them in order (their delay is the wait for it); those the
// grant does not cover are rejected (policing). Shaping (Spec.Police
// false), a coordinator with no whole token reserves the next one for the
// request (the note's eq. (1): FCFS with the other nodes' requests) and
// grants it when it comes; the jobs a reply does not cover keep waiting,
// in order, for the node's next request, sent at once (request). Tokens
// still held Spec.Lease.TTL after the latest grant are returned (a message
// of half a round trip) and put back into the coordinator's bucket, up to
// B.
type lease struct {
	s     Spec
	u     units
	res   *Result
	f     *fleet
	keys  map[uint64]*bucketState
	nodes map[nodeKey]*leaseNode
	rng   *rand.Rand
	cb    callbacks
}

func newLease(s Spec, u units, res *Result) (*lease, error) {
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	return &lease{s: s, u: u, res: res, f: f, keys: map[uint64]*bucketState{}, nodes: map[nodeKey]*leaseNode{},
		rng: rand.New(rand.NewPCG(s.Seed, StreamStoreRTT))}, nil
}

// grant takes up to n whole tokens from key k's bucket at instant now
// (ns) and returns how many.
func (ls *lease) grant(k uint64, now engine.Time, n int64) int64 {
	g, _ := ls.grantAt(k, ls.u.at(now), n, true)
	return g
}

// grantAt takes up to n whole tokens from key k's bucket at instant t
// (units) and returns how many, and after what wait (units). With none
// there: policing grants 0; shaping reserves the next token, granted 1
// after the wait of the note's eq. (1), FCFS with the other requests.
func (ls *lease) grantAt(k uint64, t exact.Int128, n int64, police bool) (int64, exact.Int128) {
	b := ls.keys[k]
	if b == nil {
		b = &bucketState{f: t}
		ls.keys[k] = b
	}
	f := b.f
	if f.Less(t) {
		f = t
	}
	// tokens = (B/R - U)/(1/R), U = F - t <= B/R.
	q, _ := ls.u.beta.Sub(f.Sub(t)).DivMod(ls.u.tau)
	g := min(n, q.Int64())
	if g <= 0 {
		if police {
			return 0, exact.I128(0)
		}
		w, _ := b.decide(t, ls.u.tau, ls.u.beta, false)
		return 1, w
	}
	b.f = f.Add(ls.u.token(int(g)))
	return g, exact.I128(0)
}

// giveBack returns n tokens to key k's bucket at instant now, up to B.
func (ls *lease) giveBack(k uint64, now engine.Time, n int64) {
	t := ls.u.at(now)
	b := ls.keys[k]
	f := b.f
	if f.Less(t) {
		f = t
	}
	f = f.Sub(ls.u.token(int(n)))
	if f.Less(t) {
		f = t
	}
	b.f = f
}

func (ls *lease) Offer(sim *engine.Sim, j systems.Job) error {
	l, err := ls.f.dispatch(j)
	if err != nil {
		return err
	}
	nk := nodeKey{l, j.Key}
	st := ls.nodes[nk]
	if st == nil {
		st = &leaseNode{}
		ls.nodes[nk] = st
	}
	switch {
	case st.tokens >= 1:
		st.tokens--
		ls.res.admit(l, j, 0, exact.I128(0))
		return nil
	case st.inflight:
		st.waiting = append(st.waiting, j)
		return nil
	}
	st.inflight, st.waiting = true, append(st.waiting, j)
	if !ls.s.Police {
		ls.request(sim, l, j.Key, st, ls.u.at(j.T))
		return nil
	}
	rtt := ls.s.Store.RTT.Draw(ls.rng)
	ls.res.Messages++
	reply := func(now engine.Time, g int64) {
		st.tokens += g
		for _, a := range st.waiting {
			if st.tokens >= 1 {
				st.tokens--
				ls.res.admit(l, a, now-a.T, exact.I128(0))
			} else {
				ls.res.reject(l, a)
			}
		}
		st.waiting, st.inflight = st.waiting[:0], false
		ls.expire(sim, j.Key, st, now)
	}
	if rtt == 0 {
		reply(j.T, ls.grant(j.Key, j.T, ls.s.Lease.Size))
		return nil
	}
	ls.cb.at(sim, addSat(j.T, rtt/2), func(now engine.Time) {
		g := ls.grant(j.Key, now, ls.s.Lease.Size)
		ls.cb.at(sim, addSat(j.T, rtt), func(now engine.Time) { reply(now, g) })
	})
	return nil
}

// expire returns the tokens st holds of key k to the bucket Spec.Lease.TTL
// after now (ns), the instant of the latest grant, unless a later grant
// renews the lease first.
func (ls *lease) expire(sim *engine.Sim, k uint64, st *leaseNode, now engine.Time) {
	if st.tokens == 0 || ls.s.Lease.TTL == engine.Forever {
		return
	}
	st.gen++
	gen := st.gen
	ls.cb.at(sim, addSat(now, ls.s.Lease.TTL), func(now engine.Time) {
		if st.gen != gen || st.tokens == 0 {
			return
		}
		n := st.tokens
		st.tokens = 0
		ls.res.Messages++
		back := ls.s.Store.RTT.Draw(ls.rng) / 2
		if back == 0 {
			ls.giveBack(k, now, n)
			return
		}
		ls.cb.at(sim, addSat(now, back), func(now engine.Time) { ls.giveBack(k, now, n) })
	})
}

// request is the shaping lease's request of node l for Spec.Lease.Size
// tokens of key k, sent at instant sent (units) for the jobs st holds
// waiting: the bucket decides at sent + floor(D/2) (D the round trip) and
// grants the whole tokens it has, up to the size, or else reserves the
// next one (grantAt); the reply reaches the node at sent + D + the wait,
// exactly, and serves the waiting jobs in order, each delayed from its
// arrival to the reply. Jobs the grant does not cover wait for the next
// request, sent at once. Events run at the instants rounded up to the
// nanosecond; delays are exact.
func (ls *lease) request(sim *engine.Sim, l int, k uint64, st *leaseNode, sent exact.Int128) {
	rtt := ls.s.Store.RTT.Draw(ls.rng)
	ls.res.Messages++
	half := rtt / 2
	at := sent.Add(ls.u.at(half))
	decide := func() {
		g, w := ls.grantAt(k, at, ls.s.Lease.Size, false)
		reply := at.Add(w).Add(ls.u.at(rtt - half))
		if reply.Cmp(sent) == 0 {
			ls.served(sim, l, k, st, g, reply)
			return
		}
		ls.cb.at(sim, ls.ceil(reply), func(engine.Time) { ls.served(sim, l, k, st, g, reply) })
	}
	if half == 0 {
		decide()
		return
	}
	ls.cb.at(sim, ls.ceil(at), func(engine.Time) { decide() })
}

// served hands the g tokens of a reply at instant reply (units) to the
// jobs waiting at st, in order, and asks again if some are left.
func (ls *lease) served(sim *engine.Sim, l int, k uint64, st *leaseNode, g int64, reply exact.Int128) {
	st.tokens += g
	for len(st.waiting) > 0 && st.tokens >= 1 {
		a := st.waiting[0]
		st.waiting = st.waiting[1:] // O(1) a job: a long queue is served a token at a time
		st.tokens--
		ls.res.admit(l, a, 0, reply.Sub(ls.u.at(a.T)))
	}
	if len(st.waiting) > 0 {
		ls.request(sim, l, k, st, reply)
		return
	}
	st.waiting, st.inflight = nil, false
	ls.expire(sim, k, st, ls.ceil(reply))
}

// ceil returns the instant x (units) rounded up to the nanosecond.
func (ls *lease) ceil(x exact.Int128) engine.Time {
	return engine.Time(x.CeilDiv(ls.u.scale).Int64())
}
