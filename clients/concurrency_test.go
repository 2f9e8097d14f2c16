package clients

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// AIMDLimit step by step (AIMDLimit.java's _update, by hand): initial 10,
// backoff 0.9, timeout 5 s.
func TestAIMDLimitSteps(t *testing.T) {
	a, err := NewAIMDLimit(10, 0.9, 5e9)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		rtt      engine.Time
		inflight int
		drop     bool
		want     int
	}{
		{1e9, 5, false, 11}, // 2·5 >= 10: + 1
		{1e9, 4, false, 11}, // 2·4 < 11: unchanged
		{1e9, 6, true, 9},   // drop: min(10, floor(9.9)) = 9
		{6e9, 9, false, 8},  // rtt over the timeout: min(8, floor(8.1)) = 8
	}
	for i, s := range steps {
		a.Sample(s.rtt, s.inflight, s.drop)
		if a.Limit() != s.want {
			t.Errorf("step %d: limit %d, want %d", i, a.Limit(), s.want)
		}
	}
	a.limit = 1
	if a.Sample(1e9, 1, true); a.Limit() != 1 {
		t.Errorf("drop at limit 1: %d, want 1 (never below)", a.Limit())
	}
}

// Gradient2Limit step by step (Gradient2Limit.java's _update with its
// defaults, by hand): initial 20, min 20, max 200, smoothing 0.2, queue 4.
func TestGradient2LimitSteps(t *testing.T) {
	g, err := NewGradient2Limit(20, 20, 200, 0.2, 4, 600)
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		rtt       engine.Time
		inflight  int
		estimated float64
		long      float64 // ns
	}{
		// long = 0.1 s (first warm-up sample); gradient 1; 20·0.8 + (20 + 4)·0.2 = 20.8.
		{100e6, 10, 20.8, 100e6},
		// long = (0.1 + 0.2)/2 = 0.15 s; gradient 0.75; next 20.8·0.75 + 4 = 19.6;
		// 20.8·0.8 + 19.6·0.2 = 20.56.
		{200e6, 15, 20.56, 150e6},
		// long = 0.35/3 s, over twice the short 0.05 s: times 0.9 = 0.105 s;
		// app-limited (5 < 20.56/2): the limit is unchanged.
		{50e6, 5, 20.56, 105e6},
	}
	for i, s := range steps {
		g.Sample(s.rtt, s.inflight, false)
		if math.Abs(g.estimated-s.estimated) > 1e-9 || math.Abs(g.long-s.long) > 1e-3 {
			t.Errorf("step %d: estimated %v, long %v ns; want %v, %v", i, g.estimated, g.long, s.estimated, s.long)
		}
	}
	if g.Limit() != 20 {
		t.Errorf("limit %d, want 20", g.Limit())
	}
}

// The metastable scenario with Gradient2 in front of each server (its
// defaults: a limit of at least 20 in flight at a server of concurrency 5
// keeps at most about 15 attempts waiting, 0.3 s of work, under the 1 s
// timeout) recovers without a retry budget; AIMD with its 5 s timeout
// counts no attempt of this scenario as a drop until the queue is 5 s
// long, so its limit grows and the collapse is the same as without one.
func TestMetastableConcurrencyLimits(t *testing.T) {
	const reps = 10
	rule := Recovery{Bin: 1e9, TriggerFrom: 5e9, TriggerTo: 15e9, Hold: 10e9, ToleranceNum: 1, ToleranceDen: 20}
	for _, tc := range []struct {
		name    string
		mk      func(*rand.Rand) ConcurrencyLimit
		atLeast int
		atMost  int
	}{
		{"gradient2", func(*rand.Rand) ConcurrencyLimit { l, _ := NewGradient2Limit(20, 20, 200, 0.2, 4, 600); return l }, 8, reps},
		{"aimd", func(*rand.Rand) ConcurrencyLimit { l, _ := NewAIMDLimit(10, 0.9, 5e9); return l }, 0, 0},
	} {
		recovered := 0
		for rep := range uint64(reps) {
			sc := metastable(rep)
			sc.Concurrency = tc.mk
			res, err := RunOverload(sc)
			if err != nil {
				t.Fatal(err)
			}
			succ := make([]int64, len(res.Series))
			for i, b := range res.Series {
				succ[i] = b.Successes
			}
			if _, ok := rule.RecoveredAt(succ); ok {
				recovered++
			}
		}
		t.Logf("%s: recovered in %d of %d", tc.name, recovered, reps)
		if recovered < tc.atLeast || recovered > tc.atMost {
			t.Errorf("%s: recovered in %d of %d runs, want %d to %d", tc.name, recovered, reps, tc.atLeast, tc.atMost)
		}
	}
}

// log10root as Log10RootFunction computes it: max(1, floor(log10 n)) below
// 1000, floor(√n) from 1000 on.
func TestLog10Root(t *testing.T) {
	for n, want := range map[int]int{0: 1, 1: 1, 9: 1, 10: 1, 99: 1, 100: 2, 999: 2, 1000: 31, 1024: 32} {
		if got := log10Root(n); got != want {
			t.Errorf("log10Root(%d) = %d, want %d", n, got, want)
		}
	}
}

// VegasLimit step by step (VegasLimit.java's _update with its defaults, by
// hand; the first probe comes after at least 0.5·30·20 = 300 samples).
func TestVegasLimitSteps(t *testing.T) {
	v, err := NewVegasLimit(20, 1000, 1, 30, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		rtt      engine.Time
		inflight int
		drop     bool
		want     float64
	}{
		{100e6, 10, false, 20}, // the first sample sets the no-load round trip
		{100e6, 10, false, 26}, // queue ceil(20·0) = 0 <= L = 1: + 6·L (beta)
		{200e6, 13, false, 25}, // queue ceil(26·0.5) = 13 > 6·L: − L
		{150e6, 12, true, 24},  // a drop: − L
		{50e6, 12, false, 24},  // a new minimum round trip: unchanged
		{100e6, 5, false, 24},  // app-limited: 2·5 < 24
	}
	for i, s := range steps {
		v.Sample(s.rtt, s.inflight, s.drop)
		if v.estimated != s.want {
			t.Errorf("step %d: limit %v, want %v", i, v.estimated, s.want)
		}
	}
}

// Envoy's gradient controller step by step (gradient_controller.cc, by
// hand): min 2, max 100, a minRTT window of 3 requests, buffer 25%, no
// jitter, updates every 100 ms, minRTT every 10 s.
func TestEnvoyGradientSteps(t *testing.T) {
	e, err := NewEnvoyGradient(2, 100, 3, 0.25, 0, 100e6, 10e9, rand.New(rand.NewPCG(1, 1)))
	if err != nil {
		t.Fatal(err)
	}
	sample := func(now, rtt engine.Time) {
		e.Advance(now)
		e.Sample(rtt, 1, false)
	}
	e.Advance(0) // the minRTT window starts: the limit is pinned to 2
	sample(50e6, 40e6)
	sample(60e6, 20e6)
	sample(70e6, 30e6) // the third sample: minRTT = median(20, 30, 40 ms) = 30 ms
	if e.minRTT != 30000 || e.inMinRTT() || e.Limit() != 2 || e.nextReset != 170e6 || e.nextMinRTT != 10_070e6 {
		t.Fatalf("after the window: minRTT %d µs, in window %v, limit %d, next reset %v, next window %v; want 30000, false, 2, 0.17 s, 10.07 s",
			e.minRTT, e.inMinRTT(), e.Limit(), e.nextReset, e.nextMinRTT)
	}
	steps := []struct {
		at, rtt engine.Time // a sample at 'at', then the update at at + 70 ms
		want    int
	}{
		// gradient 37.5/60 = 0.625: 2·0.625 = 1.25, + √1.25 = 2.37: 2.
		{100e6, 60e6, 2},
		// gradient 37.5/20 = 1.875: 3.75 + √3.75 = 5.69: 5.
		{200e6, 20e6, 5},
		// gradient min(2, 3.75) = 2: 10 + √10 = 13.2: 13.
		{300e6, 10e6, 13},
	}
	for i, s := range steps {
		sample(s.at, s.rtt)
		e.Advance(s.at + 70e6)
		if e.Limit() != s.want {
			t.Errorf("step %d: limit %d, want %d", i, e.Limit(), s.want)
		}
	}
}
