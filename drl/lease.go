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
// Spec.LeaseSize tokens, a round trip Spec.RTT decided at half of it; the
// coordinator grants as many whole tokens as it has, up to the size. Jobs
// arriving at the node while the request is in flight wait for the reply,
// which serves them in order (their delay is the wait for it); those the
// grant does not cover are rejected. Tokens still held Spec.LeaseTTL after
// the latest grant are returned (a message of half a round trip) and put
// back into the coordinator's bucket, up to B. The lease design always
// polices.
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
	t := ls.u.at(now)
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
		return 0
	}
	b.f = f.Add(ls.u.token(int(g)))
	return g
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

func (ls *lease) offer(sim *engine.Sim, j systems.Job) error {
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
	rtt := ls.s.RTT.Draw(ls.rng)
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
		if st.tokens > 0 && ls.s.LeaseTTL != engine.Forever {
			st.gen++
			gen := st.gen
			ls.cb.at(sim, addSat(now, ls.s.LeaseTTL), func(now engine.Time) {
				if st.gen != gen || st.tokens == 0 {
					return
				}
				n := st.tokens
				st.tokens = 0
				ls.res.Messages++
				back := ls.s.RTT.Draw(ls.rng) / 2
				if back == 0 {
					ls.giveBack(j.Key, now, n)
					return
				}
				ls.cb.at(sim, addSat(now, back), func(now engine.Time) { ls.giveBack(j.Key, now, n) })
			})
		}
	}
	if rtt == 0 {
		reply(j.T, ls.grant(j.Key, j.T, ls.s.LeaseSize))
		return nil
	}
	ls.cb.at(sim, addSat(j.T, rtt/2), func(now engine.Time) {
		g := ls.grant(j.Key, now, ls.s.LeaseSize)
		ls.cb.at(sim, addSat(j.T, rtt), func(now engine.Time) { reply(now, g) })
	})
	return nil
}
