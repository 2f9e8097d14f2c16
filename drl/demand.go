package drl

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// ShareQuantum is the resolution of flow proportional shares: node l's
// share of a key's limit is s_l/ShareQuantum, s_l an integer, Σ s_l =
// ShareQuantum exactly, so that the node buckets' rates and bursts add up
// to R and B exactly.
const ShareQuantum = 1 << 16

// demandNode is one node's state of one key in the demand-aware designs.
type demandNode struct {
	node  int
	key   uint64
	count int64         // arrivals in the current estimate interval
	est   float64       // smoothed demand estimate, jobs/s
	drop  float64       // grd: the drop probability last received
	share int64         // fps: the share last received, of ShareQuantum; -1 before any
	view  map[int]heard // all-to-all and gossip: the latest estimate known of each other node
	// fps: the bucket's tokens x, in units of 1/K token (see demand.k),
	// at instant last (units of 1/S ns); shaping, x counts the tokens of
	// the jobs waiting too, and may be negative.
	x, last exact.Int128
	waiting []systems.Job // fps shaping: the jobs waiting for their token, in order
	gen     uint64        // fps shaping: the departure event that is current
}

// heard is an estimate of another node, and the tick it was made at.
type heard struct {
	est float64
	at  engine.Time
}

// demandKey is the coordinator's state of one key: the latest estimate of
// each node that has seen it, in node order.
type demandKey struct {
	nodes []int
	est   []float64
	sawAt []*demandNode // the node states, for the pushes
}

// demand is the demand-aware designs of B. Raghavan et al., "Cloud
// control with distributed rate limiting", SIGCOMM 2007, with state
// exchanged through a coordinator. Every Spec.Demand.EstimateInterval E (ns, at
// multiples of E from the origin) each node measures each key's arrival
// rate over the interval, smooths it, e ← α·count/E + (1 - α)·e with α =
// Spec.Demand.Smoothing, and reports it to the coordinator (a message of delay
// Spec.Sync.Delay, lost with Spec.Sync.Loss), which, at the same tick, from
// the latest reports, computes the global demand D = Σ_l e_l of the key
// and pushes to each node that has seen it (messages likewise):
//
//	grd  global random drop: the drop probability max(0, 1 - R/D); a node
//	     drops each job with the latest probability it received (a draw
//	     from stream StreamDemandDrop), and admits all before the first.
//	fps  flow proportional share: the share w_l = e_l/D of the limit; the
//	     node enforces a token bucket (R·w_l, B·w_l) for the key, exactly
//	     (w_l is rounded to 1/ShareQuantum, Σ w_l = 1 exactly); before its
//	     first share a node holds 1/N. A new share keeps the node's
//	     tokens, up to the new burst.
//
// grd polices whatever Spec.Police says: a drop is the design (it keeps
// no bucket, so a job has no token to wait for). fps polices with
// Spec.Police; shaping, a job that finds no whole token waits for it in
// order (FCFS at the node, the note's eq. (1)) at the node's current
// rate: tokens of the jobs waiting are owed (x < 0) and a new share
// changes the rate at which the debt is repaid from its instant. A job
// leaves at the first instant of the run's grid (1/S ns, S of
// buckets.CommonScale) at which its token is whole: exactly when it is
// whole, when the share's token time ShareQuantum/(s·R) is a whole
// number of units (N a power of 2 with equal shares, for one); otherwise
// less than 1/S ns later, the counter keeping the exact remainder, so
// the error does not accumulate. Jobs still waiting when the run ends at
// a node whose share is 0 are counted rejected.
//
// Ticks stop while no job arrives and resume at the next multiple of E
// after one does.
type demand struct {
	s          Spec
	u          units
	res        *Result
	f          *fleet
	fps        bool
	pairs      map[nodeKey]*demandNode
	order      []*demandNode // in order of first arrival, for deterministic ticks
	keys       map[uint64]*demandKey
	korder     []uint64
	ticking    bool
	busy       bool         // a job arrived since the last tick
	k          exact.Int128 // fps: units of one token, ShareQuantum·1e9·den(R)·den(B)
	capUnit    exact.Int128 // fps: burst units per share unit
	refillUnit exact.Int128 // fps: units a nanosecond adds per share unit
	drop       *rand.Rand
	gossip     *rand.Rand
	delay      *rand.Rand
	loss       *rand.Rand
	cb         callbacks
}

// Streams of the demand-aware designs: global random drop's draws, and
// the peers gossip picks.
const (
	StreamDemandDrop = 1003
	StreamGossip     = 1005
)

func newDemand(s Spec, u units, res *Result, fps bool) (*demand, error) {
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	d := &demand{s: s, u: u, res: res, f: f, fps: fps, pairs: map[nodeKey]*demandNode{}, keys: map[uint64]*demandKey{},
		drop: rand.New(rand.NewPCG(s.Seed, StreamDemandDrop)), gossip: rand.New(rand.NewPCG(s.Seed, StreamGossip)), delay: rand.New(rand.NewPCG(s.Seed, StreamSyncDelay)), loss: rand.New(rand.NewPCG(s.Seed, StreamSyncLoss))}
	// Units of 1/K token, K = ShareQuantum·1e9·den(R)·den(B): the burst of
	// share s is num(B)·s·1e9·den(R) units and a nanosecond adds
	// num(R)·s·den(B) units, both integers.
	k, ok1 := exact.Mul64(ShareQuantum*1e9, s.Bucket.Rate.Den()).Mul64OK(s.Bucket.Burst.Den())
	cu, ok2 := s.Bucket.Burst.Num().Mul64OK(1e9 * s.Bucket.Rate.Den())
	ru, ok3 := s.Bucket.Rate.Num().Mul64OK(s.Bucket.Burst.Den())
	_, ok4 := cu.Mul64OK(ShareQuantum)
	_, ok5 := ru.Mul64OK(ShareQuantum)
	if !(ok1 && ok2 && ok3 && ok4 && ok5) {
		return nil, fmt.Errorf("drl: the rate %v and burst %v have too many digits for flow proportional shares: %w", s.Bucket.Rate, s.Bucket.Burst, ErrSpec)
	}
	// Shaping counts time in units of 1/S ns (the run's grid), so x is kept
	// in units of 1/(K·S) token: a unit of time adds num(R)·s·den(B),
	// as a nanosecond adds 1/K tokens' worth before.
	k, ok6 := k.Mul64OK(u.scale)
	cu, ok7 := cu.Mul64OK(u.scale)
	_, ok8 := cu.Mul64OK(ShareQuantum)
	if !(ok6 && ok7 && ok8) {
		return nil, fmt.Errorf("drl: the rate %v and burst %v have too many digits for flow proportional shares: %w", s.Bucket.Rate, s.Bucket.Burst, ErrSpec)
	}
	d.k, d.capUnit, d.refillUnit = k, cu, ru
	return d, nil
}

func (d *demand) Offer(sim *engine.Sim, j systems.Job) error {
	l, err := d.f.dispatch(j)
	if err != nil {
		return err
	}
	nk := nodeKey{l, j.Key}
	st := d.pairs[nk]
	if st == nil {
		st = &demandNode{node: l, key: j.Key, share: -1, last: d.u.at(j.T)}
		st.x = d.cap(d.shareOf(st))
		d.pairs[nk] = st
		d.order = append(d.order, st)
		dk := d.keys[j.Key]
		if dk == nil {
			dk = &demandKey{}
			d.keys[j.Key] = dk
			d.korder = append(d.korder, j.Key)
		}
		i, _ := slices.BinarySearch(dk.nodes, l)
		dk.nodes = slices.Insert(dk.nodes, i, l)
		dk.est = slices.Insert(dk.est, i, 0)
		dk.sawAt = slices.Insert(dk.sawAt, i, st)
	}
	st.count++
	d.busy = true
	if !d.ticking {
		d.ticking = true
		next := (j.T/d.s.Demand.EstimateInterval + 1) * d.s.Demand.EstimateInterval
		d.cb.at(sim, next, func(now engine.Time) { d.tick(sim, now) })
	}
	ok := true
	if d.fps && !d.s.Police {
		d.enqueue(sim, st, j)
		return nil
	}
	if d.fps {
		ok = d.take(st, j.T)
	} else if st.drop > 0 {
		ok = d.drop.Float64() >= st.drop
	}
	if ok {
		d.res.admit(l, j, 0, exact.I128(0))
	} else {
		d.res.reject(l, j)
	}
	return nil
}

func (d *demand) shareOf(st *demandNode) int64 {
	if st.share < 0 {
		return ShareQuantum / int64(d.f.n)
	}
	return st.share
}

// cap returns the burst of share s in units of 1/K token: B·s/Q·K =
// num(B)·s·1e9·den(R).
func (d *demand) cap(s int64) exact.Int128 {
	v, _ := d.capUnit.Mul64OK(s)
	return v
}

// refill returns the units one unit of time (1/S ns) adds at share s:
// R·s/Q·K·S/(1e9·S) = num(R)·s·den(B).
func (d *demand) refill(s int64) exact.Int128 {
	v, _ := d.refillUnit.Mul64OK(s)
	return v
}

// advance brings st's tokens to instant t (units, >= st.last) at its
// current share, up to its burst; no waiting job may be due before t
// (settle).
func (d *demand) advance(st *demandNode, t exact.Int128) {
	s := d.shareOf(st)
	c := d.cap(s)
	if add, ok := d.refill(s).Mul(t.Sub(st.last)); ok {
		st.x = st.x.Add(add)
	} else {
		st.x = c
	}
	if c.Less(st.x) {
		st.x = c
	}
	st.last = t
}

// take admits a job at t if the node's bucket holds a whole token.
func (d *demand) take(st *demandNode, t engine.Time) bool {
	d.advance(st, d.u.at(t))
	if st.x.Less(d.k) {
		return false
	}
	st.x = st.x.Sub(d.k)
	return true
}

func (d *demand) send(sim *engine.Sim, now engine.Time, f func()) {
	d.res.Messages++
	if d.s.Sync.Loss > 0 && d.loss.Float64() < d.s.Sync.Loss {
		d.res.Lost++
		return
	}
	dl := d.s.Sync.Delay.Draw(d.delay)
	if dl == 0 {
		f()
		return
	}
	d.cb.at(sim, addSat(now, dl), func(engine.Time) { f() })
}

// tick ends an estimate interval: reports, then the coordinator's pushes.
func (d *demand) tick(sim *engine.Sim, now engine.Time) {
	e := d.s.Demand.EstimateInterval.Seconds()
	a := d.s.Demand.Smoothing
	for _, st := range d.order {
		st.est = a*float64(st.count)/e + (1-a)*st.est
		st.count = 0
	}
	switch d.s.Demand.Exchange {
	case ExchangeAll:
		d.exchangeAll(sim, now)
	case ExchangeGossip:
		d.exchangeGossip(sim, now)
	default:
		d.exchangeCoordinator(sim, now)
	}
	if d.busy {
		d.busy = false
		d.cb.at(sim, now+d.s.Demand.EstimateInterval, func(now engine.Time) { d.tick(sim, now) })
	} else {
		d.ticking = false
	}
}

// dropProbability returns max(0, 1 - R/D).
func (d *demand) dropProbability(total float64) float64 {
	if r := d.s.Bucket.Rate.Float64(); total > r {
		return 1 - r/total
	}
	return 0
}

func sum(xs []float64) float64 {
	t := 0.0
	for _, x := range xs {
		t += x
	}
	return t
}

// setShare gives st the share s (of ShareQuantum) from instant t: tokens
// accrued so far at the old share are kept, up to the new burst; jobs
// waiting that are due by t leave at the old share, the others wait at
// the new one.
func (d *demand) setShare(sim *engine.Sim, st *demandNode, s int64, t engine.Time) {
	d.settle(st, d.u.at(t))
	st.share = s
	if c := d.cap(s); c.Less(st.x) {
		st.x = c
	}
	d.schedule(sim, st)
}

// enqueue offers job j to st's bucket, shaping: it leaves at once if the
// bucket holds a whole token and no job waits, and else waits in order
// for its token.
func (d *demand) enqueue(sim *engine.Sim, st *demandNode, j systems.Job) {
	t := d.u.at(j.T)
	d.settle(st, t)
	st.x = st.x.Sub(d.k)
	if len(st.waiting) == 0 && st.x.Sign() >= 0 {
		d.res.admit(st.node, j, 0, exact.I128(0))
		return
	}
	st.waiting = append(st.waiting, j)
	if len(st.waiting) == 1 {
		d.schedule(sim, st)
	}
}

// due returns the instant (units) at which the first waiting job's token
// is whole at the current share, the first of the grid at or after it,
// and false if none waits or the share is 0. The i-th waiting job (from
// 0) owes the token that brings x + (n - 1 - i)·K back to 0, n jobs
// waiting.
func (d *demand) due(st *demandNode) (exact.Int128, bool) {
	n := len(st.waiting)
	if n == 0 {
		return exact.Int128{}, false
	}
	owed, _ := d.k.Mul64OK(int64(n - 1))
	need := st.x.Add(owed).Neg()
	if need.Sign() <= 0 {
		return st.last, true
	}
	r := d.refill(d.shareOf(st))
	if r.Sign() == 0 {
		return exact.Int128{}, false
	}
	q, rem := need.DivMod(r)
	if rem.Sign() > 0 {
		q = q.Add64(1)
	}
	return st.last.Add(q), true
}

// settle lets the waiting jobs due by instant t (units) leave, each at its
// own instant, and brings st's tokens to t.
func (d *demand) settle(st *demandNode, t exact.Int128) {
	for {
		at, ok := d.due(st)
		if !ok || t.Less(at) {
			break
		}
		d.advance(st, at)
		j := st.waiting[0]
		st.waiting = st.waiting[1:]
		d.res.admit(st.node, j, 0, at.Sub(d.u.at(j.T)))
	}
	if len(st.waiting) == 0 {
		st.waiting = nil
	}
	d.advance(st, t)
}

// schedule sets the event at which st's first waiting job leaves (at the
// nanosecond its instant rounds up to), replacing any earlier one.
func (d *demand) schedule(sim *engine.Sim, st *demandNode) {
	st.gen++
	at, ok := d.due(st)
	if !ok {
		return
	}
	gen := st.gen
	d.cb.at(sim, engine.Time(at.CeilDiv(d.u.scale).Int64()), func(now engine.Time) {
		if st.gen != gen {
			return
		}
		d.settle(st, d.u.at(now))
		d.schedule(sim, st)
	})
}

// finish counts rejected the jobs still waiting at the end of the run: at
// a node whose share is 0, their token never comes.
func (d *demand) finish() {
	for _, st := range d.order {
		for _, j := range st.waiting {
			d.res.reject(st.node, j)
		}
		st.waiting = nil
	}
}

// quantize returns integer shares of ShareQuantum proportional to ws
// (total their sum, > 0), adding to ShareQuantum exactly: each gets the
// floor of its exact share, and the units left over go to the largest
// remainders (ties to the lower index).
func quantize(ws []float64, total float64) []int64 {
	out := make([]int64, len(ws))
	rem := make([]float64, len(ws))
	left := int64(ShareQuantum)
	for i, w := range ws {
		q := w / total * ShareQuantum
		f := math.Floor(q)
		out[i], rem[i] = int64(f), q-f
		left -= int64(f)
	}
	idx := make([]int, len(ws))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case rem[a] > rem[b]:
			return -1
		case rem[a] < rem[b]:
			return 1
		}
		return 0
	})
	for i := 0; left > 0 && len(idx) > 0; i = (i + 1) % len(idx) {
		out[idx[i]]++
		left--
	}
	return out
}
