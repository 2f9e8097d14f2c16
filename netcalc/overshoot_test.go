package netcalc

import (
	"math/big"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// bruteOvershoot is the oracle: every pair i <= j of instants, in big.Rat,
// scored against α((t_j − t_i)+) as the curve's window states it; an
// empty stream scores −α(0+) and 0.
func bruteOvershoot(ts []engine.Time, a Arrival) (excess, ratio *big.Rat) {
	if len(ts) == 0 {
		return new(big.Rat).Neg(a.window(new(big.Rat))), new(big.Rat)
	}
	for i := range ts {
		for j := i; j < len(ts); j++ {
			c := big.NewRat(int64(j-i+1), 1)
			bound := a.window(big.NewRat(int64(ts[j]-ts[i]), 1e9))
			e := new(big.Rat).Sub(c, bound)
			r := new(big.Rat).Quo(c, bound)
			if excess == nil || e.Cmp(excess) > 0 {
				excess = e
			}
			if ratio == nil || r.Cmp(ratio) > 0 {
				ratio = r
			}
		}
	}
	return excess, ratio
}

// checkOvershoot compares MeasureOvershoot with the oracle, and checks
// that the windows it names score what it reports.
func checkOvershoot(t *testing.T, ts []engine.Time, a Arrival) Overshoot {
	t.Helper()
	o, err := MeasureOvershoot(ts, a)
	if err != nil {
		t.Fatalf("%v on %v: %v", a, ts, err)
	}
	e, r := bruteOvershoot(ts, a)
	if o.Excess.Cmp(e) != 0 || o.Ratio.Cmp(r) != 0 {
		t.Fatalf("%v on %v: excess %v ratio %v, oracle %v and %v", a, ts, o.Excess, o.Ratio, e, r)
	}
	if len(ts) == 0 {
		return o
	}
	for _, w := range []Window{o.ExcessAt, o.RatioAt} {
		n := 0
		for _, x := range ts {
			if x >= w.From && x <= w.To {
				n++
			}
		}
		if n != w.Jobs || w.Bound.Cmp(a.window(big.NewRat(int64(w.D()), 1e9))) != 0 {
			t.Fatalf("%v on %v: window %+v holds %d instants, bound %v", a, ts, w, n, a.window(big.NewRat(int64(w.D()), 1e9)))
		}
	}
	ge := new(big.Rat).Sub(big.NewRat(int64(o.ExcessAt.Jobs), 1), o.ExcessAt.Bound)
	gr := new(big.Rat).Quo(big.NewRat(int64(o.RatioAt.Jobs), 1), o.RatioAt.Bound)
	if ge.Cmp(o.Excess) != 0 || gr.Cmp(o.Ratio) != 0 {
		t.Fatalf("%v on %v: the windows score %v and %v, not %v and %v", a, ts, ge, gr, o.Excess, o.Ratio)
	}
	return o
}

// TestOvershootOracle compares the exact overshoot with the O(n²) oracle
// on 3000 random small streams (bursts, ties and gaps on a coarse grid so
// that windows land on W and on b/r exactly) against token buckets,
// concave curves and staircases with integer and fractional parameters.
func TestOvershootOracle(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 1))
	curves := []Arrival{
		TokenBucket{Rate: exact.Int(10), Burst: exact.Int(1)},
		TokenBucket{Rate: exact.Int(10), Burst: exact.Int(3)},
		TokenBucket{Rate: exact.MustParse("7/3"), Burst: exact.MustParse("5/2")},
		TokenBucket{Rate: exact.Int(0), Burst: exact.Int(2)},
		Concave{{Rate: exact.Int(20), Burst: exact.Int(1)}, {Rate: exact.Int(5), Burst: exact.Int(4)}},
		Staircase{Jobs: 1, Window: exact.MustParse("0.1")},
		Staircase{Jobs: 3, Window: exact.MustParse("1/3")},
		Staircase{Jobs: 2, Window: exact.MustParse("0.25")},
	}
	for n := range 3000 {
		k := rng.IntN(25)
		ts := make([]engine.Time, k)
		var x engine.Time
		step := engine.Time(1 + rng.IntN(3)*int(engine.Second)/48) // includes 1 ns
		for i := range ts {
			if rng.IntN(4) > 0 {
				x += step * engine.Time(rng.IntN(12))
			}
			ts[i] = x
		}
		checkOvershoot(t, ts, curves[n%len(curves)])
	}
}

// TestOvershootHand checks cases worked by hand.
func TestOvershootHand(t *testing.T) {
	ms := engine.Millisecond
	// Periodic every 100 ms against L = 1 per W = 0.1 s: the sliding log's
	// output. Gaps of exactly W are not shorter than W, so α*(W−) = 1 and
	// the ratio is 1/1; at d = 0.3 s the promise is 1·(floor(3) + 1) = 4
	// and α* is 4 (excess 0).
	ts := []engine.Time{0, 100 * ms, 200 * ms, 300 * ms, 400 * ms}
	o := checkOvershoot(t, ts, Staircase{Jobs: 1, Window: exact.MustParse("0.1")})
	if o.Ratio.Cmp(big.NewRat(1, 1)) != 0 || o.Excess.Sign() != 0 {
		t.Errorf("periodic sliding log: ratio %v excess %v, want 1 and 0", o.Ratio, o.Excess)
	}
	// 96 jobs, the first at 0 and the last at 7.584 s, against γ(10, 20):
	// 20 + 10·7.584 = 95.84, so the excess is 0.16 jobs and the ratio
	// 96/95.84 = 600/599 (docs/commands.md's sync sweep at T = 0).
	ts = make([]engine.Time, 96)
	for i := range ts {
		ts[i] = engine.Time(int64(7584*ms) * int64(i) / 95)
	}
	o = checkOvershoot(t, ts, TokenBucket{Rate: exact.Int(10), Burst: exact.Int(20)})
	if o.Excess.Cmp(big.NewRat(4, 25)) != 0 || o.Ratio.Cmp(big.NewRat(600, 599)) != 0 || o.RatioAt.D() != 7584*ms {
		t.Errorf("96 in 7.584 s: excess %v ratio %v at %v, want 4/25, 600/599 at 7.584 s", o.Excess, o.Ratio, o.RatioAt.D())
	}
	// Fixed window L = 2, W = 1 s: 2 at 0.9 s and 2 at 1.0 s: 4 jobs in a
	// gap of 0.1 s, ratio 4/2 = 2, excess 2.
	o = checkOvershoot(t, []engine.Time{900 * ms, 900 * ms, 1000 * ms, 1000 * ms}, Staircase{Jobs: 2, Window: exact.Int(1)})
	if o.Ratio.Cmp(big.NewRat(2, 1)) != 0 || o.Excess.Cmp(big.NewRat(2, 1)) != 0 {
		t.Errorf("fixed-window edge: ratio %v excess %v, want 2 and 2", o.Ratio, o.Excess)
	}
	// Empty: excess −b, ratio 0.
	o = checkOvershoot(t, nil, TokenBucket{Rate: exact.Int(1), Burst: exact.Int(3)})
	if o.Excess.Cmp(big.NewRat(-3, 1)) != 0 || o.Ratio.Sign() != 0 {
		t.Errorf("empty: excess %v ratio %v, want -3 and 0", o.Excess, o.Ratio)
	}
}

// TestOvershootErrors checks the refused inputs.
func TestOvershootErrors(t *testing.T) {
	if _, err := MeasureOvershoot([]engine.Time{2, 1}, TokenBucket{Rate: exact.Int(1), Burst: exact.Int(1)}); err == nil {
		t.Error("instants out of order: no error")
	}
	if _, err := MeasureOvershoot([]engine.Time{1}, TokenBucket{Rate: exact.Int(1), Burst: exact.Int(0)}); err == nil {
		t.Error("burst 0: no error")
	}
}

// TestOvershootMeterMemory: the meter keeps the lower hull of its points,
// not the stream: 2 points for a periodic stream, and for 10^5 Poisson
// instants (rate 9 against γ(10, 20)) a few dozen (the hull of a random
// walk has O(log n) vertices in expectation; 200 is a loose bound).
func TestOvershootMeterMemory(t *testing.T) {
	tb := TokenBucket{Rate: exact.Int(10), Burst: exact.Int(20)}
	periodic, _ := NewOvershootMeter(tb)
	poisson, _ := NewOvershootMeter(tb)
	rng := rand.New(rand.NewPCG(1, 1))
	var x float64
	for i := range 100_000 {
		if err := periodic.Add(engine.Time(i) * 100 * engine.Millisecond); err != nil {
			t.Fatal(err)
		}
		x += rng.ExpFloat64() / 9
		if err := poisson.Add(engine.Time(x * 1e9)); err != nil {
			t.Fatal(err)
		}
	}
	if h := len(periodic.bs[0].hull); h != 2 {
		t.Errorf("periodic: hull of %d points, want 2", h)
	}
	if h := len(poisson.bs[0].hull); h > 200 {
		t.Errorf("Poisson: hull of %d points, want O(log n)", h)
	}
	t.Logf("Poisson: hull of %d points", len(poisson.bs[0].hull))
}
