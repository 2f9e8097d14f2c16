package systems

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/oracle"
)

// TestLowerBoundSound: the bound of D = S^(k) - S the certificates use
// (Check.lowerBound) never exceeds the true minimum of D over (x0, x1],
// computed by the definition (internal/oracle's buckets, S as the delay
// accrued by every job, at every grant, arrival and end of the interval,
// where a piecewise linear D has its minima), on random round-robin FCFS
// instances with Σ r_l = r (Σ b_l >= b: D may fall), at light loads and
// in overload, with 0 to 5 arrivals in the interval, or up to 60 in long
// busy periods.
func TestLowerBoundSound(t *testing.T) {
	src := rand.New(rand.NewPCG(26, 2))
	draw := func(lo, hi int) int { return lo + src.IntN(hi-lo+1) }
	tight := 0
	for trial := range 1200 {
		heavy := trial%8 == 3 // long busy periods: 200 jobs at a load near 1.7
		// With the one bucket's burst below Σ b_l (InflateBurst; the bounds
		// need Σ r_l = r only) D decreases where the one bucket queues
		// more than the split.
		in := GenInstance(draw, GenConfig{MaxK: 4, MaxJobs: 80, Orders: []buckets.Order{buckets.FCFS}, InflateBurst: trial%3 != 0})
		if heavy {
			in.Times, in.Sub = make([]engine.Time, 200), make([]int, 200)
		}
		if len(in.Times) < 3 {
			continue
		}
		tok, _ := exact.Int(1000).Quo(in.One.Rate) // ms per token
		if trial%2 == 1 {
			x := int64(0)
			for i := range in.Times {
				if heavy {
					x += int64(draw(0, int(tok.Float64()*6/5)))
				} else {
					x += int64(draw(0, int(tok.Float64()*8/5)))
				}
				in.Times[i] = engine.Time(x) * engine.Millisecond
			}
		}
		k := len(in.Subs)
		p := must(NewSplit(SplitSpec{One: in.One, Subs: in.Subs, Dispatch: "rr", AllowUnequal: true}))
		one, subs, c := p.A.tbs[0], p.B.tbs, p.check
		scale := one.Scale()
		admit := func(i int) {
			ts := exact.Mul64(int64(in.Times[i]), scale)
			one.AdmitFCFS(in.Times[i], ts)
			subs[i%k].AdmitFCFS(in.Times[i], ts)
		}
		N := len(in.Times)
		m := draw(1, N-1)
		if heavy {
			m = draw(N/2, N-1)
		}
		for i := range m {
			admit(i)
		}
		nArr := draw(0, min(5, N-m))
		if heavy {
			nArr = draw(0, min(60, N-m))
		}
		units := func(t engine.Time) exact.Int128 { return exact.Mul64(int64(t), scale) }
		x0 := units(in.Times[m-1])
		if nArr == 0 {
			x0 = x0.Add64(int64(draw(0, int(in.Times[m]-in.Times[m-1]))) * scale)
		}
		s0 := one.State().Accrued(x0)
		nOne := one.State().Waiting(x0)
		var sk0 exact.Int128
		var left []int64
		for _, b := range subs {
			sk0 = sk0.Add(b.State().Accrued(x0))
			left = append(left, b.State().Waiting(x0))
		}
		for i := m; i < m+nArr; i++ {
			admit(i)
		}
		// x1 in [the last arrival counted, the next arrival]
		lo := in.Times[m+nArr-1]
		hi := lo + 30*engine.Second
		if m+nArr < N {
			hi = in.Times[m+nArr]
		}
		x1 := units(lo + engine.Time(draw(0, int(hi-lo))))
		if !x0.Less(x1) {
			continue
		}
		c.last = x0
		bound := c.lowerBound(x0, x1, sk0, s0, nOne, left, int64(nArr))
		slope := c.slopeBound(x0, x1, sk0, s0, nOne, left, int64(nArr))

		// The definition, on the first m + nArr jobs.
		ob := oracle.NewBucket(in.One.Rate.Big(), in.One.Burst.Big(), -1, false)
		os := make([]*oracle.Bucket, k)
		for l, q := range in.Subs {
			os[l] = oracle.NewBucket(q.Rate.Big(), q.Burst.Big(), -1, false)
		}
		arr := map[int64]*big.Rat{}
		for i := range m + nArr {
			a := big.NewRat(int64(in.Times[i]), 1e9)
			ob.Offer(a, int64(i))
			os[i%k].Offer(a, int64(i))
			arr[int64(i)] = a
		}
		ob.Drain()
		splitWaits := map[int64]*big.Rat{}
		cands := append([]*big.Rat{}, ob.Grants...)
		for _, o := range os {
			o.Drain()
			cands = append(cands, o.Grants...)
			for id, w := range o.Waits {
				splitWaits[id] = w
			}
		}
		for _, a := range arr {
			cands = append(cands, a)
		}
		toSec := func(x exact.Int128) *big.Rat {
			return new(big.Rat).SetFrac(x.Big(), big.NewInt(scale*1e9))
		}
		a, b := toSec(x0), toSec(x1)
		cands = append(cands, a, b)
		var minD *big.Rat
		for _, x := range cands {
			if x.Cmp(a) < 0 || x.Cmp(b) > 0 {
				continue
			}
			d := new(big.Rat).Sub(oracle.Accrued(x, arr, splitWaits), oracle.Accrued(x, arr, ob.Waits))
			if minD == nil || d.Cmp(minD) < 0 {
				minD = d
			}
		}
		if got := toSec(slope); got.Cmp(minD) > 0 {
			t.Fatalf("trial %d (%d jobs, k = %d, %d arrivals in (%v, %v] s): slope bound %v s above the minimum of D, %v s",
				trial, N, k, nArr, a.FloatString(3), b.FloatString(3), got.FloatString(6), minD.FloatString(6))
		}
		if got := toSec(bound); got.Cmp(minD) > 0 {
			t.Fatalf("trial %d (%d jobs, k = %d, %d arrivals in (%v, %v] s): bound %v s above the minimum of D, %v s",
				trial, N, k, nArr, a.FloatString(3), b.FloatString(3), got.FloatString(6), minD.FloatString(6))
		} else if got.Cmp(minD) == 0 {
			tight++
		}
	}
	if tight == 0 {
		t.Error("the bound never met the minimum: the test shows nothing of its tightness")
	}
}
