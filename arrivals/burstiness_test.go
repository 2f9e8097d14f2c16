package arrivals

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// bruteBurst is the definition b(r) = max over i <= j of
// (j - i + 1) - r(a_j - a_i): the most jobs in an interval [a_i, a_j]
// beyond what rate r serves in it, O(n²).
func bruteBurst(ts []float64, r float64) float64 {
	b := 1.0
	for i := range ts {
		for j := i; j < len(ts); j++ {
			b = max(b, float64(j-i+1)-r*(ts[j]-ts[i]))
		}
	}
	return b
}

// delayedInBucket runs a FCFS token bucket (r, b) of package buckets,
// full at 0, on the times and returns the number of jobs that waited.
func delayedInBucket(t *testing.T, ts []float64, r, b float64) int64 {
	t.Helper()
	tb, err := buckets.NewTokenBucket(buckets.Params{Rate: r, Burst: b})
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range ts {
		at := engine.Time(x)
		for tb.NextGrant() <= at {
			tb.Grant()
		}
		tb.Arrive(at, int64(i))
	}
	return tb.Delayed()
}

func burstOf(t *testing.T, ts, rates []float64, keep int) *BurstCurve {
	t.Helper()
	c, err := NewBurstCurve(rates, keep)
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range ts {
		if err := c.Add(x); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestBurstHand: r = 2 tokens/s, jobs at 0, 0.5, 1, 1, 1. The unfinished
// work before each job, in tokens, is X = 0, max(0, 0+1-2·0.5) = 0,
// max(0, 0+1-2·0.5) = 0, 0+1 = 1, 1+1 = 2, so b(2) = 1 + 2 = 3: the
// three jobs at 1 s need three tokens (the interval [1, 1] has 3 jobs
// and rate 2 serves none of them in zero time). Allowing one delayed job,
// b = 1 + (second largest X = 1) = 2: only the fifth job (X = 2 > 1)
// waits. Four jobs at 0 with r = 1 need b = 4.
func TestBurstHand(t *testing.T) {
	ts := []float64{0, 0.5, 1, 1, 1}
	c := burstOf(t, ts, []float64{2}, 2)
	if got := c.Burst(); got[0] != 3 {
		t.Errorf("b(2) = %v, want 3", got[0])
	}
	if got, err := c.BurstAllowing(1); err != nil || got[0] != 2 {
		t.Errorf("b allowing 1 delayed = %v, %v; want 2", got, err)
	}
	if got, _ := c.BurstAllowing(5); got[0] != 1 {
		t.Errorf("b allowing all 5 delayed = %v, want 1", got[0])
	}
	if _, err := c.BurstAllowing(2); err == nil {
		t.Error("BurstAllowing(2) with keep 2: error = nil, want one (needs 3 values)")
	}
	for _, tc := range []struct {
		b    float64
		want int64
	}{{3, 0}, {2.999, 1}, {2, 1}, {1.999, 2}} {
		if got := delayedInBucket(t, ts, 2, tc.b); got != tc.want {
			t.Errorf("bucket (2, %v) delays %d jobs, want %d", tc.b, got, tc.want)
		}
	}
	if got := burstOf(t, []float64{0, 0, 0, 0}, []float64{1}, 0).Burst(); got[0] != 4 {
		t.Errorf("four jobs at 0: b(1) = %v, want 4", got[0])
	}
	if got := burstOf(t, nil, []float64{1}, 0).Burst(); got[0] != 1 {
		t.Errorf("empty trace: b = %v, want 1", got[0])
	}
}

// TestBurstRandom compares the one-pass curve with the O(n²) definition
// and with package buckets on random bursty traces (ties, bursts and long
// gaps, times on a 1 ms grid): b(r) lets no job wait and 0.999·b(r) makes
// one wait; allowing m delayed jobs, the curve's b keeps at most m waiting
// and 0.999 of it more than m.
func TestBurstRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		ts := make([]float64, n)
		x := 0.0
		for i := range ts {
			switch rng.IntN(4) {
			case 0: // a tie
			case 1:
				x += float64(rng.IntN(5000)) / 1000
			default:
				x += float64(rng.IntN(300)) / 1000
			}
			ts[i] = x
		}
		rates := []float64{0.5, 1, 3.7, 10}
		m := int64(rng.IntN(n))
		c := burstOf(t, ts, rates, int(m+1))
		bs := c.Burst()
		bm, err := c.BurstAllowing(m)
		if err != nil {
			t.Fatal(err)
		}
		for k, r := range rates {
			if want := bruteBurst(ts, r); math.Abs(bs[k]-want) > 1e-9*want {
				t.Fatalf("trial %d, r = %v: b = %v, brute force %v (times %v)", trial, r, bs[k], want, ts)
			}
			if d := delayedInBucket(t, ts, r, bs[k]*(1+1e-12)); d != 0 {
				t.Errorf("trial %d, r = %v: bucket b(r) = %v delays %d jobs, want 0", trial, r, bs[k], d)
			}
			if bs[k]*0.999 >= 1 {
				if d := delayedInBucket(t, ts, r, bs[k]*0.999); d == 0 {
					t.Errorf("trial %d, r = %v: bucket 0.999·b(r) delays no job, so b(r) = %v is not the smallest", trial, r, bs[k])
				}
			}
			if d := delayedInBucket(t, ts, r, bm[k]*(1+1e-12)); d > m {
				t.Errorf("trial %d, r = %v: bucket %v allowing %d delays %d", trial, r, bm[k], m, d)
			}
			if bm[k]*0.999 >= 1 {
				if d := delayedInBucket(t, ts, r, bm[k]*0.999); d <= m {
					t.Errorf("trial %d, r = %v: 0.999·%v still delays only %d <= %d", trial, r, bm[k], d, m)
				}
			}
		}
	}
}

// TestBurstNASA cross-checks b(r) with package buckets on the NASA trace.
func TestBurstNASA(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	ts := times(readAllArrivals(t, path, TraceOptions{TimeCol: "ts_unix"}))
	rates := []float64{0.7, 1, 2, 5, 20}
	m := int64(len(ts) / 100)
	c := burstOf(t, ts, rates, int(m+1))
	bs := c.Burst()
	bm, _ := c.BurstAllowing(m)
	for k, r := range rates {
		if d := delayedInBucket(t, ts, r, bs[k]*(1+1e-9)); d != 0 {
			t.Errorf("r = %v: b(r) = %v delays %d", r, bs[k], d)
		}
		if d := delayedInBucket(t, ts, r, bs[k]-1e-6); bs[k]-1e-6 >= 1 && d == 0 {
			t.Errorf("r = %v: b(r) - 1e-6 delays nobody", r)
		}
		if d := delayedInBucket(t, ts, r, bm[k]*(1+1e-9)); d > m {
			t.Errorf("r = %v: b = %v delays %d > %d", r, bm[k], d, m)
		}
		if d := delayedInBucket(t, ts, r, bm[k]-1e-6); bm[k]-1e-6 >= 1 && d <= m {
			t.Errorf("r = %v: b - 1e-6 = %v delays %d <= %d", r, bm[k]-1e-6, d, m)
		}
	}
	// At r = 20 > the 17 jobs of the busiest second, b is that second's 17 jobs.
	if bs[4] != 17 {
		t.Errorf("b(20) = %v, want 17 (the most jobs in one second)", bs[4])
	}
}

func TestBurstInvalid(t *testing.T) {
	for _, r := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := NewBurstCurve([]float64{r}, 0); err == nil {
			t.Errorf("rate %g: error = nil", r)
		}
	}
	if _, err := NewBurstCurve([]float64{1}, -1); err == nil {
		t.Error("keep -1: error = nil")
	}
	c := burstOf(t, []float64{1, 2}, []float64{1}, 0)
	before := slices.Clone(c.Burst())
	if err := c.Add(1.5); err == nil {
		t.Error("Add going back in time: error = nil")
	}
	if err := c.Add(math.NaN()); err == nil {
		t.Error("Add(NaN): error = nil")
	}
	if !slices.Equal(c.Burst(), before) || c.Jobs() != 2 {
		t.Error("a failed Add changed the curve")
	}
}
