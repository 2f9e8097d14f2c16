package buckets

import (
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// TestAdmitFCFSBatch: admitting every stride-th job of a batch with
// AdmitFCFSBatch leaves the bucket as AdmitFCFS one job at a time does,
// with the same waits, the same counts and the same total wait, for
// random rates, bursts, scales and instants; near 2^62 units it refuses
// the batch and leaves the bucket as it was.
func TestAdmitFCFSBatch(t *testing.T) {
	src := rand.New(rand.NewPCG(26, 3))
	for trial := range 500 {
		p := Params{Rate: exact.NewRat(int64(1+src.IntN(9)), int64(1+src.IntN(7))), Burst: exact.NewRat(int64(3+src.IntN(20)), int64(1+src.IntN(3)))}
		a, b := must(NewTokenBucket(p)), must(NewTokenBucket(p))
		x := engine.Time(src.IntN(1e9))
		for range 5 {
			n := 1 + src.IntN(40)
			ts := make([]engine.Time, n)
			for i := range ts {
				x += engine.Time(src.ExpFloat64() / float64(1+src.IntN(4)) * 1e9)
				ts[i] = x
			}
			stride, from := 1+src.IntN(3), src.IntN(3)
			waits := make([]int64, n)
			if !b.AdmitFCFSBatch(ts, from, stride, waits) {
				t.Fatalf("trial %d: batch refused at %v s", trial, x)
			}
			for i := from; i < n; i += stride {
				w, ok := a.AdmitFCFS(ts[i], exact.Mul64(int64(ts[i]), a.Scale()))
				if !ok || w != exact.I128(waits[i]) {
					t.Fatalf("trial %d job %d: batch wait %d, one at a time %v", trial, i, waits[i], w)
				}
			}
			if a.SaveFCFS() != b.SaveFCFS() || a.TotalWait() != b.TotalWait() {
				t.Fatalf("trial %d: states differ: %+v vs %+v", trial, a.SaveFCFS(), b.SaveFCFS())
			}
		}
	}
	// Near the guard: a job at 2^62 ns is left to AdmitFCFS.
	c := must(NewTokenBucket(Params{Rate: exact.Int(1), Burst: exact.Int(1)}))
	before := c.SaveFCFS()
	if c.AdmitFCFSBatch([]engine.Time{1 << 62}, 0, 1, make([]int64, 1)) || c.SaveFCFS() != before {
		t.Error("a batch at 2^62 ns was taken, or changed the bucket")
	}
}

// TestAdmitRoundRobinFCFS: one pass over a batch with round-robin
// dispatch leaves the one bucket and every sub-bucket as AdmitFCFS job by
// job does, with the same waits, for random splits (k = 1 to 8, rates of
// any denominator in one common scale) and starting sub-buckets; an
// instant out of order is refused with every bucket unchanged.
func TestAdmitRoundRobinFCFS(t *testing.T) {
	src := rand.New(rand.NewPCG(26, 5))
	for trial := range 300 {
		k := 1 + src.IntN(RoundRobinMax)
		one := Params{Rate: exact.NewRat(int64(1+src.IntN(9)), int64(1+src.IntN(7))), Burst: exact.NewRat(int64(3+src.IntN(20)), int64(1+src.IntN(3)))}
		ps := []Params{one}
		for range k {
			ps = append(ps, Params{Rate: exact.NewRat(int64(1+src.IntN(9)), int64(1+src.IntN(7))), Burst: exact.NewRat(int64(1+src.IntN(9)), 1)})
		}
		sc := must(CommonScale(ps...))
		build := func() []*TokenBucket {
			var bs []*TokenBucket
			for _, p := range ps {
				bs = append(bs, must(NewTokenBucket(p, WithScale(sc))))
			}
			return bs
		}
		a, b := build(), build()
		x := engine.Time(src.IntN(1e9))
		r0 := src.IntN(k)
		for range 4 {
			n := src.IntN(30)
			ts := make([]engine.Time, n)
			for i := range ts {
				x += engine.Time(src.ExpFloat64() / float64(1+src.IntN(4)) * 1e9)
				ts[i] = x
			}
			wa, wb := make([]int64, n), make([]int64, n)
			if !AdmitRoundRobinFCFS(b[0], b[1:], r0, ts, wa, wb) {
				t.Fatalf("trial %d: batch refused", trial)
			}
			for i, t0 := range ts {
				x := exact.Mul64(int64(t0), sc)
				w0, _ := a[0].AdmitFCFS(t0, x)
				w1, _ := a[1+(r0+i)%k].AdmitFCFS(t0, x)
				if w0 != exact.I128(wa[i]) || w1 != exact.I128(wb[i]) {
					t.Fatalf("trial %d job %d: waits %d, %d; one at a time %v, %v", trial, i, wa[i], wb[i], w0, w1)
				}
			}
			r0 = (r0 + n) % k
			for l := range a {
				if a[l].SaveFCFS() != b[l].SaveFCFS() || a[l].TotalWait() != b[l].TotalWait() {
					t.Fatalf("trial %d bucket %d: %+v, one at a time %+v", trial, l, b[l].SaveFCFS(), a[l].SaveFCFS())
				}
			}
		}
		saved := make([]FCFSState, len(b))
		for l := range b {
			saved[l] = b[l].SaveFCFS()
		}
		if AdmitRoundRobinFCFS(b[0], b[1:], r0, []engine.Time{x + 1, x}, make([]int64, 2), make([]int64, 2)) {
			t.Fatalf("trial %d: instants out of order taken", trial)
		}
		for l := range b {
			if b[l].SaveFCFS() != saved[l] {
				t.Fatalf("trial %d: a refused batch changed bucket %d", trial, l)
			}
		}
	}
}
