package profiles

import (
	"math/big"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/netcalc"
)

// curveAt returns α(d+) of a token bucket or a concave curve, d in ns.
func curveAt(t *testing.T, a netcalc.Arrival, d engine.Time) *big.Rat {
	t.Helper()
	ds := big.NewRat(int64(d), int64(engine.Second))
	switch a := a.(type) {
	case netcalc.TokenBucket:
		z := new(big.Rat).Mul(a.Rate.Big(), ds)
		return z.Add(z, a.Burst.Big())
	case netcalc.Concave:
		var m *big.Rat
		for _, tb := range a {
			if v := curveAt(t, tb, d); m == nil || v.Cmp(m) < 0 {
				m = v
			}
		}
		return m
	}
	t.Fatalf("curve %v of type %T", a, a)
	return nil
}

// TestArrivalCurveCoversPromise checks that every profile's arrival curve
// lies on or above its Promise, which TestPromise checks against measured
// streams, at lengths from 0 to 1000 emission intervals (including the
// instants just before and after the clock ticks and the refill periods),
// and that the curve's burst is no more than one job above the Promise just
// after 0 (the curve is the tight token bucket, not a loose one).
func TestArrivalCurveCoversPromise(t *testing.T) {
	for _, ps := range promiseSpecs {
		p := MustParse(ps.spec)
		a, ok := ArrivalCurve(p)
		if !ok {
			t.Errorf("%s: no arrival curve", ps.spec)
			continue
		}
		l := p.New().(interface{ Promise(engine.Time) float64 })
		var ds []engine.Time
		for _, base := range []engine.Time{0, ms, s1, ps.gap, 3 * ps.gap, 7 * ps.gap, 50 * ms, 70 * ms, 150 * ms, 250 * ms, 333 * ms, 60 * s1} {
			for k := engine.Time(0); k <= 1000; k = k*3 + 1 {
				for _, e := range []engine.Time{-1, 0, 1} {
					if d := k*base + e; d >= 0 {
						ds = append(ds, d)
					}
				}
			}
		}
		for _, d := range ds {
			pr := new(big.Rat).SetFloat64(l.Promise(d))
			if got := curveAt(t, a, d); got.Cmp(pr) < 0 {
				t.Errorf("%s: %v at d = %d ns is %s < Promise %s", ps.spec, a, d, got.FloatString(6), pr.FloatString(0))
				break
			}
		}
		at0 := curveAt(t, a, 0)
		p0 := new(big.Rat).SetFloat64(l.Promise(1))
		if slack := new(big.Rat).Sub(at0, p0); slack.Cmp(big.NewRat(1, 1)) > 0 {
			t.Errorf("%s: burst of %v is %s above the Promise just after 0, want <= 1 job", ps.spec, a, slack.FloatString(6))
		}
	}
}

// TestArrivalCurveHand checks curves worked out by hand from the
// libraries' conventions.
func TestArrivalCurveHand(t *testing.T) {
	for _, c := range []struct{ spec, want string }{
		// burst + limit·1 ns: 3 + 10/1e9 (x/time/rate's truncated wait).
		{"xrate:limit=10,burst=3", "γ(r=10, b=3.00000001)"},
		// max_burst + 1 back to back, then one per T = 1e9/7 ns truncated
		// to 142857142 ns.
		{"throttled:max_rate=7,max_burst=3", "γ(r=500000000/71428571, b=4)"},
		// burst + rate·1 µs: 10 + 10/1e6 on the microsecond clock.
		{"redis-rate:rate=10,burst=10", "γ(r=10, b=10.00001)"},
		// v9 rounds: half an emission more.
		{"redis-rate:rate=3,burst=2,period=1s,version=v9", "γ(r=3, b=2.500003)"},
		// slack + 1 after idle, one per 100 ms.
		{"uber:rate=10,slack=3", "γ(r=10, b=4)"},
		// max_tokens + tokens_per_fill across a fill, 2 per 150 ms.
		{"envoy-legacy:max_tokens=5,tokens_per_fill=2,fill_interval=150ms", "γ(r=40/3, b=7)"},
		// fill_rate = 3/0.07 as a float64, exactly.
		{"envoy:max_tokens=4,tokens_per_fill=3,fill_interval=70ms", "γ(r=42.85714285714285409767398959957063198089599609375, b=4)"},
		// 1 + burst + rate·1 ms with nodelay; 1r/m is 16 thousandths/s.
		{"nginx:rate=7r/m,burst=3,nodelay", "γ(r=0.116, b=4.000116)"},
		// delay + 1 + rate·1 ms when requests are delayed: 3 + 1 + 0.02.
		{"nginx:rate=20r/s,burst=8,delay=3", "γ(r=20, b=4.02)"},
		// capacity + 1 + 3·(1 ms / 1 s) on the millisecond meter.
		{"bucket4j-greedy:capacity=5,refill_tokens=3,refill_period=1s", "γ(r=3, b=6.003)"},
		// capacity + 4·(1 + 1 ms/250 ms): a window across a refill gets 4.
		{"bucket4j-interval:capacity=6,refill_tokens=4,refill_period=250ms", "γ(r=16, b=10.016)"},
		// (CBS + EBS + 1) bytes of size 1.
		{"srtcm:cir=10,cbs=3,ebs=4", "γ(r=10, b=8)"},
		{"trtcm:pir=20,pbs=4,cir=5,cbs=2,yellow=reject", "min(γ(r=20, b=5), γ(r=5, b=3))"},
		// SmoothBursty at 5/s: s = 200000 µs, maxPermits = 1 s·5 = 5
		// stored permits + 1 + 2/(s - 1) = 5 + 1 + 2/199999.
		{"guava-bursty:permits_per_second=5", "γ(r=1000000/199999, b=1199996/199999)"},
	} {
		a, ok := ArrivalCurve(MustParse(c.spec))
		if !ok || a.String() != c.want {
			t.Errorf("%s: ArrivalCurve = %v, %v; want %s", c.spec, a, ok, c.want)
		}
	}
	for _, spec := range []string{"srtcm:cir=10,cbs=3,ebs=4,red=admit", "xrate:limit=inf,burst=1"} {
		if a, ok := ArrivalCurve(MustParse(spec)); ok {
			t.Errorf("%s: ArrivalCurve = %v, want none (the library admits without bound)", spec, a)
		}
	}
}
