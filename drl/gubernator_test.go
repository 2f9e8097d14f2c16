package drl

import (
	"context"
	"errors"
	"io"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

type gubArrivals struct {
	ts []engine.Time
	i  int
}

func (p *gubArrivals) Next() (arrivals.Arrival, error) {
	if p.i == len(p.ts) {
		return arrivals.Arrival{}, io.EOF
	}
	p.i++
	return arrivals.Arrival{T: p.ts[p.i-1], Sub: -1}, nil
}

// gubRun runs sync with algorithm alg on 2 nodes (round robin, the
// default peers: key ratesim_0 is node 0's), R = 1, B = 2 (Limit 2 per
// 2000 ms), GlobalSyncWait 1 s, on jobs at ts (ms), and returns each
// job's answer and the flushes and broadcasts as "f@ms:node"/"b@ms:node".
func gubRun(t *testing.T, alg SyncAlgorithm, tsMs []int64) ([]bool, []string) {
	t.Helper()
	var ts []engine.Time
	for _, m := range tsMs {
		ts = append(ts, engine.Time(m)*1e6)
	}
	var admits []bool
	var batches []string
	s := Spec{Design: "sync", Bucket: buckets.Params{Rate: exact.Int(1), Burst: exact.Int(2)}, Nodes: 2, Dispatch: "rr", Police: true, Seed: 1,
		Sync: SyncParams{Period: 1e9, BatchLimit: 1000, Algorithm: alg, OnStep: func(st SyncStep) {
			switch st.Kind {
			case StepJob:
				admits = append(admits, st.Admitted)
			case StepFlush:
				batches = append(batches, "f@"+itoa(epochMs(st.At))+":"+itoa(int64(st.Node)))
			case StepBroadcast:
				batches = append(batches, "b@"+itoa(epochMs(st.At))+":"+itoa(int64(st.Node)))
			}
		}},
	}
	res, err := Run(context.Background(), s, &gubArrivals{ts: ts}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for i, a := range admits {
		if res.AdmittedJob(int64(i)) != a {
			t.Fatalf("job %d: step says admitted=%v, result %v", i, a, res.AdmittedJob(int64(i)))
		}
	}
	return admits, batches
}

func itoa(v int64) string { return exact.Int(v).String() }

func TestGubernatorOwnerDefaultPeers(t *testing.T) {
	// The interop test (interop/gubernator TestRing) checks the ring
	// against Gubernator's own picker; the step tables below rely on this
	// owner.
	if o := GubernatorOwner(DefaultGubernatorPeers(2), GubernatorHashKey(0)); o != 0 {
		t.Fatalf("owner of ratesim_0 among cluster.Start(2)'s peers = %d, want 0", o)
	}
}

// The tickers (interval.go) matter here: a queue holding one key calls
// Next on every request it queues, even for the key it holds
// (global.go:124-126, :213-215), and a Next made while the ticker sleeps
// starts the next sleep as soon as it ticks. So a key hit at least once
// per GlobalSyncWait is sent every GlobalSyncWait from its first hit, and
// a tick with nothing queued sends nothing.

// TestGubernatorTokenBucket follows Gubernator v2.13.0's token bucket by
// hand (algorithms.go, gubernator.go, global.go): Limit 2 per 2000 ms,
// node 0 owns the key, jobs alternate 0, 1, 0, 1, ...; a job at an
// instant comes after the ticks at that instant.
func TestGubernatorTokenBucket(t *testing.T) {
	got, batches := gubRun(t, SyncTokenBucket, []int64{0, 10, 20, 30, 1500, 1600, 2500, 2550})
	want := []bool{
		true, // 0 ms, node 0 (owner): new item, 1 token left, expires at 2000; broadcast ticker: ticks at 1000
		true, // 10 ms, node 1: its own new item, 1 left (expires 2010); hits ticker: ticks at 1010
		true, // 20 ms, node 0: 1 token == 1 hit: 0 left; Next: the broadcast ticker will tick again at 2000
		true, // 30 ms, node 1: 0 left; node 1's queue: 2 hits at CreatedAt 10; its ticker will tick at 2010
		// 1000: broadcast of the status at CreatedAt 20: 0 left; node 1 installs 0 tokens, expiring 2000.
		// 1010: node 1 sends 2 hits at CreatedAt 10: the owner has 0: OVER_LIMIT, its Status set.
		false, // 1500 ms, node 0: 0 left
		false, // 1600 ms, node 1: its copy holds 0
		// 2000: broadcast at CreatedAt 1500 with the clock at 2000: the item (ExpireAt 2000) has not
		// expired (ExpireAt < now is false): OVER_LIMIT, 0 left, ResetTime 2000, installed by node 1.
		// 2010: node 1 sends the 1600 hit: 0 left.
		true, // 2500 ms, node 0: the item expired at 2000: a new one, 2 - 1 = 1 left
		true, // 2550 ms, node 1: its copy expired at 2000: a new one of its own, 1 left
	}
	if !slices.Equal(got, want) {
		t.Errorf("answers %v, want %v", got, want)
	}
	// The broadcast ticker re-armed by each update; the hits ticker by
	// the hits at 30, 1600 and 2550 (its tick at 4010 finds nothing).
	wantB := []string{"b@1000:0", "f@1010:1", "b@2000:0", "f@2010:1", "b@3000:0", "f@3010:1", "b@4000:0"}
	if !slices.Equal(batches, wantB) {
		t.Errorf("batches %v, want %v", batches, wantB)
	}
}

// TestGubernatorLeakyBucket follows the leaky bucket (Limit 2 per 2000 ms,
// Burst 2: 1000 ms per token) by hand, with Gubernator's float Remaining.
func TestGubernatorLeakyBucket(t *testing.T) {
	got, batches := gubRun(t, SyncLeakyBucket, []int64{0, 500, 1200, 1300, 1600, 1700, 2500, 2600})
	want := []bool{
		true, // 0, node 0: new item 1.0 left (updated 0, expires 2000); broadcast ticks at 1000
		true, // 500, node 1: own new item 1.0 (expires 2500); hits tick at 1500
		// 1000: broadcast reads 0 hits at CreatedAt 0: Remaining 1, ResetTime 0 + (2-1)·1000 = 1000;
		// node 1 installs 1.0, updated 1000, expiring at 1000.
		true, // 1200, node 0: leak 1.2 (>= 1 whole token): 2.2, not capped (int 2 is not > 2); 2 -> 1.2; broadcast ticks at 2200
		true, // 1300, node 1: its copy expired (1000 < 1300): a new item 1.0 -> 0; 2 hits queued at CreatedAt 500
		// 1500: the owner gets 2 hits at CreatedAt 500: leak (500-1200)/1000 < 1: none; int 1 < 2: OVER,
		// drained to 0. Node 1's ticker (Next at 1300) ticks again at 2500.
		false, // 1600, node 0: leak 0.4 < 1: none; 0 left
		true,  // 1700, node 1: its item (1.0 at 1300) leaks 0.4: none; 1 == 1: 0 left
		// 2200: broadcast at CreatedAt 1600: Remaining 0, ResetTime 1600 + 2000 = 3600; node 1 installs 0 at 2200.
		// 2500: node 1 sends the 1700 hit: the owner's leak (1700-1200)/1000 = 0.5: none; 0 left: OVER.
		true,  // 2500, node 0: leak (2500-1200)/1000 = 1.3: 1.3; 1 == 1 hit: 0 (the 0.3 is dropped)
		false, // 2600, node 1: copy 0 at 2200, leak 0.4: none; OVER
	}
	if !slices.Equal(got, want) {
		t.Errorf("answers %v, want %v", got, want)
	}
	wantB := []string{"b@1000:0", "f@1500:1", "b@2200:0", "f@2500:1", "b@3200:0", "f@3500:1", "b@4200:0"}
	if !slices.Equal(batches, wantB) {
		t.Errorf("batches %v, want %v", batches, wantB)
	}
}

// TestGubernatorBatchLimit: with GlobalBatchLimit 1 a hit is sent at once
// (global.go:115), so the owner's item sees each hit when it is made.
func TestGubernatorBatchLimit(t *testing.T) {
	var flushes int
	s := Spec{Design: "sync", Bucket: buckets.Params{Rate: exact.Int(1), Burst: exact.Int(2)}, Nodes: 2, Dispatch: "rr", Police: true, Seed: 1,
		Sync: SyncParams{Period: 1e9, BatchLimit: 1, Algorithm: SyncTokenBucket, OnStep: func(st SyncStep) {
			if st.Kind == StepFlush {
				flushes++
			}
		}},
	}
	res, err := Run(context.Background(), s, &gubArrivals{ts: []engine.Time{0, 1e6, 2e6, 3e6}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Both copies start full (each daemon makes its own item on its first
	// hit) and the broadcasts, one per owner change, are sent at once too:
	// job 0 (owner, 1 left, broadcast: node 1 installs 1), job 1 (node 1:
	// 1 -> 0, sent: owner 1 -> 0, broadcast), job 2 (owner: 0, OVER), job
	// 3 (node 1: copy 0, OVER).
	if res.Admitted != 2 || flushes != 2 {
		t.Errorf("admitted %d, flushes %d; want 2 and 2", res.Admitted, flushes)
	}
}

func TestGubernatorSpecErrors(t *testing.T) {
	base := Spec{Design: "sync", Bucket: buckets.Params{Rate: exact.Int(1), Burst: exact.Int(2)}, Nodes: 2, Dispatch: "rr", Police: true,
		Sync: SyncParams{Period: 1e9, BatchLimit: 1000, Algorithm: SyncLeakyBucket},
	}
	for _, c := range []struct {
		name string
		edit func(*Spec)
	}{
		{"shaping", func(s *Spec) { s.Police = false }},
		{"fractional burst", func(s *Spec) { s.Bucket.Burst = exact.NewRat(5, 2) }},
		{"duration not whole ms", func(s *Spec) { s.Bucket.Rate = exact.Int(3); s.Bucket.Burst = exact.Int(10) }},
		{"peers", func(s *Spec) { s.Sync.Peers = []string{"a:1"} }},
	} {
		s := base
		c.edit(&s)
		if err := s.Validate(); !errors.Is(err, ErrSpec) {
			t.Errorf("%s: Validate() = %v, want ErrSpec", c.name, err)
		}
	}
	if err := base.Validate(); err != nil {
		t.Errorf("base: %v", err)
	}
}
