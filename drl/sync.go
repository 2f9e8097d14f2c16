package drl

import (
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// syncKey is the state of one key in the reconcile design.
type syncKey struct {
	owner  int         // the node that owns the key (rendezvous hash of the key)
	global bucketState // the true state, at the owner
	snap   exact.Int128
	snapAt engine.Time // the instant of the broadcast snap comes from
	hasSnp bool        // snap is the state of the latest broadcast delivered
	// holders are the nodes holding a state of the key (a copy or a
	// sub-bucket), in order of creation.
	holders []int
}

// batch is a node's pending keys, in order of first hit (so that messages
// are built in a deterministic order), with their counts.
type batch struct {
	keys  []uint64
	count map[uint64]int64
	armed bool // a timer is pending
}

func (b *batch) add(k uint64, n int64) {
	if b.count == nil {
		b.count = map[uint64]int64{}
	}
	if _, ok := b.count[k]; !ok {
		b.keys = append(b.keys, k)
	}
	b.count[k] += n
}

func (b *batch) take() ([]uint64, map[uint64]int64) {
	k, c := b.keys, b.count
	b.keys, b.count = nil, nil
	return k, c
}

// syncDesign is the design reconcile, the idealized reconciliation,
// shaped after Gubernator's global behaviour (global.go) but not
// Gubernator (gubDesign is): each node decides from its own exact state
// of the key (Spec.Reconcile.Local: a copy of the whole bucket, which keeps
// refilling between broadcasts, or its sub-bucket); only admitted hits are
// queued and sent to the key's owner (rendezvous hash) Spec.Sync.Period
// after the first queued hit, or at once when the batch holds
// Spec.Sync.BatchLimit keys; the owner applies them one by one to the true
// state at receipt (policing: a hit over the limit does not count) and,
// Spec.Sync.Period after the first change (or when Spec.Sync.BatchLimit keys
// changed), broadcasts the exact true state to every other node, which
// overwrites its own. Each message takes a delay from Spec.Sync.Delay and
// is lost with probability Spec.Sync.Loss. It models what reconciling
// exact buckets could at best do with that batching: with no period it is
// the one bucket, and its share mode with no messages is the static split.
//
// A node keeps state only for keys it has seen; one that sees a key for
// the first time starts from the latest broadcast state delivered, or a
// full bucket.
type syncDesign struct {
	s       Spec
	u       units
	res     *Result
	f       *fleet
	hash    systems.Dispatcher
	keys    map[uint64]*syncKey
	copies  map[nodeKey]*bucketState
	hits    []batch // per node
	updates []batch // per owner
	delay   *rand.Rand
	loss    *rand.Rand
	cb      callbacks
}

func newSync(s Spec, u units, res *Result) (*syncDesign, error) {
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	h, err := systems.NewDispatcher("hash", make1(s.Nodes), nil)
	if err != nil {
		return nil, err
	}
	return &syncDesign{s: s, u: u, res: res, f: f, hash: h, keys: map[uint64]*syncKey{}, copies: map[nodeKey]*bucketState{},
		hits: make([]batch, s.Nodes), updates: make([]batch, s.Nodes),
		delay: rand.New(rand.NewPCG(s.Seed, StreamSyncDelay)), loss: rand.New(rand.NewPCG(s.Seed, StreamSyncLoss))}, nil
}

func (sd *syncDesign) key(j systems.Job, t exact.Int128) (*syncKey, error) {
	ks := sd.keys[j.Key]
	if ks == nil {
		o, err := sd.hash.Dispatch(j, sd.f.nodes)
		if err != nil {
			return nil, err
		}
		ks = &syncKey{owner: o, global: bucketState{f: t}}
		sd.keys[j.Key] = ks
	}
	return ks, nil
}

// state returns node l's state of key k, creating it from the latest
// broadcast (or full at t) the first time.
func (sd *syncDesign) state(m map[nodeKey]*bucketState, l int, k uint64, ks *syncKey, t exact.Int128, now engine.Time) *bucketState {
	nk := nodeKey{l, k}
	b := m[nk]
	if b == nil {
		b = &bucketState{f: t, at: now}
		if ks.hasSnp {
			b.f, b.at = ks.snap, ks.snapAt
		}
		m[nk] = b
		ks.holders = append(ks.holders, l)
	}
	return b
}

func (sd *syncDesign) Offer(sim *engine.Sim, j systems.Job) error {
	t := sd.u.at(j.T)
	ks, err := sd.key(j, t)
	if err != nil {
		return err
	}
	// Hash dispatch is the owner's rendezvous hash (the same weights over
	// the same Spec.Nodes nodes): computed once per key, in ks.
	l := ks.owner
	if sd.s.Dispatch != "hash" {
		if l, err = sd.f.dispatch(j); err != nil {
			return err
		}
	}
	var w exact.Int128
	var ok bool
	switch {
	case sd.s.Reconcile.Local == LocalCopy && l == ks.owner:
		w, ok = ks.global.decide(t, sd.u.tau, sd.u.beta, sd.s.Police)
	case sd.s.Reconcile.Local == LocalCopy:
		b := sd.state(sd.copies, l, j.Key, ks, t, j.T)
		sd.res.stale(j.T - b.at)
		w, ok = b.decide(t, sd.u.tau, sd.u.beta, sd.s.Police)
	default:
		b := sd.state(sd.f.subs, l, j.Key, ks, t, j.T)
		sd.res.stale(j.T - b.at)
		w, ok = b.decide(t, sd.f.tau, sd.u.beta, sd.s.Police)
	}
	if sd.s.Reconcile.Local == LocalCopy && l == ks.owner {
		sd.res.stale(0)
	}
	if !ok {
		sd.res.reject(l, j)
		return nil
	}
	sd.res.admit(l, j, 0, w)
	switch {
	case l == ks.owner && sd.s.Reconcile.Local == LocalCopy:
		sd.queueUpdate(sim, l, j.Key, j.T)
	case l == ks.owner:
		ks.global.decide(t, sd.u.tau, sd.u.beta, sd.s.Police)
		sd.queueUpdate(sim, l, j.Key, j.T)
	default:
		sd.queueHit(sim, l, j.Key, j.T)
	}
	return nil
}

// send counts a message and returns its delivery instant, or false when
// it is lost.
func (sd *syncDesign) send(now engine.Time) (engine.Time, bool) {
	sd.res.Messages++
	if sd.s.Sync.Loss > 0 && sd.loss.Float64() < sd.s.Sync.Loss {
		sd.res.Lost++
		return 0, false
	}
	return addSat(now, sd.s.Sync.Delay.Draw(sd.delay)), true
}

func (sd *syncDesign) queueHit(sim *engine.Sim, l int, k uint64, now engine.Time) {
	sd.enqueue(sim, &sd.hits[l], k, 1, now, false, l)
}

// enqueue adds n hits of key k to batch b, node l's hits (flush) or, with
// update, owner l's changed keys (broadcast), and sends it at once when it
// holds BatchLimit keys, else SyncPeriod after its first key (the
// GlobalBatchLimit and GlobalSyncWait rules of Gubernator's global.go).
func (sd *syncDesign) enqueue(sim *engine.Sim, b *batch, k uint64, n int64, now engine.Time, update bool, l int) {
	b.add(k, n)
	if sd.s.Sync.BatchLimit > 0 && len(b.keys) >= sd.s.Sync.BatchLimit {
		sd.sendBatch(sim, now, update, l)
		return
	}
	if !b.armed && sd.s.Sync.Period != engine.Forever {
		b.armed = true
		sd.cb.at(sim, addSat(now, sd.s.Sync.Period), func(at engine.Time) {
			b.armed = false
			sd.sendBatch(sim, at, update, l)
		})
	}
}

// sendBatch sends batch l of enqueue: owner l's broadcast with update, node
// l's hits otherwise.
func (sd *syncDesign) sendBatch(sim *engine.Sim, at engine.Time, update bool, l int) {
	if update {
		sd.broadcast(sim, l, at)
	} else {
		sd.flush(sim, l, at)
	}
}

// flush sends node l's hits, one message per owner.
func (sd *syncDesign) flush(sim *engine.Sim, l int, now engine.Time) {
	keys, count := sd.hits[l].take()
	if len(keys) == 0 {
		return
	}
	byOwner := map[int][]uint64{}
	var owners []int
	for _, k := range keys {
		o := sd.keys[k].owner
		if _, ok := byOwner[o]; !ok {
			owners = append(owners, o)
		}
		byOwner[o] = append(byOwner[o], k)
	}
	for _, o := range owners {
		ks := byOwner[o]
		at, ok := sd.send(now)
		if !ok {
			continue
		}
		sd.cb.at(sim, at, func(at engine.Time) {
			t := sd.u.at(at)
			for _, k := range ks {
				st := sd.keys[k]
				for range count[k] {
					st.global.decide(t, sd.u.tau, sd.u.beta, sd.s.Police)
				}
				sd.queueUpdate(sim, o, k, at)
			}
		})
	}
}

func (sd *syncDesign) queueUpdate(sim *engine.Sim, o int, k uint64, now engine.Time) {
	sd.enqueue(sim, &sd.updates[o], k, 0, now, true, o)
}

// broadcast sends the owner's true state of its changed keys to every
// other node, one message per node.
func (sd *syncDesign) broadcast(sim *engine.Sim, o int, now engine.Time) {
	keys, _ := sd.updates[o].take()
	if len(keys) == 0 {
		return
	}
	snaps := make([]exact.Int128, len(keys))
	for i, k := range keys {
		snaps[i] = sd.keys[k].global.f
	}
	m := sd.copies
	if sd.s.Reconcile.Local == LocalShare {
		m = sd.f.subs
		for i, k := range keys { // the owner's own sub-bucket follows at once
			if b := m[nodeKey{o, k}]; b != nil {
				b.f, b.at = snaps[i], now
			}
		}
	}
	// Every other node gets one message. Those that hold no state of these
	// keys only cache the snapshot (what a node starts from when it sees a
	// key first), so they are modelled together, by one delivery; the
	// others each by their own (delay and loss drawn per message).
	holders := sd.holders(keys, o)
	sd.res.Messages += int64(sd.f.n - 1 - len(holders))
	if sd.f.n-1 > len(holders) {
		if at, ok := sd.send(now); ok {
			sd.res.Messages-- // counted above
			sd.cb.at(sim, at, func(engine.Time) {
				for i, k := range keys {
					ks := sd.keys[k]
					ks.snap, ks.snapAt, ks.hasSnp = snaps[i], now, true
				}
			})
		}
	}
	deliver := func(peer int) {
		for i, k := range keys {
			ks := sd.keys[k]
			ks.snap, ks.snapAt, ks.hasSnp = snaps[i], now, true
			if b := m[nodeKey{peer, k}]; b != nil {
				b.f, b.at = snaps[i], now
			}
		}
	}
	if sd.s.Sync.Loss == 0 && sd.s.Sync.Delay.Fixed() && len(holders) > 0 {
		// Every message arrives at one instant: one event for them all.
		sd.res.Messages += int64(len(holders))
		at := addSat(now, sd.s.Sync.Delay.A)
		sd.cb.at(sim, at, func(engine.Time) {
			for _, peer := range holders {
				deliver(peer)
			}
		})
		return
	}
	for _, peer := range holders {
		at, ok := sd.send(now)
		if !ok {
			continue
		}
		sd.cb.at(sim, at, func(engine.Time) { deliver(peer) })
	}
}

// holders returns the nodes other than o that hold a state of any of
// keys, in a fixed order.
func (sd *syncDesign) holders(keys []uint64, o int) []int {
	if len(keys) == 1 {
		hs := sd.keys[keys[0]].holders
		if i := slices.Index(hs, o); i >= 0 {
			return slices.Delete(slices.Clone(hs), i, i+1)
		}
		return hs
	}
	seen := map[int]bool{}
	var hs []int
	for _, k := range keys {
		for _, h := range sd.keys[k].holders {
			if h != o && !seen[h] {
				seen[h] = true
				hs = append(hs, h)
			}
		}
	}
	slices.Sort(hs)
	return hs
}
