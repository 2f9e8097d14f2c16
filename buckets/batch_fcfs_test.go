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
