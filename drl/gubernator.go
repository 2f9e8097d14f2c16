package drl

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// SyncAlgorithm is the algorithm the sync design runs Gubernator v2.13.0's
// GLOBAL behaviour with (gubernator.proto's Algorithm). The idealized
// reconciliation of exact bucket states is its own design, reconcile
// (syncDesign), which takes no algorithm.
type SyncAlgorithm int

const (
	// SyncTokenBucket is Gubernator's TOKEN_BUCKET (its default
	// algorithm, gubernator.proto, and the zero value here): Limit tokens
	// per Duration, all given back at once when the item expires
	// (algorithms.go:37-257).
	SyncTokenBucket SyncAlgorithm = iota
	// SyncLeakyBucket is Gubernator's LEAKY_BUCKET: Remaining grows by
	// elapsed·Limit/Duration, up to Burst (algorithms.go:259-493).
	SyncLeakyBucket
)

// ParseSyncAlgorithm returns the SyncAlgorithm named s: "token-bucket" or
// "leaky-bucket" (Gubernator's names); any other name is an error wrapping
// ErrSpec.
func ParseSyncAlgorithm(s string) (SyncAlgorithm, error) {
	switch s {
	case "token-bucket":
		return SyncTokenBucket, nil
	case "leaky-bucket":
		return SyncLeakyBucket, nil
	}
	return 0, fmt.Errorf("drl: sync algorithm %q: want token-bucket or leaky-bucket (the idealized reconciliation is the design reconcile): %w", s, ErrSpec)
}

func (a SyncAlgorithm) String() string {
	return [...]string{"token-bucket", "leaky-bucket"}[a]
}

// GubernatorLimits returns the Limit (tokens), Duration (ms) and Burst
// (tokens) of the Gubernator rate limit that keeps the promise (R, B):
// Limit = Burst = B and Duration = B/R s, so that Limit/Duration = R. B
// must be a whole number and B/R a whole number of milliseconds
// (Gubernator's RateLimitReq holds int64 Limit, Burst and Duration in
// ms: gubernator.proto); otherwise the error wraps ErrSpec and says what
// would fit.
func GubernatorLimits(rate, burst exact.Rat) (limit, durationMs, b int64, err error) {
	if !burst.IsInt() || burst.Cmp(exact.Int(1)) < 0 {
		return 0, 0, 0, fmt.Errorf("drl: Gubernator's Limit is the burst %v: want a whole number of tokens >= 1: %w", burst, ErrSpec)
	}
	d, err := burst.Quo(rate)
	if err == nil {
		d, err = d.Mul(exact.Int(1000))
	}
	if err != nil || !d.IsInt() || d.Cmp(exact.Int(1)) < 0 {
		return 0, 0, 0, fmt.Errorf("drl: Gubernator's Duration is burst/rate = %v/%v s: want a whole number of milliseconds >= 1 (a rate dividing 1000·burst): %w", burst, rate, ErrSpec)
	}
	return burst.Num().Int64(), d.Num().Int64(), burst.Num().Int64(), nil
}

// SyncStepKind is the kind of a SyncStep.
type SyncStepKind int

const (
	// StepJob: a job reached daemon Node, which answered Admitted.
	StepJob SyncStepKind = iota
	// StepFlush: daemon Node sent its queued hits to their owners
	// (global.go:128-133 or :115-120), each applied at once when messages
	// take no time.
	StepFlush
	// StepBroadcast: owner Node sent the status of its changed keys to
	// every other daemon (global.go:217-224 or :204-209).
	StepBroadcast
)

// SyncStep is one step of the sync design's Gubernator model, in the
// order the model takes them; a differential test replays them on the
// real daemons (see Spec.Sync.OnStep).
type SyncStep struct {
	Kind     SyncStepKind
	At       engine.Time // ns
	Node     int         // the daemon
	Job      int64       // StepJob: the job's id (arrival order)
	Key      uint64      // StepJob: the job's key id
	Admitted bool        // StepJob: the daemon answered UNDER_LIMIT
}

// gubItem is one daemon's cache item of one key (cache.go:29-41 and the
// TokenBucketItem / LeakyBucketItem it holds): ExpireAt in epoch ms;
// a leaky item's Remaining (float64) and UpdatedAt; a token item's
// Status, Remaining (int64) and CreatedAt.
type gubItem struct {
	expireAt  int64
	remaining float64 // leaky
	updatedAt int64   // leaky, ms
	over      bool    // token: Status OVER_LIMIT
	tokens    int64   // token: Remaining
	// from is the instant (ns) of the broadcast the item was installed
	// from, or -1 for an item the daemon created itself (staleness).
	from engine.Time
}

// gubReq is a RateLimitReq as far as the model needs it: Hits, CreatedAt
// (epoch ms) and whether DRAIN_OVER_LIMIT is set.
type gubReq struct {
	hits      int64
	createdAt int64
	drain     bool
}

// gubResp is a RateLimitResp: Status, Remaining and ResetTime (epoch ms).
type gubResp struct {
	over      bool
	remaining int64
	reset     int64
}

// gubBatch is a globalManager's map of queued requests by hash key
// (global.go:93 hits, :195 updates), kept in order of first entry.
type gubBatch struct {
	keys []uint64
	reqs map[uint64]*gubReq
	iv   gubInterval
}

// gubInterval is the one-shot ticker of interval.go at v2.13.0: Next
// (interval.go:67-72) puts a token in a channel of capacity 1 unless one
// is there; the ticker's goroutine takes a token, sleeps d and ticks
// (interval.go:48-59), so a Next made during a sleep starts the next one
// as soon as the tick is sent. Its consumer reads the tick at once (it
// only ever waits on it, global.go:97, :198), so no tick waits.
type gubInterval struct {
	sleeping bool // the goroutine sleeps (a tick is due)
	pending  bool // a token waits in the channel
}

// gubDesign is the sync design as Gubernator v2.13.0's GLOBAL behaviour,
// decision for decision, with every Gubernator time in epoch ms
// (MillisecondNow, lrucache.go:106; epochMillis, gubernator.go:860): a
// job at t ns has CreatedAt floor(t/1e6) ms, which is also the clock a
// daemon reads while it serves the job.
//
// A job reaches daemon l (Spec.Dispatch) and l answers at once:
//
//   - the owner of the key (gubRing, the daemons' hash ring) applies the
//     algorithm to its cache (gubernator.go:245-255) and queues the
//     request for broadcast (gubernator.go:637-640, global.go:80-84);
//   - any other daemon applies the algorithm to its own cache item of
//     the key as if it owned it (gubernator.go:408-414) and queues the hit
//     for the owner whatever the answer (gubernator.go:401-404: an
//     OVER_LIMIT answer is no error).
//
// Queued hits of one key add up into the first request, which keeps its
// CreatedAt (global.go:98-111); the queue is sent when it holds
// GlobalBatchLimit keys (Spec.Sync.BatchLimit, global.go:115) or when its
// ticker ticks, GlobalSyncWait after the Next that started it
// (Spec.Sync.Period, global.go:122-133). Next is called on every request
// queued while the queue holds one key, the key it already holds
// included (global.go:124-126), and a Next made during a sleep starts
// the next one at the tick (gubInterval): a key hit at least once per
// GlobalSyncWait is sent every GlobalSyncWait from its first hit, not
// GlobalSyncWait after the first hit of each batch. The owner
// applies each key's request as one request of the summed hits at the
// first hit's CreatedAt, with DRAIN_OVER_LIMIT set (gubernator.go:506-512),
// and queues it for broadcast. A broadcast (same batching, the latest
// request per key: global.go:199-224) reads the owner's status with a
// request of 0 hits at that request's CreatedAt (global.go:241-256),
// which can change the owner's item (a leak applied, a fraction below
// one token dropped), and every other daemon replaces its item by one
// built from the status (gubernator.go:425-459): the integer Remaining,
// ExpireAt the status's ResetTime, and the leak (leaky) or the item's age
// (token) restarting at the instant of receipt. Each message takes a
// delay from Spec.Sync.Delay and is lost with probability Spec.Sync.Loss
// (Gubernator logs the error and drops the batch: global.go:179-182);
// with no delay and no loss a message is applied within the step that
// sends it, as the real RPC completes before the sender goes on.
//
// Events at one instant run in the order they were scheduled, before a
// job at that instant (Run). BatchWait (config.go:139, 500 µs) batches
// the requests a daemon forwards to owners of non-GLOBAL limits
// (peer_client.go:126-160); GLOBAL requests never take that path, so it
// plays no part here.
//
// Gubernator's parameters are Limit = Burst = B and Duration = B/R
// (GubernatorLimits); with Burst = Limit a peer's item built from a
// status (whose Burst is the status's Limit, gubernator.go:440) keeps the
// request's Burst, so the burst-change rule (algorithms.go:325-330) never
// fires, nor do the limit and duration changes (algorithms.go:106-147).
type gubDesign struct {
	s       Spec
	res     *Result
	f       *fleet
	ring    *gubRing
	alg     SyncAlgorithm
	limit   int64 // tokens
	dur     int64 // ms
	burst   int64 // tokens
	owners  map[uint64]int
	items   map[nodeKey]*gubItem
	hits    []gubBatch // per daemon
	updates []gubBatch // per daemon (as owner)
	delay   *rand.Rand
	loss    *rand.Rand
	inline  bool // messages take no time and are never lost
	cb      callbacks
}

func newGubernator(s Spec, u units, res *Result) (*gubDesign, error) {
	limit, dur, burst, err := GubernatorLimits(s.Bucket.Rate, s.Bucket.Burst)
	if err != nil {
		return nil, err
	}
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	peers := s.Sync.Peers
	if len(peers) == 0 {
		peers = DefaultGubernatorPeers(s.Nodes)
	}
	if len(peers) != s.Nodes {
		return nil, fmt.Errorf("drl: %d Gubernator peers for %d nodes: want one address per node: %w", len(peers), s.Nodes, ErrSpec)
	}
	return &gubDesign{s: s, res: res, f: f, ring: newGubRing(peers), alg: s.Sync.Algorithm, limit: limit, dur: dur, burst: burst,
		owners: map[uint64]int{}, items: map[nodeKey]*gubItem{},
		hits: make([]gubBatch, s.Nodes), updates: make([]gubBatch, s.Nodes),
		delay: rand.New(rand.NewPCG(s.Seed, StreamSyncDelay)), loss: rand.New(rand.NewPCG(s.Seed, StreamSyncLoss)),
		inline: s.Sync.Loss == 0 && s.Sync.Delay.Fixed() && s.Sync.Delay.A == 0}, nil
}

// epochMs is Gubernator's epoch milliseconds of instant t ns (floor).
func epochMs(t engine.Time) int64 {
	q := int64(t) / 1e6
	if int64(t)%1e6 < 0 {
		q--
	}
	return q
}

func (g *gubDesign) step(st SyncStep) {
	if g.s.Sync.OnStep != nil {
		g.s.Sync.OnStep(st)
	}
}

func (g *gubDesign) owner(k uint64) int {
	o, ok := g.owners[k]
	if !ok {
		o = g.ring.owner(GubernatorHashKey(k))
		g.owners[k] = o
	}
	return o
}

func (g *gubDesign) Offer(sim *engine.Sim, j systems.Job) error {
	l, err := g.f.dispatch(j)
	if err != nil {
		return err
	}
	now := epochMs(j.T)
	req := gubReq{hits: 1, createdAt: now}
	o := g.owner(j.Key)
	if it := g.items[nodeKey{l, j.Key}]; l == o || it == nil || it.from < 0 {
		g.res.stale(0)
	} else {
		g.res.stale(j.T - it.from)
	}
	r := g.apply(l, j.Key, req, now)
	if r.over {
		g.res.reject(l, j)
	} else {
		g.res.admit(l, j, 0, exact.Int128{})
	}
	g.step(SyncStep{Kind: StepJob, At: j.T, Node: l, Job: j.ID, Key: j.Key, Admitted: !r.over})
	if l == o {
		g.queue(sim, &g.updates[l], l, j.Key, req, j.T, true)
	} else {
		g.queue(sim, &g.hits[l], l, j.Key, req, j.T, false)
	}
	return nil
}

// apply runs the algorithm on daemon l's item of key k for request r at
// the daemon's clock now (ms).
func (g *gubDesign) apply(l int, k uint64, r gubReq, now int64) gubResp {
	nk := nodeKey{l, k}
	it := g.items[nk]
	// LRUCache.GetItem drops an item whose ExpireAt is before the clock
	// (lrucache.go:111-128, cache.go:43-57).
	if it != nil && it.expireAt < now {
		delete(g.items, nk)
		it = nil
	}
	if g.alg == SyncLeakyBucket {
		return g.leaky(nk, it, r)
	}
	return g.token(nk, it, r)
}

// token is tokenBucket (algorithms.go:37-203) and tokenBucketNewItem
// (algorithms.go:206-257) at v2.13.0, for a request with the item's Limit
// and Duration and neither RESET_REMAINING nor DURATION_IS_GREGORIAN.
func (g *gubDesign) token(nk nodeKey, it *gubItem, r gubReq) gubResp {
	if it == nil {
		// algorithms.go:207-248: a new item of Limit - Hits tokens,
		// expiring Duration after CreatedAt; more hits than Limit answer
		// OVER_LIMIT and leave the item full (DRAIN_OVER_LIMIT is not read).
		it = &gubItem{tokens: g.limit - r.hits, expireAt: r.createdAt + g.dur, from: -1}
		resp := gubResp{remaining: it.tokens, reset: it.expireAt}
		if r.hits > g.limit {
			resp.over, resp.remaining, it.tokens = true, g.limit, g.limit
		}
		g.items[nk] = it
		return resp
	}
	// algorithms.go:115-120: the answer starts from the item's Status.
	resp := gubResp{over: it.over, remaining: it.tokens, reset: it.expireAt}
	switch {
	case r.hits == 0: // algorithms.go:157-159
	case it.tokens == 0: // algorithms.go:161-170: Status becomes OVER_LIMIT
		resp.over, it.over = true, true
	case it.tokens == r.hits: // algorithms.go:172-178
		it.tokens, resp.remaining = 0, 0
	case r.hits > it.tokens: // algorithms.go:180-194
		resp.over = true
		if r.drain {
			it.tokens, resp.remaining = 0, 0
		}
	default: // algorithms.go:196-198
		it.tokens -= r.hits
		resp.remaining = it.tokens
	}
	return resp
}

// leaky is leakyBucket (algorithms.go:260-434) and leakyBucketNewItem
// (algorithms.go:437-493) at v2.13.0, in Gubernator's float64 arithmetic
// (the same operations in the same order, so the same roundings), for a
// request with Burst = Limit and neither RESET_REMAINING nor
// DURATION_IS_GREGORIAN.
func (g *gubDesign) leaky(nk nodeKey, it *gubItem, r gubReq) gubResp {
	rate := float64(g.dur) / float64(g.limit) // ms per token, algorithms.go:336, :440
	irate := int64(rate)
	if it == nil {
		// algorithms.go:453-477: Burst - Hits, or 0 (OVER_LIMIT) when the
		// hits exceed the burst.
		it = &gubItem{remaining: float64(g.burst - r.hits), updatedAt: r.createdAt, expireAt: r.createdAt + g.dur, from: -1}
		resp := gubResp{remaining: g.burst - r.hits, reset: r.createdAt + (g.limit-(g.burst-r.hits))*irate}
		if r.hits > g.burst {
			resp.over, resp.remaining = true, 0
			resp.reset = r.createdAt + g.limit*irate
			it.remaining = 0
		}
		g.items[nk] = it
		return resp
	}
	if r.hits != 0 { // algorithms.go:356-358
		it.expireAt = r.createdAt + g.dur
	}
	// algorithms.go:361-371: leak only once a whole token has leaked, then
	// cap the integer part at Burst.
	leak := float64(r.createdAt-it.updatedAt) / rate
	if int64(leak) > 0 {
		it.remaining += leak
		it.updatedAt = r.createdAt
	}
	if int64(it.remaining) > g.burst {
		it.remaining = float64(g.burst)
	}
	rem := int64(it.remaining)
	resp := gubResp{remaining: rem, reset: r.createdAt + (g.limit-rem)*irate}
	switch {
	case rem == 0 && r.hits > 0: // algorithms.go:389-395
		resp.over = true
	case rem == r.hits: // algorithms.go:398-403 (also 0 hits on 0 < 1 token: the fraction goes)
		it.remaining = 0
		resp.remaining, resp.reset = 0, r.createdAt+g.limit*irate
	case r.hits > rem: // algorithms.go:407-420
		resp.over = true
		if r.drain {
			it.remaining, resp.remaining = 0, 0
		}
	case r.hits == 0: // algorithms.go:423-425
	default: // algorithms.go:427-430
		it.remaining -= float64(r.hits)
		resp.remaining = int64(it.remaining)
		resp.reset = r.createdAt + (g.limit-resp.remaining)*irate
	}
	return resp
}

// queue adds request r of key k to batch b of daemon l at t ns: hits
// (global.go:95-126) or, with update, changed keys (global.go:197-215).
func (g *gubDesign) queue(sim *engine.Sim, b *gubBatch, l int, k uint64, r gubReq, t engine.Time, update bool) {
	if b.reqs == nil {
		b.reqs = map[uint64]*gubReq{}
	}
	if q, ok := b.reqs[k]; ok {
		if update {
			*q = r // the latest request replaces the key's (global.go:200)
		} else {
			q.hits += r.hits // the first request keeps its CreatedAt (global.go:108)
		}
	} else {
		b.keys = append(b.keys, k)
		q := r
		b.reqs[k] = &q
	}
	if g.s.Sync.BatchLimit > 0 && len(b.keys) >= g.s.Sync.BatchLimit { // global.go:115, :204
		g.send(sim, b, l, t, update)
		return
	}
	if len(b.keys) == 1 { // global.go:124-126, :213-215
		g.next(sim, b, l, t, update)
	}
}

// next is Interval.Next at t ns on batch b's ticker.
func (g *gubDesign) next(sim *engine.Sim, b *gubBatch, l int, t engine.Time, update bool) {
	if g.s.Sync.Period == engine.Forever {
		return
	}
	if b.iv.sleeping {
		b.iv.pending = true
		return
	}
	b.iv.sleeping = true
	g.cb.at(sim, addSat(t, g.s.Sync.Period), func(at engine.Time) { g.tick(sim, b, l, at, update) })
}

// tick is the ticker's tick at t ns: the batch, if not empty, is sent
// (global.go:128-133, :217-224), and a token taken meanwhile starts the
// next sleep.
func (g *gubDesign) tick(sim *engine.Sim, b *gubBatch, l int, t engine.Time, update bool) {
	b.iv.sleeping = false
	if len(b.keys) > 0 {
		g.send(sim, b, l, t, update)
	}
	if b.iv.pending {
		b.iv.pending = false
		b.iv.sleeping = true
		g.cb.at(sim, addSat(t, g.s.Sync.Period), func(at engine.Time) { g.tick(sim, b, l, at, update) })
	}
}

// message counts a message sent at now and runs deliver at its arrival,
// within this call when messages take no time.
func (g *gubDesign) message(sim *engine.Sim, now engine.Time, deliver func(at engine.Time)) {
	g.res.Messages++
	if g.inline {
		deliver(now)
		return
	}
	if g.s.Sync.Loss > 0 && g.loss.Float64() < g.s.Sync.Loss {
		g.res.Lost++
		return
	}
	at := addSat(now, g.s.Sync.Delay.Draw(g.delay))
	g.cb.at(sim, at, deliver)
}

func (g *gubDesign) send(sim *engine.Sim, b *gubBatch, l int, t engine.Time, update bool) {
	keys, reqs := b.keys, b.reqs
	b.keys, b.reqs = nil, nil
	if update {
		g.broadcast(sim, l, keys, reqs, t)
	} else {
		g.flush(sim, l, keys, reqs, t)
	}
}

// flush is sendHits (global.go:144-187): one GetPeerRateLimits message
// per owner, whose requests the owner applies with DRAIN_OVER_LIMIT at
// its clock (gubernator.go:462-539) and queues for broadcast.
func (g *gubDesign) flush(sim *engine.Sim, l int, keys []uint64, reqs map[uint64]*gubReq, t engine.Time) {
	g.step(SyncStep{Kind: StepFlush, At: t, Node: l})
	byOwner := map[int][]uint64{}
	var owners []int
	for _, k := range keys {
		o := g.owner(k)
		if _, ok := byOwner[o]; !ok {
			owners = append(owners, o)
		}
		byOwner[o] = append(byOwner[o], k)
	}
	for _, o := range owners {
		ks := byOwner[o]
		g.message(sim, t, func(at engine.Time) {
			for _, k := range ks {
				r := *reqs[k]
				r.drain = true
				g.apply(o, k, r, epochMs(at))
				g.queue(sim, &g.updates[o], o, k, r, at, true)
			}
		})
	}
}

// broadcast is broadcastPeers (global.go:234-283): the owner reads each
// key's status with 0 hits at the queued request's CreatedAt, and every
// other daemon installs it (UpdatePeerGlobals, gubernator.go:425-459).
func (g *gubDesign) broadcast(sim *engine.Sim, o int, keys []uint64, reqs map[uint64]*gubReq, t engine.Time) {
	g.step(SyncStep{Kind: StepBroadcast, At: t, Node: o})
	sts := make([]gubResp, len(keys))
	for i, k := range keys {
		r := *reqs[k]
		r.hits = 0
		sts[i] = g.apply(o, k, r, epochMs(t))
	}
	for p := range g.s.Nodes {
		if p == o {
			continue
		}
		g.message(sim, t, func(at engine.Time) {
			now := epochMs(at)
			for i, k := range keys {
				st := sts[i]
				it := &gubItem{expireAt: st.reset, from: at}
				if g.alg == SyncLeakyBucket {
					it.remaining, it.updatedAt = float64(st.remaining), now // gubernator.go:435-442
				} else {
					it.over, it.tokens = st.over, st.remaining // gubernator.go:443-450
				}
				g.items[nodeKey{p, k}] = it
			}
		})
	}
}

// DescribeGubernator returns one line saying what the sync design of s
// runs with a Gubernator algorithm: the rate limit (GubernatorLimits),
// GlobalSyncWait, GlobalBatchLimit, the messages' delay and loss, the
// peers and the owner of key id 0 (ratesim_0, the key of arrivals
// without keys) among them.
func DescribeGubernator(s Spec) string {
	limit, dur, burst, err := GubernatorLimits(s.Bucket.Rate, s.Bucket.Burst)
	if err != nil {
		return err.Error()
	}
	period := "never"
	if s.Sync.Period != engine.Forever {
		period = fmt.Sprintf("%v s", s.Sync.Period.Seconds())
	}
	peers := s.Sync.Peers
	if len(peers) == 0 {
		peers = DefaultGubernatorPeers(s.Nodes)
	}
	burstText := ""
	if s.Sync.Algorithm == SyncLeakyBucket {
		burstText = fmt.Sprintf(", Burst %d", burst)
	}
	return fmt.Sprintf("Gubernator v2.13.0 GLOBAL %s, Limit %d per %d ms%s; GlobalSyncWait %s, GlobalBatchLimit %d keys, message delay %v, loss %v; key %s owned by node %d of %s",
		s.Sync.Algorithm, limit, dur, burstText, period, s.Sync.BatchLimit, s.Sync.Delay, s.Sync.Loss, GubernatorHashKey(0), GubernatorOwner(peers, GubernatorHashKey(0)), strings.Join(peers, ","))
}
