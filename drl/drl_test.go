package drl

import (
	"context"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

const sec = engine.Time(1e9)

// list is a Process over fixed arrivals.
type list struct {
	as []arrivals.Arrival
	i  int
}

func (l *list) Next() (arrivals.Arrival, error) {
	if l.i == len(l.as) {
		return arrivals.Arrival{}, io.EOF
	}
	l.i++
	return l.as[l.i-1], nil
}

// at returns unkeyed arrivals at the instants ts.
func at(ts ...engine.Time) *list {
	l := &list{}
	for _, t := range ts {
		l.as = append(l.as, arrivals.Arrival{T: t, Sub: -1})
	}
	return l
}

// zipfJobs returns n Poisson arrivals at rate jobs/s with Zipf keys over
// keys ranks, all from fixed seeds, collected so they can be replayed.
func zipfJobs(t *testing.T, n int, rate float64, keys uint64) []arrivals.Arrival {
	t.Helper()
	p, err := arrivals.NewPoisson(rate, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	z, err := arrivals.NewZipf(keys, 1.1, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	proc := arrivals.WithZipfKeys(p, z)
	var as []arrivals.Arrival
	for range n {
		a, err := proc.Next()
		if err != nil {
			t.Fatal(err)
		}
		as = append(as, a)
	}
	return as
}

// run runs s on as keeping the departures, and checks that the run
// without them (measuring the arrival curves as it goes) summarizes to
// the same figures, with and without a rate window.
func run(t *testing.T, s Spec, as []arrivals.Arrival) *Result {
	t.Helper()
	s.KeepDepartures = true
	r, err := Run(context.Background(), s, &list{as: as}, 0)
	if err != nil {
		t.Fatalf("%s: %v", s.Design, err)
	}
	for _, w := range []engine.Time{sec / 3, 2 * sec} {
		s.KeepDepartures, s.RateWindow = false, w
		st, err := Run(context.Background(), s, &list{as: as}, 0)
		if err != nil {
			t.Fatalf("%s, streamed: %v", s.Design, err)
		}
		kept := &Result{}
		*kept = *r
		kept.Delays = slices.Clone(r.Delays)
		kept.Departures = map[uint64][]engine.Time{}
		for k, xs := range r.Departures {
			kept.Departures[k] = slices.Clone(xs)
		}
		want, err := Summarize(kept, s.Bucket, nil, w)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Summarize(st, s.Bucket, nil, w)
		if err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Fatalf("%s, window %v s: streamed %+v, from the departures %+v", s.Design, w.Seconds(), got, want)
		}
	}
	return r
}

func params(rate, burst string) buckets.Params {
	return buckets.Params{Rate: exact.MustParse(rate), Burst: exact.MustParse(burst)}
}

// sameDecisions compares two results decision for decision: the same
// counts and the same exact delays in the same order.
func sameDecisions(t *testing.T, what string, a, b *Result) {
	t.Helper()
	if a.Admitted != b.Admitted || a.Rejected != b.Rejected {
		t.Fatalf("%s: %s admitted %d rejected %d, %s admitted %d rejected %d", what, a.Design, a.Admitted, a.Rejected, b.Design, b.Admitted, b.Rejected)
	}
	if a.TotalDelay.Cmp(b.TotalDelay) != 0 {
		t.Fatalf("%s: total delay %v != %v units", what, a.TotalDelay, b.TotalDelay)
	}
	if !slices.Equal(a.Admits, b.Admits) {
		over, under := Compare(a, b)
		t.Fatalf("%s: %s admitted %d jobs that %s rejected, and rejected %d it admitted", what, a.Design, over, b.Design, under)
	}
	if a.ZeroDelays != b.ZeroDelays || !slices.Equal(a.Delays, b.Delays) || !maps.EqualFunc(a.Departures, b.Departures, slices.Equal) {
		for k := range a.Delays {
			if a.Delays[k] != b.Delays[k] {
				t.Fatalf("%s: admitted job %d: delay %v s in %s, %v s in %s", what, k, a.Delays[k], a.Design, b.Delays[k], b.Design)
			}
		}
		t.Fatalf("%s: departures differ", what)
	}
}

// Sync with T = 0 and no delay: every hit reaches the owner and every
// broadcast every node before the next job, so each node decides with the
// true state: the one bucket, decision for decision.
func TestSyncZeroPeriodIsOneBucket(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, police := range []bool{false, true} {
		for _, disp := range []string{"rr", "random", "hash"} {
			base := Spec{Bucket: params("5", "8"), Nodes: 4, Police: police, Dispatch: disp, Seed: 3}
			o := base
			o.Design = "one"
			s := base
			s.Design, s.Sync.Period, s.Sync.BatchLimit = "reconcile", 0, 1000
			one, syn := run(t, o, as), run(t, s, as)
			sameDecisions(t, disp, syn, one)
			if syn.Messages == 0 {
				t.Fatalf("%s: no message sent", disp)
			}
		}
	}
}

// Sync with T = ∞ (and no batch limit), share mode: no message is ever
// sent, each node decides with its sub-bucket (R/N, B/N): the static
// split, job for job.
func TestSyncInfinitePeriodIsStaticSplit(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, police := range []bool{false, true} {
		for _, disp := range []string{"rr", "random", "hash"} {
			base := Spec{Bucket: params("5", "8"), Nodes: 4, Police: police, Dispatch: disp, Seed: 3}
			st := base
			st.Design = "static"
			s := base
			s.Design, s.Sync.Period, s.Reconcile.Local = "reconcile", engine.Forever, LocalShare
			sameDecisions(t, disp, run(t, s, as), run(t, st, as))
		}
	}
}

// A central store with zero round trip and no outage is the one bucket.
func TestStoreZeroRTTIsOneBucket(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, police := range []bool{false, true} {
		base := Spec{Bucket: params("5", "8"), Nodes: 4, Police: police, Dispatch: "rr", Seed: 3}
		o := base
		o.Design = "one"
		s := base
		s.Design = "store"
		sameDecisions(t, "store", run(t, s, as), run(t, o, as))
	}
}

// Fail-open, fail-closed and local fallback across an outage [1 s, 3 s),
// worked by hand. Promise (R, B) = (1, 2), policing, N = 2 round-robin.
//
//	t = 0: three jobs reach the store: it admits 2 (a full bucket of 2), rejects 1.
//	t = 1, 1, 1, 2: the store is down.
//	  open:   all 4 admitted.
//	  closed: all 4 rejected.
//	  local:  round-robin has sent jobs 0, 1, 2 to nodes 0, 1, 0, so jobs
//	          3, 4, 5, 6 go to nodes 1, 0, 1, 0; each sub-bucket (1/2, 1)
//	          starts full: job 3 (node 1) and job 4 (node 0) admitted,
//	          job 5 (node 1, no token) rejected, job 6 (node 0 at t = 2,
//	          0.5 token) rejected: 2 admitted, 2 rejected.
//	t = 3: the store is back; its bucket emptied at 0 and refilled to
//	       min(2, 3·1) = 2 tokens: of three jobs, 2 admitted, 1 rejected.
//
// The one bucket admits jobs 0, 1 (t = 0), 3 (1 token at t = 1), 6 (1
// token at t = 2) and 7 (1 token at t = 3). Job by job against it:
// open admits 4, 5 and 8 over it; closed admits 8 over it and refuses 3
// and 6; local (0, 1, 3, 4, 7, 8) admits 4 and 8 over it and refuses 6.
func TestOutageFailModes(t *testing.T) {
	ts := []engine.Time{0, 0, 0, sec, sec, sec, 2 * sec, 3 * sec, 3 * sec, 3 * sec}
	one := run(t, Spec{Design: "one", Bucket: params("1", "2"), Nodes: 1, Police: true, Dispatch: "rr"}, at(ts...).as)
	for _, c := range []struct {
		fail               Fail
		admitted, rejected int64
		overshoot          float64
		over, under        int64
	}{
		// open: departures 0,0,1,1,1,2,3,3; against 2 + d: α*(0) = 3 → 3/2,
		// α*(1 s) = 5 in [0, 1] → 5/3, the worst, α*(2 s) = 6 → 6/4,
		// α*(3 s) = 8 → 8/5.
		{FailOpen, 8, 2, 5.0 / 3, 3, 0},
		// closed: departures 0,0,3,3: α*(3 s) = 4 → 4/5; α*(0) = 2 → 1.
		{FailClosed, 4, 6, 1, 1, 2},
		// local: departures 0,0,1,1,3,3: α*(1 s) = 4 in [0, 1] → 4/3, the
		// worst (α*(0) = 2 → 1, α*(2 s) = 4 → 1, α*(3 s) = 6 → 6/5).
		{FailLocal, 6, 4, 4.0 / 3, 2, 1},
	} {
		s := Spec{Design: "store", Bucket: params("1", "2"), Nodes: 2, Police: true, Dispatch: "rr",
			Store: StoreParams{Outages: []Interval{{From: sec, To: 3 * sec}}, Fail: c.fail},
		}
		r := run(t, s, at(ts...).as)
		if r.Admitted != c.admitted || r.Rejected != c.rejected || r.Fallback != 4 {
			t.Errorf("fail %v: admitted %d rejected %d fallback %d, want %d, %d, 4", c.fail, r.Admitted, r.Rejected, r.Fallback, c.admitted, c.rejected)
		}
		if over, under := Compare(r, one); over != c.over || under != c.under {
			t.Errorf("fail %v: against the one bucket %d over, %d under; want %d, %d", c.fail, over, under, c.over, c.under)
		}
		sum, err := Summarize(r, s.Bucket, []engine.Time{0, sec, 2 * sec, 3 * sec}, 0)
		if err != nil {
			t.Fatal(err)
		}
		if sum.Overshoot != c.overshoot {
			t.Errorf("fail %v: worst overshoot %v, want %v", c.fail, sum.Overshoot, c.overshoot)
		}
	}
}

// A scale-up from 1 to 2 nodes at t = 1 s, worked by hand. Promise (2, 4),
// policing, round-robin.
//
//	t = 0: four jobs at the single node (2, 4): all admitted, the bucket
//	       empty (U = 4·0.5 = 2 s = B/R).
//	t = 1: U = 1 s, 2 tokens. The re-split into (1, 2) keeps node 0's fill
//	       level: U = 1 s of a 2 s burst, 1 token; node 1 starts full with
//	       2. Four jobs go to nodes 0, 1, 0, 1: node 0 admits one and
//	       rejects one, node 1 admits both: 3 admitted, where the one
//	       bucket, with 2 tokens, admits 2.
func TestScaleUp(t *testing.T) {
	ts := []engine.Time{0, 0, 0, 0, sec, sec, sec, sec}
	s := Spec{Design: "static", Bucket: params("2", "4"), Nodes: 1, Police: true, Dispatch: "rr",
		Static: StaticParams{Scale: []ScaleEvent{{At: sec, Nodes: 2}}},
	}
	r := run(t, s, at(ts...).as)
	if r.Admitted != 7 || r.Rejected != 1 {
		t.Errorf("scale-up: admitted %d rejected %d, want 7, 1", r.Admitted, r.Rejected)
	}
	s.Design = "one"
	if o := run(t, s, at(ts...).as); o.Admitted != 6 || o.Rejected != 2 {
		t.Errorf("one bucket: admitted %d rejected %d, want 6, 2", o.Admitted, o.Rejected)
	}
}

// Random delays and losses come from their own PCG streams: the same seed
// gives the same run, another seed another.
func TestDeterminism(t *testing.T) {
	as := zipfJobs(t, 5000, 30, 20)
	rtt, _ := ParseDelay("lognormal:2ms:0.8")
	md, _ := ParseDelay("uniform:1ms:50ms")
	for _, design := range []string{"store", "reconcile"} {
		s := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Dispatch: "random", Seed: 7,
			Store: StoreParams{RTT: rtt},
			Sync:  SyncParams{Period: 100 * engine.Time(1e6), Delay: md, Loss: 0.1},
		}
		a, b := run(t, s, as), run(t, s, as)
		sameDecisions(t, design, a, b)
		if a.Messages != b.Messages || a.Lost != b.Lost {
			t.Fatalf("%s: messages %d/%d lost %d/%d", design, a.Messages, b.Messages, a.Lost, b.Lost)
		}
		s.Seed = 8
		if c := run(t, s, as); c.TotalDelay.Cmp(a.TotalDelay) == 0 && c.Admitted == a.Admitted {
			t.Errorf("%s: seeds 7 and 8 gave the same run", design)
		}
	}
}

func TestParse(t *testing.T) {
	for s, want := range map[string]Delay{
		"2ms":               {Kind: "fixed", A: 2e6},
		"0":                 {Kind: "fixed"},
		"0.25":              {Kind: "fixed", A: 25e7},
		"uniform:1ms:3ms":   {Kind: "uniform", A: 1e6, B: 3e6},
		"lognormal:2ms:0.5": {Kind: "lognormal", A: 2e6, Sigma: 0.5},
	} {
		if got, err := ParseDelay(s); err != nil || got != want {
			t.Errorf("ParseDelay(%q) = %+v, %v; want %+v", s, got, err, want)
		}
	}
	for _, s := range []string{"", "-1ms", "uniform:3ms:1ms", "pareto:1", "lognormal:1ms:-1", "1/3"} {
		if _, err := ParseDelay(s); err == nil {
			t.Errorf("ParseDelay(%q): no error", s)
		}
	}
	if iv, err := ParseInterval("10s:12.5"); err != nil || iv != (Interval{10 * sec, 12*sec + sec/2}) {
		t.Errorf("ParseInterval = %v, %v", iv, err)
	}
	if _, err := ParseInterval("3s:1s"); err == nil {
		t.Error("ParseInterval(3s:1s): no error")
	}
}

func TestJain(t *testing.T) {
	for _, c := range []struct {
		cs   []Count
		want float64
	}{
		{nil, 1},
		{[]Count{{3, 1}, {6, 2}}, 1},              // both 3/4
		{[]Count{{1, 0}, {0, 1}}, 0.5},            // x = 1, 0: 1²/(2·1)
		{[]Count{{1, 0}, {1, 1}, {0, 0}}, 0.9},    // x = 1, 1/2 (the idle one left out): 2.25/(2·1.25)
		{[]Count{{1, 0}, {0, 5}, {0, 5}}, 1. / 3}, // one alone: 1/n
	} {
		if got := Jain(c.cs); math.Abs(got-c.want) > 1e-15 {
			t.Errorf("Jain(%v) = %v, want %v", c.cs, got, c.want)
		}
	}
}

// Every job is counted once, at one node and one key.
func TestCounts(t *testing.T) {
	as := zipfJobs(t, 3000, 30, 20)
	for _, design := range Designs {
		s := Spec{Design: design, Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "hash", Seed: 2,
			Store:  StoreParams{RTT: Delay{A: 1e6}},
			Sync:   SyncParams{Period: sec / 10},
			Demand: DemandParams{EstimateInterval: sec / 10, Smoothing: 0.5},
		}
		r := run(t, s, as)
		var n, k int64
		for _, c := range r.PerNode {
			n += c.Admitted + c.Rejected
		}
		for _, c := range r.PerKey {
			k += c.Admitted + c.Rejected
		}
		if r.Admitted+r.Rejected != 3000 || n != 3000 || k != 3000 {
			t.Errorf("%s: %d + %d decisions, %d by node, %d by key; want 3000", design, r.Admitted, r.Rejected, n, k)
		}
	}
}

// Rate bins departures by second: jobs at 0, 0, 1.5 and 2 s, bins of 1 s
// from 0: 2, 1 and 1 jobs/s.
func TestRate(t *testing.T) {
	s := Spec{Design: "one", Bucket: params("10", "10"), Nodes: 1, Dispatch: "rr"}
	r := run(t, s, at(0, 0, sec+sec/2, 2*sec).as)
	x, y := r.Rate(sec)
	if !slices.Equal(x, []float64{0, 1, 2}) || !slices.Equal(y, []float64{2, 1, 1}) {
		t.Errorf("Rate = %v, %v; want [0 1 2], [2 1 1]", x, y)
	}
}

// The age of the owner's state the reconcile design decides with grows with
// the sync period; with one node (the owner decides on the true state) it
// is 0.
func TestSyncStaleness(t *testing.T) {
	as := zipfJobs(t, 5000, 30, 5)
	mean := func(nodes int, period engine.Time) float64 {
		s := Spec{Design: "reconcile", Bucket: params("5", "8"), Nodes: nodes, Police: true, Dispatch: "rr", Sync: SyncParams{Period: period, BatchLimit: 1000}}
		sum, err := Summarize(run(t, s, as), s.Bucket, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return sum.Staleness
	}
	if m := mean(1, sec); m != 0 {
		t.Errorf("one node: staleness %v, want 0", m)
	}
	short, long := mean(4, sec/100), mean(4, sec)
	if !(0 < short && short < long) {
		t.Errorf("staleness %v s at T = 10 ms, %v s at T = 1 s; want 0 < first < second", short, long)
	}
}

// overRate by hand: R = 1 job/s, window 2 s, instants 0, 0.5, 1, 5 over
// [0, 6]: the window (t - 2, t] holds 1, 2, 3 jobs from 0, 0.5, 1; 2 from
// 2 (0 leaves), 1 from 2.5, 0 from 3, 1 from 5. More than R·w = 2 only
// during [1, 2): 1 s of 6.
func TestOverRate(t *testing.T) {
	xs := []engine.Time{0, sec / 2, sec, 5 * sec}
	if got := overRate(xs, exact.Int(1), 2*sec, 0, 6*sec); got != 1.0/6 {
		t.Errorf("overRate = %v, want 1/6", got)
	}
	// At exactly R·w it is not exceeded: 2 jobs in 2 s at R = 1.
	if got := overRate([]engine.Time{0, sec}, exact.Int(1), 2*sec, 0, 4*sec); got != 0 {
		t.Errorf("overRate at the rate = %v, want 0", got)
	}
}

// The on/off outage process: with the store up for 9 s and down for 1 s
// on average, failing closed, about a tenth of the jobs are decided
// without the store. 20000 periodic jobs over 2000 s span about n = 200
// up-down cycles; the share of time down, Σ D/Σ (U + D), has standard
// deviation about sqrt(Var(0.9·D - 0.1·U)/n)/E[U + D] =
// sqrt((0.81·1 + 0.01·81)/200)/10 ≈ 0.009, so [0.06, 0.14] is more than
// four of them.
func TestOutageProcess(t *testing.T) {
	var ts []engine.Time
	for i := range 20000 {
		ts = append(ts, engine.Time(i)*sec/10)
	}
	s := Spec{Design: "store", Bucket: params("100", "100"), Nodes: 2, Police: true, Dispatch: "rr", Seed: 4,
		Store: StoreParams{Fail: FailClosed, OutageUp: 9 * sec, OutageDown: sec},
	}
	r := run(t, s, at(ts...).as)
	if f := float64(r.Fallback) / 20000; f < 0.06 || f > 0.14 || r.Rejected != r.Fallback {
		t.Errorf("fallback share %v, %d rejected of %d fallback; want about 0.1, all rejected", f, r.Rejected, r.Fallback)
	}
	if again := run(t, s, at(ts...).as); again.Fallback != r.Fallback {
		t.Errorf("the same seed gave %d and %d fallback jobs", r.Fallback, again.Fallback)
	}
}

// A scale-down from 3 to 1 node at t = 1 s, worked by hand. Promise
// (3, 3), policing, round-robin.
//
//	t = 0: three jobs to nodes 0, 1, 2, each (1, 1): all admitted, every
//	       node empty (U = 1 s = B/R).
//	t = 1: before the event every node would hold 1 token again. The
//	       re-split into one bucket (3, 3) keeps node 0's fill level, U = 0:
//	       3 tokens; nodes 1 and 2 and their tokens are gone. Four jobs:
//	       3 admitted, 1 rejected, as the one bucket, also full again at 1 s.
func TestScaleDown(t *testing.T) {
	ts := []engine.Time{0, 0, 0, sec, sec, sec, sec}
	s := Spec{Design: "static", Bucket: params("3", "3"), Nodes: 3, Police: true, Dispatch: "rr",
		Static: StaticParams{Scale: []ScaleEvent{{At: sec, Nodes: 1}}},
	}
	r := run(t, s, at(ts...).as)
	if r.Admitted != 6 || r.Rejected != 1 || len(r.PerNode) != 3 || r.PerNode[0].Admitted != 4 {
		t.Errorf("scale-down: admitted %d rejected %d, per node %v; want 6, 1, node 0 admitting 4", r.Admitted, r.Rejected, r.PerNode)
	}
}

// The p99 by nearest rank counts the zero delays first: of 100 admitted
// jobs, rank ceil(0.99·100) = 99; with 99 zeros it is 0, with 98 zeros it
// is the smaller of the two others.
func TestP99WithZeros(t *testing.T) {
	for _, c := range []struct {
		zeros  int64
		delays []float64
		want   float64
	}{{99, []float64{5}, 0}, {98, []float64{3, 5}, 3}, {0, []float64{1}, 1}} {
		r := &Result{Admitted: c.zeros + int64(len(c.delays)), ZeroDelays: c.zeros, Delays: c.delays, Scale: 1}
		s, err := Summarize(r, params("1", "1"), nil, 0)
		if err != nil || s.P99 != c.want || s.Max != c.delays[len(c.delays)-1] {
			t.Errorf("%d zeros, %v: p99 %v, max %v (%v); want %v", c.zeros, c.delays, s.P99, s.Max, err, c.want)
		}
	}
}

// The store's local cache of keys over limit refuses jobs without a round
// trip, and each cached refusal is the store's: with no round trip the
// decisions are the one bucket's, with fewer messages.
func TestStoreCache(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	s := Spec{Design: "store", Bucket: params("5", "8"), Nodes: 4, Police: true, Dispatch: "rr", Seed: 3, Store: StoreParams{Cache: true}}
	o := s
	o.Design = "one"
	r := run(t, s, as)
	sameDecisions(t, "cache", r, run(t, o, as))
	if r.Messages >= 20000 || r.Messages < r.Admitted {
		t.Errorf("%d messages for 20000 jobs, %d admitted", r.Messages, r.Admitted)
	}
	// By hand, (1, 1), one node: job 0 admitted; job at 0.5 s refused by
	// the store (next token at 1 s), cached; job at 0.7 s refused locally;
	// job at 1 s asks again and is admitted: 3 messages.
	one := Spec{Design: "store", Bucket: params("1", "1"), Nodes: 1, Police: true, Dispatch: "rr", Store: StoreParams{Cache: true}}
	h := run(t, one, at(0, sec/2, sec*7/10, sec).as)
	if h.Admitted != 2 || h.Rejected != 2 || h.Messages != 3 {
		t.Errorf("by hand: admitted %d rejected %d messages %d; want 2, 2, 3", h.Admitted, h.Rejected, h.Messages)
	}
}

// keepDepartures returns s keeping the departures.
func keepDepartures(s Spec) Spec {
	s.KeepDepartures = true
	return s
}

// Without the departures, a key's memory is the instants of the longest
// length and the rate window, not the run: 10^5 jobs of one key, one every
// 10 ms, admitted by (100, 10) at once; the longest length is 4·B/R =
// 0.4 s and the window 1 s, so the key keeps about 140 instants (at most
// twice that between trims), not 10^5.
func TestStreamedMemory(t *testing.T) {
	ts := make([]engine.Time, 100_000)
	for i := range ts {
		ts[i] = engine.Time(i) * 10 * engine.Time(1e6)
	}
	s := Spec{Design: "one", Bucket: params("100", "10"), Nodes: 1, Dispatch: "rr", RateWindow: sec}
	r, err := Run(context.Background(), s, at(ts...), 0)
	if err != nil {
		t.Fatal(err)
	}
	c := r.streams.keys[0]
	if r.Admitted != 100_000 || len(c.buf) > 2*141 || cap(c.pending) > 1 {
		t.Errorf("%d admitted; the key keeps %d instants and %d pending", r.Admitted, len(c.buf), cap(c.pending))
	}
	sum, err := Summarize(r, s.Bucket, nil, sec)
	if err != nil {
		t.Fatal(err)
	}
	// α*(d) = floor(d/10 ms) + 1 against 10 + 100·d: k + 1 jobs in k·10 ms
	// against 10 + k, so the ratio grows with d; the sampled lengths end
	// at 0.4 s (41/50), the exact supremum is the whole run, 10^5 jobs
	// against 10 + 99999: 100000/100009. The excess is k + 1 − 10 − k = −9
	// at every length.
	if sum.Sampled != 0.82 || sum.OvershootExact != "100000/100009" || sum.Excess != -9 || sum.OverRate != 0 {
		t.Errorf("sampled %v, overshoot %v, excess %v, time over R %v; want 0.82, 100000/100009, -9 and 0", sum.Sampled, sum.OvershootExact, sum.Excess, sum.OverRate)
	}
	if _, err := Summarize(r, s.Bucket, []engine.Time{sec}, sec); err == nil {
		t.Error("Summarize at other lengths without the departures: want an error")
	}
}

// TestPromiseCheck: the exact check of α(d) <= B + R·d at every length d.
// By hand, (R, B) = (1, 2) and jobs at 0, 0, 0, 0.5 s: the third waits for
// the token of 1 s, the fourth for that of 2 s: 2 jobs over, the longest
// 1.5 s. A job every 0.9 s against (1, 10): before job i the bucket holds
// 10 − 0.1·i tokens, exactly 1 at i = 90 (a tie: it passes), 0.9 at
// i = 91, which waits 0.1 s, and job 90 + j waits 0.1·j s: of 200 jobs,
// 109 over the promise, the longest 10.9 s; the sampled lengths end at
// 4·B/R = 40 s, where α*(40 s) = 45 against 50, so the sampled overshoot
// reads 0.9 although the promise breaks at d = 81.9 s (92 jobs against
// 91.9). Exactly, k + 1 jobs in 0.9·k s score (k + 1)/(10 + 0.9·k), which
// grows with k, and k + 1 − 10 − 0.9·k = 0.1·k − 9: both are worst over
// the whole run, k = 199: 200/189.1 = 2000/1891 and 10.9 jobs at
// d = 179.1 s (the longest delay times R, as it must be).
func TestPromiseCheck(t *testing.T) {
	pc := newPromiseCheck(params("1", "2"))
	for _, x := range []engine.Time{0, 0, 0, sec / 2} {
		pc.add(x)
	}
	if pc.err != nil || pc.jobs != 2 || pc.maxDelay() != 1.5 {
		t.Errorf("by hand: %d jobs over, longest %v s (%v); want 2 and 1.5", pc.jobs, pc.maxDelay(), pc.err)
	}
	xs := make([]engine.Time, 200)
	for i := range xs {
		xs[i] = engine.Time(i) * 900 * engine.Time(1e6)
	}
	r := &Result{Admitted: 200, ZeroDelays: 200, Scale: 1, Departures: map[uint64][]engine.Time{0: xs}}
	s, err := Summarize(r, params("1", "10"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	if s.Sampled != 0.9 || s.ShaperDelayed != 109 || math.Abs(s.ShaperMaxDelay-10.9) > 1e-12 {
		t.Errorf("0.9 s apart: sampled overshoot %v, %d jobs delayed by the shaper, longest %v s; want 0.9, 109, 10.9", s.Sampled, s.ShaperDelayed, s.ShaperMaxDelay)
	}
	if s.OvershootExact != "2000/1891" || s.ExcessExact != "109/10" || s.ExcessD != 179.1 || s.OverD != 179.1 || s.OverJobs != 200 {
		t.Errorf("0.9 s apart: overshoot %s at %v s (%d jobs), excess %s at %v s; want 2000/1891 and 109/10 at 179.1 s, 200 jobs", s.OvershootExact, s.OverD, s.OverJobs, s.ExcessExact, s.ExcessD)
	}
}

// TestPromiseCheckDesigns: the one bucket, shaping or policing, keeps the
// promise at every length (0 jobs over it); the streamed check and the one
// over the kept departures agree (run compares the whole summaries).
func TestPromiseCheckDesigns(t *testing.T) {
	as := zipfJobs(t, 20000, 30, 20)
	for _, police := range []bool{false, true} {
		s := Spec{Design: "one", Bucket: params("5", "8"), Nodes: 4, Dispatch: "rr", Seed: 3, Police: police}
		sum, err := Summarize(run(t, s, as), s.Bucket, nil, 0)
		if err != nil || sum.ShaperDelayed != 0 || sum.ShaperMaxDelay != 0 {
			t.Errorf("one, police %v: %d jobs over the promise, longest %v s (%v); want 0", police, sum.ShaperDelayed, sum.ShaperMaxDelay, err)
		}
	}
}

// TestNoLocalBucketsAnyBurst: a store failing open and reconcile deciding with
// a copy of the whole bucket keep no bucket per node, so a burst below one
// token per node is valid for them (B = 1 over 4 nodes) and, with no
// delays, they decide as the one bucket; the static split, which keeps
// (R/N, B/N) per node, refuses it.
func TestNoLocalBucketsAnyBurst(t *testing.T) {
	as := zipfJobs(t, 5000, 3, 5)
	one := Spec{Design: "one", Bucket: params("1", "1"), Nodes: 4, Dispatch: "rr", Seed: 2, Police: true}
	for _, s := range []Spec{
		{Design: "store", Bucket: params("1", "1"), Nodes: 4, Dispatch: "rr", Seed: 2, Police: true, Store: StoreParams{Fail: FailOpen}},
		{Design: "reconcile", Bucket: params("1", "1"), Nodes: 4, Dispatch: "rr", Seed: 2, Police: true, Sync: SyncParams{BatchLimit: 1000}, Reconcile: ReconcileParams{Local: LocalCopy}},
	} {
		if err := s.Validate(); err != nil {
			t.Fatalf("%s: %v", s.Design, err)
		}
		sameDecisions(t, s.Design, run(t, s, as), run(t, one, as))
	}
	st := one
	st.Design = "static"
	if err := st.Validate(); err == nil || !strings.Contains(err.Error(), "0.25 tokens per node") {
		t.Errorf("static, B = 1 over 4 nodes: err %v, want a refusal", err)
	}
}
