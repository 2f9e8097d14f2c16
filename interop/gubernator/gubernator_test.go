package gubernator_test

// Differential tests of ratesim's sync design (drl.SyncTokenBucket,
// drl.SyncLeakyBucket) against the real Gubernator v2.13.0: the same
// arrivals go to ratesim's model and to n real daemons started in this
// process (gubernator.SpawnDaemon, as cluster.StartWith does), and every
// job must get the same answer (UNDER_LIMIT or OVER_LIMIT) from both.
//
// # Time
//
// Gubernator reads time through holster's clock (MillisecondNow,
// lrucache.go:106; epochMillis, gubernator.go:860); the test freezes it
// (clock.Freeze) and advances it to each step's instant, and sets every
// request's CreatedAt to that instant in ms, as a client would.
//
// # Batching made deterministic
//
// GlobalSyncWait is not read through that clock: the ticker that sends a
// daemon's queued hits and an owner's broadcasts sleeps in real time
// (interval.go:52, time.Sleep). Driving it by the wall clock would make
// which hits share a batch depend on goroutine timing. So the daemons run
// with GlobalSyncWait = 1 h (the ticker never fires during a test) and the
// test sends each batch at the instant the model says the ticker fires,
// through the other path Gubernator sends batches by, the batch limit
// (global.go:115 for hits, :204 for broadcasts):
//
//   - one daemon, the owner, owns the key under test, a flush key and two
//     filler keys, and has GlobalBatchLimit 3; every other daemon has
//     GlobalBatchLimit 2;
//   - to flush a daemon's hits, the test sends it one GLOBAL hit of the
//     flush key: its queue then holds 2 keys and is sent at once
//     (sendHits), at the frozen instant;
//   - the owner's queue of changed keys holds the key under test and,
//     after a flush, the flush key; to broadcast, the test sends the owner
//     filler hits until its queue holds 3 keys.
//
// After each trigger the test waits until the daemon's own
// gubernator_global_send_duration (or gubernator_broadcast_duration)
// summary has counted the send: it is observed when sendHits (or
// broadcastPeers) returns, after every peer's RPC has returned, so the
// owner has applied the hits (and the peers have installed the status)
// before the next step. The extra keys are other rate limits and change
// nothing for the key under test. Every step (job, flush, broadcast) is
// taken in the order of the model's event queue (drl.Spec.Sync.OnStep); that a
// flush finds hits queued and a broadcast finds the key changed is checked
// by the real daemons (a trigger that finds no batch sends nothing, and
// the wait times out).
//
// Daemons listen on 127.0.0.1 only. A cluster of n daemons is started once
// per (n, owner) and kept for the whole test binary (its tickers sleep an
// hour, so Close would wait for them); each scenario uses a fresh key.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	guber "github.com/gubernator-io/gubernator/v2"
	"github.com/mailgun/holster/v4/clock"
	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/sirupsen/logrus"
)

// cluster is n daemons, daemon i at addrs[i].
type cluster struct {
	daemons []*guber.Daemon
	clients []guber.V1Client
	addrs   []string
	owner   int      // the daemon that owns the keys under test
	flush   string   // a flush key's UniqueKey (name "flush"), owned by the owner
	fillers []string // two filler UniqueKeys (name "fill"), owned by the owner
}

var (
	clusters   = map[[2]int]*cluster{} // by (daemons, owner)
	clockOnce  sync.Once
	nextKey    uint64 = 1
	quietLog          = func() *logrus.Entry { l := logrus.New(); l.SetOutput(io.Discard); return logrus.NewEntry(l) }()
	frozenBase time.Time
)

// freeAddr returns a loopback address with a port free at the time of
// the call.
func freeAddr(t *testing.T) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("listen on 127.0.0.1: %v", err)
	}
	defer l.Close()
	return l.Addr().String()
}

// getCluster returns the cluster of n daemons whose daemon owner owns
// the keys under test (it has GlobalBatchLimit 3, the others 2).
func getCluster(t *testing.T, n, owner int) *cluster {
	t.Helper()
	clockOnce.Do(func() {
		frozenBase = time.Unix(1_700_000_000, 0)
		clock.Freeze(frozenBase)
	})
	if c := clusters[[2]int{n, owner}]; c != nil {
		return c
	}
	c := &cluster{owner: owner}
	for i := range n {
		addr := freeAddr(t)
		limit := 2
		if i == owner {
			limit = 3
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		d, err := guber.SpawnDaemon(ctx, guber.DaemonConfig{
			Logger:            quietLog,
			InstanceID:        addr,
			GRPCListenAddress: addr,
			HTTPListenAddress: freeAddr(t),
			AdvertiseAddress:  addr,
			Behaviors: guber.BehaviorConfig{
				GlobalSyncWait:   time.Hour,
				GlobalBatchLimit: limit,
				GlobalTimeout:    5 * time.Second,
				BatchTimeout:     5 * time.Second,
			},
		})
		cancel()
		if err != nil {
			t.Fatalf("spawn daemon %d at %s: %v", i, addr, err)
		}
		d.PeerInfo = guber.PeerInfo{GRPCAddress: d.GRPCListeners[0].Addr().String(), HTTPAddress: d.HTTPListener.Addr().String()}
		cl, err := guber.DialV1Server(d.PeerInfo.GRPCAddress, nil)
		if err != nil {
			t.Fatalf("dial daemon %d: %v", i, err)
		}
		c.daemons = append(c.daemons, d)
		c.clients = append(c.clients, cl)
		c.addrs = append(c.addrs, d.PeerInfo.GRPCAddress)
	}
	var peers []guber.PeerInfo
	for _, d := range c.daemons {
		peers = append(peers, d.PeerInfo)
	}
	for _, d := range c.daemons {
		d.SetPeers(peers)
	}
	own := func(name string, want int) []string {
		var ks []string
		for i := 0; len(ks) < want; i++ {
			k := "k" + strconv.Itoa(i)
			if drl.GubernatorOwner(c.addrs, name+"_"+k) == owner {
				ks = append(ks, k)
			}
		}
		return ks
	}
	c.flush = own("flush", 1)[0]
	c.fillers = own("fill", 2)
	clusters[[2]int{n, owner}] = c
	return c
}

// realOwner returns the daemon that Gubernator's own picker says owns
// hash key k.
func (c *cluster) realOwner(t *testing.T, k string) int {
	p, err := c.daemons[0].V1Server.GetPeer(context.Background(), k)
	if err != nil {
		t.Fatalf("GetPeer(%q): %v", k, err)
	}
	for i, a := range c.addrs {
		if a == p.Info().GRPCAddress {
			return i
		}
	}
	t.Fatalf("GetPeer(%q) = %s, not a daemon", k, p.Info().GRPCAddress)
	return -1
}

// sendCount returns daemon i's count of the summary named name (one of
// its globalManager's: gubernator_global_send_duration or
// gubernator_broadcast_duration).
func (c *cluster) sendCount(t *testing.T, i int, name string) uint64 {
	ch := make(chan prometheus.Metric, 256)
	go func() { c.daemons[i].V1Server.Collect(ch); close(ch) }()
	var n uint64
	found := false
	for m := range ch {
		if !strings.Contains(m.Desc().String(), `"`+name+`"`) {
			continue
		}
		var pb dto.Metric
		if err := m.Write(&pb); err != nil {
			t.Fatalf("metric %s: %v", name, err)
		}
		n, found = pb.GetSummary().GetSampleCount(), true
	}
	if !found {
		t.Fatalf("daemon %d has no metric %s", i, name)
	}
	return n
}

func (c *cluster) waitCount(t *testing.T, i int, name string, after uint64, what string) {
	deadline := time.Now().Add(10 * time.Second)
	for c.sendCount(t, i, name) <= after {
		if time.Now().After(deadline) {
			t.Fatalf("%s: daemon %d's %s stayed at %d for 10 s (no batch was queued?)", what, i, name, after)
		}
		time.Sleep(200 * time.Microsecond)
	}
}

// setClock moves the frozen clock to base + at.
func setClock(base time.Time, at engine.Time) time.Time {
	target := base.Add(time.Duration(at))
	if d := target.Sub(clock.Now()); d > 0 {
		clock.Advance(d)
	}
	return clock.Now()
}

func hit(ctx context.Context, t *testing.T, cl guber.V1Client, r *guber.RateLimitReq) *guber.RateLimitResp {
	resp, err := cl.GetRateLimits(ctx, &guber.GetRateLimitsReq{Requests: []*guber.RateLimitReq{r}})
	if err != nil {
		t.Fatalf("GetRateLimits: %v", err)
	}
	if e := resp.Responses[0].Error; e != "" {
		t.Fatalf("GetRateLimits: %s", e)
	}
	return resp.Responses[0]
}

func millis(now time.Time) *int64 { v := now.UnixNano() / 1e6; return &v }

// scenario is one differential run.
type scenario struct {
	name     string
	alg      drl.SyncAlgorithm
	nodes    int
	owner    int         // the daemon that owns the key
	wait     engine.Time // GlobalSyncWait, ns
	rate     string      // R, tokens/s
	burst    string      // B, tokens
	dispatch string      // rr or random
	times    []engine.Time
}

type sliceProc struct {
	times []engine.Time
	key   uint64
	i     int
}

func (p *sliceProc) Next() (arrivals.Arrival, error) {
	if p.i == len(p.times) {
		return arrivals.Arrival{}, io.EOF
	}
	p.i++
	return arrivals.Arrival{T: p.times[p.i-1], Key: p.key, Sub: -1}, nil
}

// run drives the model and the real daemons with sc's arrivals and
// returns the jobs and the disagreements.
func run(t *testing.T, sc scenario) (jobs, admitted, disagree int) {
	t.Helper()
	c := getCluster(t, sc.nodes, sc.owner)
	// A fresh key owned by sc.owner, by the model's ring and Gubernator's.
	var key uint64
	for {
		key = nextKey
		nextKey++
		if drl.GubernatorOwner(c.addrs, drl.GubernatorHashKey(key)) == sc.owner {
			break
		}
	}
	if o := c.realOwner(t, drl.GubernatorHashKey(key)); o != sc.owner {
		t.Fatalf("key %s: Gubernator's owner is daemon %d, the model's daemon %d", drl.GubernatorHashKey(key), o, sc.owner)
	}
	rate, err1 := exact.ParseRat(sc.rate)
	burst, err2 := exact.ParseRat(sc.burst)
	if err := errors.Join(err1, err2); err != nil {
		t.Fatal(err)
	}
	limit, dur, b, err := drl.GubernatorLimits(rate, burst)
	if err != nil {
		t.Fatal(err)
	}
	var steps []drl.SyncStep
	spec := drl.Spec{Design: "sync", Bucket: buckets.Params{Rate: rate, Burst: burst}, Nodes: sc.nodes, Dispatch: sc.dispatch, Police: true, Seed: 1,
		Sync: drl.SyncParams{Period: sc.wait, BatchLimit: 1000, Algorithm: sc.alg, Peers: c.addrs, OnStep: func(s drl.SyncStep) { steps = append(steps, s) }},
	}
	res, err := drl.Run(context.Background(), spec, &sliceProc{times: sc.times, key: key}, 0)
	if err != nil {
		t.Fatalf("model: %v", err)
	}
	alg := guber.Algorithm_TOKEN_BUCKET
	if sc.alg == drl.SyncLeakyBucket {
		alg = guber.Algorithm_LEAKY_BUCKET
	}
	// A base instant a whole second after the clock, so that each
	// scenario starts on a whole millisecond after every earlier one.
	base := clock.Now().Truncate(time.Second).Add(1000 * time.Second)
	ctx := context.Background()
	flushPending := false // the owner's queue of changed keys holds the flush key
	for _, st := range steps {
		now := setClock(base, st.At)
		switch st.Kind {
		case drl.StepJob:
			r := hit(ctx, t, c.clients[st.Node], &guber.RateLimitReq{Name: drl.GubernatorName, UniqueKey: strconv.FormatUint(key, 10),
				Hits: 1, Limit: limit, Duration: dur, Burst: b, Algorithm: alg, Behavior: guber.Behavior_GLOBAL, CreatedAt: millis(now)})
			real := r.Status == guber.Status_UNDER_LIMIT
			jobs++
			if real {
				admitted++
			}
			if real != st.Admitted || real != res.AdmittedJob(st.Job) {
				if disagree < 5 {
					t.Errorf("%s: job %d at %v s on daemon %d: Gubernator admitted=%v (remaining %d), model %v", sc.name, st.Job, st.At.Seconds(), st.Node, real, r.Remaining, st.Admitted)
				}
				disagree++
			}
		case drl.StepFlush:
			if st.Node == sc.owner {
				t.Fatalf("%s: the model flushes hits at the owner", sc.name)
			}
			before := c.sendCount(t, st.Node, "gubernator_global_send_duration")
			hit(ctx, t, c.clients[st.Node], &guber.RateLimitReq{Name: "flush", UniqueKey: c.flush, Hits: 1, Limit: 1 << 40,
				Duration: 3_600_000, Behavior: guber.Behavior_GLOBAL, CreatedAt: millis(now)})
			c.waitCount(t, st.Node, "gubernator_global_send_duration", before, fmt.Sprintf("%s: flush at %v s", sc.name, st.At.Seconds()))
			flushPending = true
		case drl.StepBroadcast:
			if st.Node != sc.owner {
				t.Fatalf("%s: the model broadcasts from daemon %d, not the owner", sc.name, st.Node)
			}
			before := c.sendCount(t, sc.owner, "gubernator_broadcast_duration")
			n := 2 // the key under test and a filler make 2 of 3
			if flushPending {
				n = 1
			}
			for _, f := range c.fillers[:n] {
				hit(ctx, t, c.clients[sc.owner], &guber.RateLimitReq{Name: "fill", UniqueKey: f, Hits: 1, Limit: 1 << 40,
					Duration: 3_600_000, Behavior: guber.Behavior_GLOBAL, CreatedAt: millis(now)})
			}
			c.waitCount(t, sc.owner, "gubernator_broadcast_duration", before, fmt.Sprintf("%s: broadcast at %v s", sc.name, st.At.Seconds()))
			flushPending = false
		}
	}
	if int64(jobs) != res.Jobs {
		t.Fatalf("%s: %d job steps for %d jobs", sc.name, jobs, res.Jobs)
	}
	return jobs, admitted, disagree
}

// groups returns n groups of 2 to 16 jobs 10 ms apart, one group every 3
// s (the shape of ../shared/cases/gubernator-groups-3s.csv), sizes drawn
// from src.
func groups(n int, src rand.Source) []engine.Time {
	rng := rand.New(src)
	var ts []engine.Time
	for g := range n {
		k := 2 + rng.IntN(15)
		for i := range k {
			ts = append(ts, engine.Time(g)*3e9+engine.Time(i)*10e6)
		}
	}
	return ts
}

// poisson returns n Poisson arrivals of rate lambda /s, on the ns grid.
func poisson(t *testing.T, n int, lambda float64, src rand.Source) []engine.Time {
	p, err := arrivals.NewPoisson(lambda, src)
	if err != nil {
		t.Fatal(err)
	}
	return take(t, p, n)
}

// take returns the instants of p's first n arrivals (n <= 0: all).
func take(t *testing.T, p arrivals.Process, n int) []engine.Time {
	var ts []engine.Time
	for n <= 0 || len(ts) < n {
		a, err := p.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		ts = append(ts, a.T)
	}
	return ts
}

// shared returns the path of file under ../shared beside the repository,
// or "" when it is not there.
func shared(file string) string {
	p := filepath.Join("..", "..", "..", "shared", file)
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

func readTrace(t *testing.T, path string, opt arrivals.TraceOptions, n int) []engine.Time {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := arrivals.NewTrace(f, path, opt)
	if err != nil {
		t.Fatal(err)
	}
	return take(t, tr, n)
}

// scenarios returns the generated scenarios of algorithm alg: 2 to 5
// daemons, GlobalSyncWait 10 ms, 100 ms and 1 s, grouped bursts (round
// robin, Limit 10 per 10 s, 25 groups) and 120 Poisson arrivals at 8/s
// (random dispatch, Limit 9 per 3 s: 333.33... ms per token, a leak in
// fractions; the owner varies), 24 in all.
func scenarios(t *testing.T, alg drl.SyncAlgorithm) []scenario {
	var scs []scenario
	for n := 2; n <= 5; n++ {
		for i, w := range []engine.Time{10e6, 100e6, 1e9} {
			seed := uint64(100*n + i)
			scs = append(scs,
				scenario{name: fmt.Sprintf("%v/groups/n=%d/wait=%vs", alg, n, w.Seconds()), alg: alg, nodes: n, wait: w,
					rate: "1", burst: "10", dispatch: "rr", times: groups(25, rand.NewPCG(seed, 1))},
				scenario{name: fmt.Sprintf("%v/poisson/n=%d/owner=%d/wait=%vs", alg, n, (i+1)%n, w.Seconds()), alg: alg, nodes: n, owner: (i + 1) % n, wait: w,
					rate: "3", burst: "9", dispatch: "random", times: poisson(t, 120, 8, rand.NewPCG(seed, 2))})
		}
	}
	return scs
}

func testAlgorithm(t *testing.T, alg drl.SyncAlgorithm) {
	scs := scenarios(t, alg)
	if p := shared("cases/gubernator-groups-3s.csv"); p != "" {
		ts := readTrace(t, p, arrivals.TraceOptions{TimeCol: "t"}, 0)
		for _, w := range []engine.Time{100e6, 1e9} {
			for owner := range 2 {
				scs = append(scs, scenario{name: fmt.Sprintf("%v/gubernator-groups-3s/n=2/owner=%d/wait=%vs", alg, owner, w.Seconds()), alg: alg, nodes: 2, owner: owner, wait: w,
					rate: "1", burst: "10", dispatch: "rr", times: ts})
			}
		}
	} else {
		t.Logf("../shared/cases/gubernator-groups-3s.csv is not beside the repository: its scenarios are skipped")
	}
	if p := shared("traces/azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv"); p != "" {
		ts := readTrace(t, p, arrivals.TraceOptions{TimeCol: "TIMESTAMP", TimeFormat: "datetime"}, 300)
		scs = append(scs, scenario{name: fmt.Sprintf("%v/azure-llm-code/n=3/wait=0.1s", alg), alg: alg, nodes: 3, wait: 100e6,
			rate: "2", burst: "4", dispatch: "rr", times: ts},
			scenario{name: fmt.Sprintf("%v/azure-llm-code/n=5/wait=1s", alg), alg: alg, nodes: 5, wait: 1e9,
				rate: "2", burst: "4", dispatch: "random", times: ts})
	} else {
		t.Logf("../shared/traces is not beside the repository: the real-trace scenarios are skipped")
	}
	total, bad := 0, 0
	for _, sc := range scs {
		jobs, adm, dis := run(t, sc)
		t.Logf("%-45s %4d jobs, Gubernator admitted %4d, disagreements %d", sc.name, jobs, adm, dis)
		total += jobs
		if dis > 0 {
			bad++
		}
	}
	t.Logf("%v: %d scenarios, %d jobs, %d scenarios with a disagreement", alg, len(scs), total, bad)
}

func TestTokenBucket(t *testing.T) { testAlgorithm(t, drl.SyncTokenBucket) }
func TestLeakyBucket(t *testing.T) { testAlgorithm(t, drl.SyncLeakyBucket) }

// TestRing checks the model's hash ring against Gubernator's own picker
// (ReplicatedConsistentHash) on the daemons' real addresses, on the hash
// keys of ratesim's key ids and on random ones. (FNV-1 ends with an xor
// of the last byte, so keys that differ only in their last characters
// land on neighbouring points: ratesim_0 to ratesim_299 fall to 2 of 4
// daemons, in Gubernator as in the model.)
func TestRing(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	for n := 2; n <= 5; n++ {
		c := getCluster(t, n, 0)
		seen := map[int]int{}
		for i := range 600 {
			k := drl.GubernatorHashKey(uint64(i))
			if i >= 300 {
				k = fmt.Sprintf("%x_%x", rng.Uint64(), rng.Uint32())
			}
			want := c.realOwner(t, k)
			if got := drl.GubernatorOwner(c.addrs, k); got != want {
				t.Errorf("%d daemons: key %s: model owner %d, Gubernator %d", n, k, got, want)
			}
			seen[want]++
		}
		t.Logf("%d daemons: owners of 600 keys %v", n, seen)
	}
}
