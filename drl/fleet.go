package drl

import (
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// nodeKey names the bucket of one key at one node.
type nodeKey struct {
	node int
	key  uint64
}

// fleet is N nodes behind a dispatcher, each holding a sub-bucket
// (R/N, B/N) per key it has seen: the static split, and the local
// fallback of the store. Memory is one state per (node, key) pair seen.
type fleet struct {
	n     int
	disp  systems.Dispatcher
	nodes []buckets.Limiter // placeholders: the dispatchers used here only count them
	tau   exact.Int128      // token time of a sub-bucket, N·tau, units
	subs  map[nodeKey]*bucketState
	// lims holds the node limiters per (node, key) when Spec.Static.NodeLimiter
	// is set, built by newLim, in place of subs.
	lims   map[nodeKey]buckets.Limiter
	newLim func() buckets.Limiter
	scale  int64 // units per ns, to convert a node limiter's wait
	src    rand.Source
	name   string
	// owner caches hash dispatch per key (rendezvous costs N hashes and
	// logarithms); cleared by a re-split.
	owner map[uint64]int
}

func newFleet(s Spec, u units) (*fleet, error) {
	f := &fleet{name: s.Dispatch, src: rand.NewPCG(s.Seed, systems.StreamDispatch), subs: map[nodeKey]*bucketState{}, newLim: s.Static.NodeLimiter, scale: u.scale}
	if f.newLim != nil {
		f.lims = map[nodeKey]buckets.Limiter{}
	}
	return f, f.resize(s.Nodes, u)
}

// resize re-splits the limit over n nodes: a surviving node keeps its
// fill level U (so its tokens scale by N/n), a new node starts full,
// a removed node's state is dropped. Node limiters are configured per
// node and do not change: a surviving node keeps them, a new node starts
// with fresh ones, a removed node's are dropped. The dispatcher is rebuilt for n
// nodes (round-robin restarts at node 0; random keeps its stream).
func (f *fleet) resize(n int, u units) error {
	d, err := systems.NewDispatcher(f.name, make1(n), f.src)
	if err != nil {
		return err
	}
	if n < f.n {
		for k := range f.subs {
			if k.node >= n {
				delete(f.subs, k)
			}
		}
		for k := range f.lims {
			if k.node >= n {
				delete(f.lims, k)
			}
		}
	}
	f.n, f.disp, f.nodes, f.tau = n, d, make([]buckets.Limiter, n), u.token(n)
	if f.name == "hash" {
		f.owner = map[uint64]int{}
	}
	return nil
}

func (f *fleet) dispatch(j systems.Job) (int, error) {
	if f.owner == nil {
		return f.disp.Dispatch(j, f.nodes)
	}
	if l, ok := f.owner[j.Hash]; ok {
		return l, nil
	}
	l, err := f.disp.Dispatch(j, f.nodes)
	if err == nil {
		f.owner[j.Hash] = l
	}
	return l, err
}

// local decides j at node l with its sub-bucket of j's key, or its node
// limiter of the key (Spec.Static.NodeLimiter), and returns the wait in units;
// hint is a refusing node limiter's retry hint (0 for none, and for a
// sub-bucket).
func (f *fleet) local(l int, j systems.Job, t exact.Int128, u units, police bool) (w exact.Int128, ok bool, hint engine.Time) {
	k := nodeKey{l, j.Key}
	if f.newLim != nil {
		lim := f.lims[k]
		if lim == nil {
			lim = f.newLim()
			f.lims[k] = lim
		}
		d := lim.Offer(j.T, j.ID)
		switch d.Verdict {
		case buckets.Reject:
			return exact.Int128{}, false, d.RetryAfter
		case buckets.Queue:
			panic("drl: a node limiter answered Queue: Spec.Static.NodeLimiter must decide at arrival (every profile does)")
		}
		// The wait in units of 1/scale ns, rounded up where a limiter's
		// exact wait falls between two units (a profile's waits are whole
		// nanoseconds, which never do).
		w, err := d.Wait.Mul(exact.Int(f.scale))
		if err != nil {
			panic("drl: a node limiter's wait overflows the exact model: " + err.Error())
		}
		return w.Ceil(), true, 0
	}
	b := f.subs[k]
	if b == nil {
		b = &bucketState{f: t}
		f.subs[k] = b
	}
	w, ok = b.decide(t, f.tau, u.beta, police)
	return w, ok, 0
}
