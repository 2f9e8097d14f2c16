package drl

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/systems"
)

// Result is what one design did with a run's jobs.
type Result struct {
	Design   string
	Jobs     int64 // jobs offered
	Admitted int64 // jobs admitted, at once or after a delay
	Rejected int64
	// Fallback counts the jobs a node decided without the store (sent
	// during an outage); Messages the messages sent (store requests,
	// batches of hits, broadcasts, each copy counted); Lost those lost.
	Fallback, Messages, Lost int64
	// Delays are the admitted jobs' delays (network time plus bucket wait)
	// that are not 0, seconds, in order of decision, and ZeroDelays the
	// number of those that are; TotalDelay is their exact sum in units of
	// 1/Scale ns.
	Delays     []float64
	ZeroDelays int64
	TotalDelay exact.Int128
	Scale      int64
	// Departures are, per key, the instants (ns, rounded up) at which its
	// admitted jobs pass, in order of decision (not sorted), kept only
	// with Spec.KeepDepartures: 8 bytes per admitted job. Without them
	// the arrival curve and the time over R are measured as the run goes,
	// in memory proportional to the active keys (see Summarize).
	Departures map[uint64][]engine.Time
	// PerNode and PerKey count each node's and each key's decisions.
	PerNode []Count
	PerKey  map[uint64]*Count
	// Admits has bit i set when job i (in arrival order) was admitted: an
	// eighth of a byte per job, to compare designs job by job.
	Admits []uint64
	// First and Last are the first and last arrival instants, ns.
	First, Last engine.Time
	// Staleness (sync) is the sum, over the decisions, of the age of the
	// owner's state each was made with, seconds; Stale the decisions.
	Staleness float64
	Stale     int64
	// Theorem2 is the outcome of the check of Theorem 2 (see Theorem2NA).
	Theorem2 Theorem2

	streams   *streams // the arrival curves measured as the run goes
	streamErr error
	online    *Online // told every decision, when driven online
}

func (r *Result) mark(id int64) {
	for int64(len(r.Admits))*64 <= id {
		r.Admits = append(r.Admits, 0)
	}
	r.Admits[id/64] |= 1 << (id % 64)
}

// AdmittedJob reports whether job id (in arrival order) was admitted.
func (r *Result) AdmittedJob(id int64) bool {
	return id/64 < int64(len(r.Admits)) && r.Admits[id/64]&(1<<(id%64)) != 0
}

// Compare counts the jobs r admitted that ref rejected (over) and those r
// rejected that ref admitted (under), job by job; both must have run the
// same jobs.
func Compare(r, ref *Result) (over, under int64) {
	n := max(len(r.Admits), len(ref.Admits))
	for i := range n {
		var a, b uint64
		if i < len(r.Admits) {
			a = r.Admits[i]
		}
		if i < len(ref.Admits) {
			b = ref.Admits[i]
		}
		over += int64(bits.OnesCount64(a &^ b))
		under += int64(bits.OnesCount64(b &^ a))
	}
	return over, under
}

func (r *Result) stale(age engine.Time) {
	r.Staleness += age.Seconds()
	r.Stale++
}

// Rate returns the admitted jobs per second in consecutive bins of bin ns
// from First, by departure instant (a job passing in [First + i·bin,
// First + (i+1)·bin) counts in bin i; those passing after Last count in
// the last bin), and the start of each bin in seconds. Floats, for
// figures. It needs the departures (Spec.KeepDepartures): without them
// every bin is 0.
func (r *Result) Rate(bin engine.Time) (x, y []float64) {
	if bin <= 0 || r.Jobs == 0 {
		return nil, nil
	}
	n := int((r.Last-r.First)/bin) + 1
	counts := make([]int64, n)
	for _, ds := range r.Departures {
		for _, d := range ds {
			i := int(max(0, min(int64(n-1), int64((d-r.First)/bin))))
			counts[i]++
		}
	}
	x, y = make([]float64, n), make([]float64, n)
	for i, c := range counts {
		x[i] = (r.First + engine.Time(i)*bin).Seconds()
		y[i] = float64(c) / bin.Seconds()
	}
	return x, y
}

// Count is the decisions of one node or one key.
type Count struct {
	Admitted int64 `json:"admitted"`
	Rejected int64 `json:"rejected"`
}

func (r *Result) count(node int, key uint64, admitted bool) {
	for len(r.PerNode) <= node {
		r.PerNode = append(r.PerNode, Count{})
	}
	if r.PerKey == nil {
		r.PerKey = map[uint64]*Count{}
	}
	c := r.PerKey[key]
	if c == nil {
		c = &Count{}
		r.PerKey[key] = c
	}
	if admitted {
		r.PerNode[node].Admitted++
		c.Admitted++
	} else {
		r.PerNode[node].Rejected++
		c.Rejected++
	}
}

// record keeps a decision.
func (r *Result) admit(node int, j systems.Job, extra engine.Time, wait exact.Int128) {
	key, t := j.Key, j.T
	r.count(node, key, true)
	r.mark(j.ID)
	r.Admitted++
	tot := exact.Mul64(int64(extra), r.Scale).Add(wait)
	if tot.Sign() == 0 {
		r.ZeroDelays++
	} else {
		r.TotalDelay = r.TotalDelay.Add(tot)
		r.Delays = append(r.Delays, tot.Float64()/float64(r.Scale)/1e9)
	}
	if r.online != nil {
		r.online.admitted(j, tot)
	}
	x := t + extra + engine.Time(wait.CeilDiv(r.Scale).Int64())
	if r.streams != nil {
		if err := r.streams.add(key, x); err != nil && r.streamErr == nil {
			r.streamErr = err
		}
		return
	}
	if r.Departures == nil {
		r.Departures = map[uint64][]engine.Time{}
	}
	r.Departures[key] = append(r.Departures[key], x)
}

func (r *Result) reject(node int, j systems.Job) { r.rejectAfter(node, j, 0) }

// rejectAfter keeps a rejection that the job's node learns back ns after
// the instant of the decision (the rest of a round trip to the store).
func (r *Result) rejectAfter(node int, j systems.Job, back engine.Time) {
	r.rejectHint(node, j, back, 0)
}

// rejectHint is rejectAfter with the retry hint the deciding limiter gave
// (buckets.Decision.RetryAfter; 0 for none), passed on to an online
// client.
func (r *Result) rejectHint(node int, j systems.Job, back, hint engine.Time) {
	r.count(node, j.Key, false)
	r.Rejected++
	if r.online != nil {
		r.online.rejected(j, back, hint)
	}
}

// Jain returns Jain's fairness index of the admitted fractions
// x_i = admitted/(admitted + rejected) of the counts with a decision,
//
//	J = (Σ x_i)² / (n·Σ x_i²)
//
// 1 when every node (key) sees the same fraction admitted, 1/n when one
// alone has any admitted; 1 for no count (R. Jain, D. Chiu and W. Hawe,
// "A quantitative measure of fairness and discrimination for resource
// allocation in shared computer systems", DEC-TR-301, 1984).
func Jain(cs []Count) float64 {
	var s, s2 float64
	n := 0
	for _, c := range cs {
		if c.Admitted+c.Rejected == 0 {
			continue
		}
		x := float64(c.Admitted) / float64(c.Admitted+c.Rejected)
		s += x
		s2 += x * x
		n++
	}
	if n == 0 || s2 == 0 {
		return 1
	}
	return s * s / (float64(n) * s2)
}

// design is one DRL design driven by Run: offer is called for each job in
// arrival order, after every event due at or before j.T has run on sim.
type design interface {
	offer(sim *engine.Sim, j systems.Job) error
}

// Run offers the jobs of proc (at most max, 0: all) to the design of s and
// returns what it did. Events (round trips, timers, messages) run on an
// engine.Sim; events due at an arrival's instant run before it. It returns
// an error wrapping ErrSpec for an invalid s, the error of proc, or
// ctx.Err() (checked every 4096 jobs).
func Run(ctx context.Context, s Spec, proc arrivals.Process, max int64) (*Result, error) {
	if origin, ok, p := arrivals.PeekOrigin(proc); ok {
		s.Origin, proc = origin, p
	} else {
		proc = p
	}
	d, res, err := start(s)
	if err != nil {
		return nil, err
	}
	if why := Theorem2NA(s); why != "" {
		res.Theorem2 = Theorem2{NA: why}
	} else if err := d.(*static).check(); err != nil {
		return nil, err
	}
	sim := engine.NewSim()
	for max == 0 || res.Jobs < max {
		if res.Jobs%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		a, err := proc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		sim.RunUntil(a.T)
		if res.Jobs == 0 {
			res.First = a.T
			if res.streams != nil {
				res.streams.first = a.T
			}
		}
		if res.streams != nil {
			res.streams.advance(a.T) // every event before a.T has run
		}
		res.Last = a.T
		j := jobOf(res.Jobs, a)
		res.Jobs++
		if err := d.offer(sim, j); err != nil {
			return nil, &systems.JobError{ID: j.ID, Err: err}
		}
	}
	sim.Run()
	if f, ok := d.(interface{ finish() }); ok {
		f.finish()
	}
	if res.streams != nil {
		res.streams.finish(res.Last)
		if res.streamErr != nil {
			return nil, res.streamErr
		}
	}
	if st, ok := d.(*static); ok && st.chk != nil {
		res.Theorem2 = st.chk.result()
	}
	return res, nil
}

func newDesign(s Spec, u units, res *Result) (design, error) {
	switch s.Design {
	case "one":
		return &one{s: s, u: u, res: res, keys: map[uint64]*bucketState{}}, nil
	case "static":
		return newStatic(s, u, res)
	case "store":
		return newStore(s, u, res)
	case "sync":
		if s.Algorithm != SyncIdeal {
			return newGubernator(s, u, res)
		}
		return newSync(s, u, res)
	case "lease":
		if s.LeaseSize == 0 {
			b, _ := s.Bucket.Burst.Quo(exact.Int(int64(s.Nodes)))
			s.LeaseSize = max(1, b.Floor().Int64())
		}
		return newLease(s, u, res)
	case "grd", "fps":
		return newDemand(s, u, res, s.Design == "fps")
	}
	return nil, fmt.Errorf("drl: design %q: %w", s.Design, ErrSpec)
}

// one is the one bucket (R, B) per key: the lower bound of every design.
type one struct {
	s    Spec
	u    units
	res  *Result
	keys map[uint64]*bucketState
}

func (o *one) offer(_ *engine.Sim, j systems.Job) error {
	t := o.u.at(j.T)
	b := o.keys[j.Key]
	if b == nil {
		b = &bucketState{f: t}
		o.keys[j.Key] = b
	}
	if w, ok := b.decide(t, o.u.tau, o.u.beta, o.s.Police); ok {
		o.res.admit(0, j, 0, w)
	} else {
		o.res.reject(0, j)
	}
	return nil
}

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
	// lims holds the node limiters per (node, key) when Spec.NodeLimiter
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
	f := &fleet{name: s.Dispatch, src: rand.NewPCG(s.Seed, systems.StreamDispatch), subs: map[nodeKey]*bucketState{}, newLim: s.NodeLimiter, scale: u.scale}
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
// limiter of the key (Spec.NodeLimiter), and returns the wait in units;
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
			panic("drl: a node limiter answered Queue: Spec.NodeLimiter must decide at arrival (every profile does)")
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

// static is the static split: N nodes, each (R/N, B/N) per key, with
// re-splits at the scale events.
type static struct {
	s     Spec
	u     units
	res   *Result
	f     *fleet
	scale []ScaleEvent
	chk   *checker // the check of Theorem 2, or nil
}

// check attaches the check of Theorem 2: the one bucket (R, B) of each
// key against its sub-buckets (R/N, B/N).
func (st *static) check() error {
	n := exact.Int(int64(st.s.Nodes))
	r, err := st.s.Bucket.Rate.Quo(n)
	if err != nil {
		return err
	}
	b, err := st.s.Bucket.Burst.Quo(n)
	if err != nil {
		return err
	}
	st.chk = newChecker(st.s.Bucket, buckets.Params{Rate: r, Burst: b}, st.u.scale)
	return nil
}

func newStatic(s Spec, u units, res *Result) (*static, error) {
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	return &static{s: s, u: u, res: res, f: f, scale: s.Scale}, nil
}

func (st *static) offer(_ *engine.Sim, j systems.Job) error {
	for len(st.scale) > 0 && st.scale[0].At <= j.T {
		if err := st.f.resize(st.scale[0].Nodes, st.u); err != nil {
			return err
		}
		st.scale = st.scale[1:]
	}
	l, err := st.f.dispatch(j)
	if err != nil {
		return err
	}
	t := st.u.at(j.T)
	if w, ok, hint := st.f.local(l, j, t, st.u, st.s.Police); ok {
		st.res.admit(l, j, 0, w)
		if st.chk != nil {
			return st.chk.offer(l, j, w)
		}
	} else {
		st.res.rejectHint(l, j, 0, hint)
	}
	return nil
}

// Summary is a Result's figures, in seconds and jobs.
type Summary struct {
	Design   string  `json:"design"`
	Jobs     int64   `json:"jobs"`
	Admitted int64   `json:"admitted"`
	Rejected int64   `json:"rejected"`
	Fallback int64   `json:"fallback_jobs"`
	Messages int64   `json:"messages"`
	Lost     int64   `json:"lost_messages"`
	Mean     float64 `json:"mean_delay_s"`
	P99      float64 `json:"p99_delay_s"` // nearest rank, exact up to the final rounding
	Max      float64 `json:"max_delay_s"`
	Total    float64 `json:"total_delay_s"`
	// Overshoot is the supremum, over every interval length d >= 0 and
	// every key, of α*(d)/(B + R·d), α*(d) the most of the key's admitted
	// jobs in a closed interval [s, s + d]: exact (netcalc.Overshoot, a
	// maximum over the pairs of admitted instants), rounded to float64
	// here and given exactly in OvershootExact. Above 1 the design broke
	// the promise. OverD, OverJobs, OverFrom and OverTo are the interval
	// where it is reached (the first key in key order on ties).
	Overshoot      float64 `json:"worst_overshoot"`
	OvershootExact string  `json:"worst_overshoot_exact"`  // a fraction, e.g. "600/599"
	OverD          float64 `json:"worst_overshoot_d_s"`    // the length d where it is reached, s
	OverJobs       int     `json:"worst_overshoot_jobs"`   // α*(d) there
	OverFrom       float64 `json:"worst_overshoot_from_s"` // the interval reaching it, s
	OverTo         float64 `json:"worst_overshoot_to_s"`
	// Excess is the supremum over d and keys of α*(d) − (B + R·d), jobs:
	// how many jobs beyond the promise the worst interval held, exact
	// (ExcessExact) and rounded here; above 0 exactly when Overshoot is
	// above 1 and ShaperDelayed above 0. −B when nothing was admitted.
	Excess      float64 `json:"promise_excess_jobs"`
	ExcessExact string  `json:"promise_excess_exact"`
	ExcessD     float64 `json:"promise_excess_d_s"`         // the length d where it is reached, s
	ExcessJobs  int     `json:"promise_excess_window_jobs"` // α*(d) there
	ExcessFrom  float64 `json:"promise_excess_from_s"`      // the interval reaching it, s
	ExcessTo    float64 `json:"promise_excess_to_s"`
	// Sampled is the largest α*(d)/(B + R·d) at the sampled lengths only
	// (Durations, or the lengths given to Summarize): a point of the
	// arrival curve for figures, which can miss the worst length and read
	// below 1 when the promise is broken; never the verdict.
	Sampled float64 `json:"sampled_overshoot"`
	// ShaperDelayed is the number of admitted jobs, over the keys, that a
	// shaping bucket (R, B), full at the start and fed a key's admitted
	// stream, would delay, and ShaperMaxDelay the longest of those delays,
	// s: both 0 exactly when Excess <= 0. It counts every later job of a
	// busy period that began with an excess, so it is not a count of jobs
	// beyond the promise (Excess is).
	ShaperDelayed  int64   `json:"jobs_delayed_by_shaper"`
	ShaperMaxDelay float64 `json:"shaper_max_delay_s"`
	Keys           int     `json:"keys"` // keys with an admitted job
	// JainNodes and JainKeys are Jain's fairness index of the admitted
	// fractions across nodes and across keys (see Jain).
	JainNodes float64 `json:"jain_nodes"`
	JainKeys  float64 `json:"jain_keys"`
	// Staleness is the mean age of the owner's state the sync design's
	// decisions were made with, s (0 for the other designs).
	Staleness float64 `json:"mean_staleness_s"`
	// OverRate is the largest fraction, over the keys, of the time between
	// the first and last arrival during which the key's admitted rate over
	// the last OverRateWindow seconds exceeded R.
	OverRate       float64 `json:"over_rate_fraction"`
	OverRateWindow float64 `json:"over_rate_window_s"`
	// OverOne and UnderOne are the jobs the design admitted that the one
	// bucket rejected, and those it rejected that the one bucket admitted,
	// job by job (see Compare); set by the caller that ran both.
	OverOne  int64 `json:"jobs_admitted_over_one"`
	UnderOne int64 `json:"jobs_rejected_under_one"`
	// Theorem2 is the check of Theorem 2 against the one bucket, key by
	// key (see Theorem2NA): "held", "violated at t = ... s, key ..." or
	// "n/a (why)"; Theorem2Violations the instants at which it or Lemma 1
	// failed.
	Theorem2           string `json:"theorem2"`
	Theorem2Violations uint64 `json:"theorem2_violations"`
}

// Durations returns the interval lengths at which the overshoot is
// measured for the promise p: 0 and W·2^(k/4) for k = -28, ..., 8, W = B/R
// the burst's time, rounded to the nanosecond (duplicates dropped).
func Durations(p buckets.Params) []engine.Time {
	w := p.Burst.Float64() / p.Rate.Float64() * 1e9
	ds := []engine.Time{0}
	for k := -28; k <= 8; k++ {
		d := math.Round(w * math.Pow(2, float64(k)/4))
		if d >= 1 && d < math.MaxInt64/4 {
			ds = append(ds, engine.Time(d))
		}
	}
	return slices.Compact(ds)
}

// Summarize computes r's figures against the promise p at the lengths ds
// (nil: Durations(p)), and the share of time a key's admitted rate over
// the last w ns exceeds R (w > 0; 0 leaves it out). It sorts r's delays
// and each key's departures in place. A run without its departures
// (Spec.KeepDepartures false) measured the arrival curves and the time
// over R as it went, at Durations(Spec.Bucket) and Spec.RateWindow, with
// the same results: then ds must be nil, p the run's Spec.Bucket and w
// Spec.RateWindow, or it returns an error wrapping ErrSpec.
func Summarize(r *Result, p buckets.Params, ds []engine.Time, w engine.Time) (Summary, error) {
	s := Summary{Design: r.Design, Jobs: r.Jobs, Admitted: r.Admitted, Rejected: r.Rejected, Fallback: r.Fallback, Messages: r.Messages, Lost: r.Lost,
		Theorem2: r.Theorem2.String(), Theorem2Violations: r.Theorem2.Violations + r.Theorem2.LemmaViolations}
	if n := r.ZeroDelays + int64(len(r.Delays)); n > 0 {
		slices.Sort(r.Delays)
		s.Total = r.TotalDelay.Float64() / float64(r.Scale) / 1e9
		s.Mean = s.Total / float64(n)
		if rank := (99*n+99)/100 - 1; rank >= r.ZeroDelays { // nearest rank, zeros first
			s.P99 = r.Delays[rank-r.ZeroDelays]
		}
		if len(r.Delays) > 0 {
			s.Max = r.Delays[len(r.Delays)-1]
		}
	}
	if r.Stale > 0 {
		s.Staleness = r.Staleness / float64(r.Stale)
	}
	s.JainNodes = Jain(r.PerNode)
	keys := slices.Sorted(maps.Keys(r.PerKey)) // a fixed order: float sums depend on it
	cs := make([]Count, len(keys))
	for i, k := range keys {
		cs[i] = *r.PerKey[k]
	}
	s.JainKeys = Jain(cs)
	// Measure each key's admitted stream against the promise, keys in
	// increasing order: the sampled points, then the exact overshoot.
	measure := func(pts []buckets.CurvePoint) {
		s.Keys++
		for _, pt := range pts {
			s.Sampled = max(s.Sampled, float64(pt.Jobs)/p.Promise(pt.D))
		}
	}
	s.Excess = -p.Burst.Float64() // nothing admitted: α* = 0 at every d
	s.ExcessExact = p.Burst.Neg().Big().RatString()
	s.OvershootExact = "0"
	var worst, most *netcalc.Overshoot
	if st := r.streams; st != nil && r.Departures == nil {
		if ds != nil || w != st.w {
			return s, fmt.Errorf("drl: the run measured its arrival curves at Durations and a rate window of %v s; other lengths or windows need Spec.KeepDepartures: %w", st.w.Seconds(), ErrSpec)
		}
		for _, k := range slices.Sorted(maps.Keys(st.keys)) {
			c := st.keys[k]
			pts, err := c.points(st.ds)
			if err != nil {
				return s, err
			}
			measure(pts)
			if err := s.addPromise(c.promise, &worst, &most); err != nil {
				return s, err
			}
			if w > 0 && r.Last > r.First {
				s.OverRate = max(s.OverRate, float64(c.total)/float64(r.Last-r.First))
			}
		}
		s.OverRateWindow = w.Seconds()
		return s, nil
	}
	if ds == nil {
		ds = Durations(p)
	}
	for _, k := range slices.Sorted(maps.Keys(r.Departures)) {
		xs := r.Departures[k]
		slices.Sort(xs)
		pts, err := buckets.MeasureArrivalCurve(xs, ds)
		if err != nil {
			return s, err
		}
		measure(pts)
		pc := newPromiseCheck(p)
		for _, x := range xs {
			pc.add(x)
		}
		if err := s.addPromise(pc, &worst, &most); err != nil {
			return s, err
		}
		if w > 0 && r.Last > r.First {
			s.OverRate = max(s.OverRate, overRate(xs, p.Rate, w, r.First, r.Last))
		}
	}
	s.OverRateWindow = w.Seconds()
	return s, nil
}

// addPromise adds a key's promise check to the summary: its shaper
// count, and its exact overshoot where it is the worst ratio (worst) or
// the largest excess (most) so far.
func (s *Summary) addPromise(c *promiseCheck, worst, most **netcalc.Overshoot) error {
	if c.err != nil {
		return c.err
	}
	s.ShaperDelayed += c.jobs
	s.ShaperMaxDelay = max(s.ShaperMaxDelay, c.maxDelay())
	o := c.meter.Result()
	if o.Jobs == 0 {
		return nil
	}
	if *worst == nil || o.Worse(**worst) {
		*worst = &o
		s.Overshoot, s.OvershootExact = o.RatioFloat64(), o.Ratio.RatString()
		w := o.RatioAt
		s.OverD, s.OverJobs, s.OverFrom, s.OverTo = w.D().Seconds(), w.Jobs, w.From.Seconds(), w.To.Seconds()
	}
	if *most == nil || o.Excess.Cmp((*most).Excess) > 0 {
		*most = &o
		s.Excess, s.ExcessExact = o.ExcessFloat64(), o.Excess.RatString()
		w := o.ExcessAt
		s.ExcessD, s.ExcessJobs, s.ExcessFrom, s.ExcessTo = w.D().Seconds(), w.Jobs, w.From.Seconds(), w.To.Seconds()
	}
	return nil
}

// overRate returns the share of [from, to] during which more than R·w
// of the instants xs (ns, sorted) lie in the window (t - w, t]: the time
// the admitted rate over the last w ns exceeds R. The count changes at
// each x (+1) and at each x + w (-1); it is compared with R·w exactly,
// n·10^9·den(R) > num(R)·w.
func overRate(xs []engine.Time, rate exact.Rat, w, from, to engine.Time) float64 {
	limit, okL := rate.Num().Mul64OK(int64(w))
	over := func(n int64) bool {
		c, ok := exact.Mul64(n, 1e9).Mul64OK(rate.Den())
		switch {
		case !okL: // R·w beyond 127 bits: never exceeded
			return false
		case !ok:
			return true
		}
		return limit.Less(c)
	}
	var n int64
	var total engine.Time
	t := from
	i, j := 0, 0 // next +1 at xs[i], next -1 at xs[j] + w
	for t < to {
		next := to
		if i < len(xs) && xs[i] < next {
			next = xs[i]
		}
		if j < len(xs) && xs[j]+w < next {
			next = xs[j] + w
		}
		if next > t && over(n) {
			total += next - t
		}
		t = max(t, next)
		for i < len(xs) && xs[i] <= t {
			n++
			i++
		}
		for j < len(xs) && xs[j]+w <= t {
			n--
			j++
		}
		if next == to {
			break
		}
	}
	return float64(total) / float64(to-from)
}

// jobOf returns the job of arrival a, numbered id.
func jobOf(id int64, a arrivals.Arrival) systems.Job {
	return systems.Job{ID: id, T: a.T, Key: a.Key, Hash: a.Hash, Sub: a.Sub}
}

// start validates s and builds its design and the result it fills (the
// arrival curves measured as the run goes unless s keeps the departures),
// for Run and NewOnline.
func start(s Spec) (design, *Result, error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	u, err := newUnits(s.Bucket)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Design: s.Design, Scale: u.scale}
	if !s.KeepDepartures {
		res.streams = newStreams(s.Bucket, s.RateWindow)
	}
	d, err := newDesign(s, u, res)
	if err != nil {
		return nil, nil, err
	}
	return d, res, nil
}
