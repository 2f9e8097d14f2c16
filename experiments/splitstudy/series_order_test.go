package splitstudy

import (
	"context"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/oracle"
)

// TestSeriesSameUnderEveryOrder: N(t), Σ N_l(t), S(t) = ∫N and S^(k)(t)
// do not depend on the service order (every order is work-conserving),
// so the series of random instances are identical under FCFS, LIFO and
// random order, and equal to the definition S(t) = Σ_i min(max(0, t -
// a_i), d_i) and N(t) = #{i : a_i <= t < a_i + d_i} computed from the
// waits of internal/oracle's token buckets (math/big, one event at a
// time, FCFS). The sub-bucket of each job is drawn (dispatch column), so
// that the oracle can serve the split too.
func TestSeriesSameUnderEveryOrder(t *testing.T) {
	rates := []string{"1", "3/2", "2", "7/3", "1/3"}
	delayed := 0 // instances in which the split delays some job
	for inst := range 60 {
		rng := rand.New(rand.NewPCG(uint64(inst), 15))
		k := 2 + rng.IntN(3)
		one := pp(rates[rng.IntN(len(rates))], fmt.Sprint(k*(1+rng.IntN(3))))
		subs, err := buckets.EqualSplit(one, k)
		if err != nil {
			t.Fatal(err)
		}
		n := 1 + rng.IntN(60)
		times := make([]engine.Time, n)
		sub := make([]int, n)
		var ms int64
		for i := range times {
			ms += int64(rng.IntN(900)) // a 1 ms grid, about 2 jobs a second
			times[i] = engine.Time(ms) * engine.Millisecond
			sub[i] = rng.IntN(k)
		}
		opt := SeriesOptions{Samples: 50, From: 0, To: 1e6}
		var first *Series
		for _, order := range []buckets.Order{buckets.FCFS, buckets.LIFO, buckets.Random} {
			spec := RunSpec{One: one, Subs: subs, Dispatch: "column", Order: order, Seed: uint64(inst)}
			_, ser, err := RunSeries(context.Background(), spec, &sliceProc{times: times, subs: sub}, nil, opt)
			if err != nil {
				t.Fatal(err)
			}
			if first == nil {
				first = ser
				if ser.SSplit[len(ser.SSplit)-1] > 0 {
					delayed++
				}
				checkSeriesOracle(t, inst, one, subs, times, sub, ser)
				continue
			}
			ser.One, ser.Split = experiments.Distribution{}, experiments.Distribution{} // the order changes the per-job delays
			want := *first
			want.One, want.Split = experiments.Distribution{}, experiments.Distribution{}
			if diff := cmp.Diff(want, *ser); diff != "" {
				t.Fatalf("instance %d, %v order: series differ from FCFS (-fcfs +%v):\n%s", inst, order, order, diff)
			}
		}
	}
	if delayed < 30 {
		t.Errorf("only %d of 60 instances delay a job in the split: the test checks little", delayed)
	}
}

// checkSeriesOracle compares ser, from the FCFS run, with the definitions
// of S(t) and N(t) over the oracle's waits.
func checkSeriesOracle(t *testing.T, inst int, one buckets.Params, subs []buckets.Params, times []engine.Time, sub []int, ser *Series) {
	t.Helper()
	arr := map[int64]*big.Rat{}
	bucket := func(p buckets.Params) *oracle.Bucket {
		return oracle.NewBucket(p.Rate.Big(), p.Burst.Big(), -1, false)
	}
	a := bucket(one)
	bs := make([]*oracle.Bucket, len(subs))
	for l, p := range subs {
		bs[l] = bucket(p)
	}
	for i, x := range times {
		arr[int64(i)] = big.NewRat(int64(x), 1e9)
		a.Offer(arr[int64(i)], int64(i))
		bs[sub[i]].Offer(arr[int64(i)], int64(i))
	}
	a.Drain()
	splitWaits := map[int64]*big.Rat{}
	for _, b := range bs {
		b.Drain()
		for id, w := range b.Waits {
			splitWaits[id] = w
		}
	}
	for i, x := range ser.T {
		at := big.NewRat(int64(math.Round(x*1e9)), 1e9)
		s, _ := oracle.Accrued(at, arr, a.Waits).Float64()
		sk, _ := oracle.Accrued(at, arr, splitWaits).Float64()
		if math.Abs(ser.S[i]-s) > 1e-9*(1+s) || math.Abs(ser.SSplit[i]-sk) > 1e-9*(1+sk) {
			t.Fatalf("instance %d: S(%v) = %v, S^(k) = %v; the definition gives %v, %v", inst, x, ser.S[i], ser.SSplit[i], s, sk)
		}
	}
	// N(x) by the definition, x in ns, the releases rounded up to the
	// nanosecond as the drivers make them.
	release := func(id int, waits map[int64]*big.Rat) int64 {
		ns := new(big.Rat).Mul(waits[int64(id)], big.NewRat(1e9, 1))
		up := new(big.Int).Add(ns.Num(), new(big.Int).Sub(ns.Denom(), big.NewInt(1)))
		return int64(times[id]) + up.Quo(up, ns.Denom()).Int64()
	}
	waiting := func(x int64, waits map[int64]*big.Rat) int {
		c := 0
		for id, a := range times {
			if int64(a) <= x && x < release(id, waits) {
				c++
			}
		}
		return c
	}
	// At every arrival and release the step function has the value of the
	// definition.
	for id, at := range times {
		for _, x := range []int64{int64(at), release(id, a.Waits), release(id, splitWaits)} {
			i := sort.Search(len(ser.StepT), func(i int) bool { return int64(math.Round(ser.StepT[i]*1e9)) > x }) - 1
			gn, gk := 0, 0 // no step yet: nothing has waited
			if i >= 0 {
				gn, gk = ser.N[i], ser.NSplit[i]
			}
			if n, nk := waiting(x, a.Waits), waiting(x, splitWaits); gn != n || gk != nk {
				t.Fatalf("instance %d: the steps miss a change at %d ns: want N = %d, Σ N_l = %d (step %d of %v)", inst, x, n, nk, i, ser.StepT)
			}
		}
	}
	for i, x := range ser.StepT {
		ns := int64(math.Round(x * 1e9))
		if n, nk := waiting(ns, a.Waits), waiting(ns, splitWaits); ser.N[i] != n || ser.NSplit[i] != nk {
			t.Fatalf("instance %d: step %d at %v: N = %d, Σ N_l = %d; the definition gives %d, %d", inst, i, x, ser.N[i], ser.NSplit[i], n, nk)
		}
		if i > 0 && ser.N[i] == ser.N[i-1] && ser.NSplit[i] == ser.NSplit[i-1] {
			t.Errorf("instance %d: step %d at %v changes nothing", inst, i, x)
		}
	}
}
