package buckets

import (
	"fmt"
	"math/big"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// TestFloorSum compares FloorSum with the sum term by term.
func TestFloorSum(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.Int64Range(0, 300).Draw(t, "n")
		m := rapid.Int64Range(1, 1000).Draw(t, "m")
		a := rapid.Int64Range(0, 5000).Draw(t, "a")
		b := rapid.Int64Range(0, 5000).Draw(t, "b")
		want := int64(0)
		for j := range n {
			want += (a*j + b) / m
		}
		got := FloorSum(big.NewInt(n), big.NewInt(m), big.NewInt(a), big.NewInt(b))
		if !got.IsInt64() || got.Int64() != want {
			t.Fatalf("FloorSum(%d, %d, %d, %d) = %v, want %d", n, m, a, b, got, want)
		}
		if got, ok := floorSum64(uint64(n), uint64(m), uint64(a), uint64(b)); !ok || got != uint64(want) {
			t.Fatalf("floorSum64(%d, %d, %d, %d) = %v, %v, want %d", n, m, a, b, got, ok, want)
		}
	})
}

// TestFloorSumLarge checks a case with 10^12 terms against its closed
// form: Σ_{j<n} floor(j/2) for even n is (n/2)·(n/2 - 1).
func TestFloorSumLarge(t *testing.T) {
	n := int64(1_000_000_000_000)
	got := FloorSum(big.NewInt(n), big.NewInt(2), big.NewInt(1), big.NewInt(0))
	h := big.NewInt(n / 2)
	want := new(big.Int).Mul(h, big.NewInt(n/2-1))
	if got.Cmp(want) != 0 {
		t.Fatalf("FloorSum(10^12, 2, 1, 0) = %v, want %v", got, want)
	}
}

// TestSpreadAt checks the instants of a spread by hand: 3 arrivals over
// [10, 20) ns are at 10 + floor(j·10/3) = 10, 13, 16; those of index 1
// and on with step 2 of 5 over [0, 7) at floor(j·7/5) for j = 1, 3: 1, 4.
func TestSpreadAt(t *testing.T) {
	s := Spread{Start: 10, Width: 10, Count: 3, Step: 1, N: 3}
	for i, want := range []engine.Time{10, 13, 16} {
		if got := s.At(int64(i)); got != want {
			t.Errorf("At(%d) = %v ns, want %v", i, int64(got), int64(want))
		}
	}
	s = Spread{Width: 7, Count: 5, First: 1, Step: 2, N: 2}
	for i, want := range []engine.Time{1, 4} {
		if got := s.At(int64(i)); got != want {
			t.Errorf("At(%d) = %v ns, want %v", i, int64(got), int64(want))
		}
	}
	if (Spread{Width: 7, Count: 5, First: 1, Step: 2, N: 3}).Valid() {
		t.Error("a spread whose last index 5 is not below its count 5 is valid")
	}
}

// TestAdmitSpreadBatch: a bucket (1 token/s, b = 3) full at 0 offered 5
// jobs at t = 2 s: the first 3 pass, the 4th waits 1 s and the 5th 2 s
// (one token a second), total 3 s.
func TestAdmitSpreadBatch(t *testing.T) {
	b, err := NewTokenBucket(params("1", "3"))
	if err != nil {
		t.Fatal(err)
	}
	w, ok := b.AdmitSpread(Spread{Start: 2 * engine.Second, Count: 5, Step: 1, N: 5})
	if !ok {
		t.Fatal("a batch is refused")
	}
	sc := big.NewInt(b.Scale() * 1e9)
	if w.Lo != 3 || w.Hi != 5 || !w.Rising {
		t.Fatalf("positive waits [%d, %d) rising %v, want [3, 5) rising", w.Lo, w.Hi, w.Rising)
	}
	for i, want := range []int64{1, 2} {
		if got := w.Wait(int64(3 + i)); got.Cmp(new(big.Int).Mul(sc, big.NewInt(want))) != 0 {
			t.Errorf("wait of job %d = %v units, want %d s", 3+i, got, want)
		}
	}
	if got := w.Sum(0, 5); got.Cmp(new(big.Int).Mul(sc, big.NewInt(3))) != 0 {
		t.Errorf("total %v units, want 3 s", got)
	}
}

// spreadCase draws a bucket and a spread offered after a prefix of
// arrivals, with gaps around one token's time so that both regimes (and
// the mixed one, which AdmitSpread refuses) come up.
type spreadCase struct {
	p      Params
	prefix []engine.Time
	s      Spread
}

func drawSpreadCase(t *rapid.T) spreadCase {
	// r = 1000·p/q tokens/s: one token every 10^6·q/p ns.
	p := rapid.Int64Range(1, 50).Draw(t, "p")
	q := rapid.Int64Range(1, 7).Draw(t, "q")
	bn := rapid.Int64Range(1, 9).Draw(t, "bn")
	bd := rapid.Int64Range(1, bn).Draw(t, "bd")
	par := params(fmt.Sprintf("%d/%d", 1000*p, q), fmt.Sprintf("%d/%d", bn, bd))
	tok := 1_000_000 * q / p // ns, rounded down
	var prefix []engine.Time
	at := engine.Time(0)
	for range rapid.IntRange(0, 20).Draw(t, "prefix") {
		at += engine.Time(rapid.Int64Range(0, 3*tok).Draw(t, "gap"))
		prefix = append(prefix, at)
	}
	count := rapid.Int64Range(1, 400).Draw(t, "count")
	var width int64
	switch rapid.IntRange(0, 3).Draw(t, "kind") {
	case 0: // a batch
	case 1: // around one token per arrival
		width = count*tok + rapid.Int64Range(-3, 3).Draw(t, "near")
	default:
		width = rapid.Int64Range(0, 3*count*tok).Draw(t, "width")
	}
	width = max(width, 0)
	step := rapid.Int64Range(1, 4).Draw(t, "step")
	first := rapid.Int64Range(0, step-1).Draw(t, "first")
	n := int64(0)
	if first < count {
		n = (count - first + step - 1) / step
	}
	n = rapid.Int64Range(0, n).Draw(t, "n")
	start := at + engine.Time(rapid.Int64Range(0, 2*tok).Draw(t, "after"))
	return spreadCase{p: par, prefix: prefix, s: Spread{Start: start, Width: width, Count: count, First: first, Step: step, N: n}}
}

// TestAdmitSpreadMatchesPerJob compares AdmitSpread with AdmitFCFS called
// per arrival: every wait, the bucket's state afterwards, the sums and
// counts of the waits. Where it refuses, the gaps must straddle 1/r and
// the bucket must be unchanged.
func TestAdmitSpreadMatchesPerJob(t *testing.T) {
	for _, big := range []bool{false, true} {
		t.Run(fmt.Sprintf("bigOnly=%v", big), func(t *testing.T) {
			defer func(b bool) { spreadBigOnly = b }(spreadBigOnly)
			spreadBigOnly = big
			rapid.Check(t, checkAdmitSpread)
		})
	}
}

// checkAdmitSpread is one case of TestAdmitSpreadMatchesPerJob.
func checkAdmitSpread(t *rapid.T) {
	c := drawSpreadCase(t)
	one, err := NewTokenBucket(c.p)
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := NewTokenBucket(c.p)
	for _, x := range c.prefix {
		one.AdmitFCFS(x, at(x, one.scale))
		ref.AdmitFCFS(x, at(x, ref.scale))
	}
	before := one.SaveFCFS()
	w, ok := one.AdmitSpread(c.s)
	if !ok {
		if one.SaveFCFS() != before {
			t.Fatal("a refused spread changed the bucket")
		}
		gmin, gmax := c.s.gaps()
		T := one.token.Big()
		lo := new(big.Int).Mul(big.NewInt(gmin), big.NewInt(one.scale))
		hi := new(big.Int).Mul(big.NewInt(gmax), big.NewInt(one.scale))
		if c.s.N >= 2 && lo.Cmp(T) < 0 && hi.Cmp(T) > 0 {
			return
		}
		t.Fatalf("refused a spread with gaps %d..%d ns and one token %v units at scale %d", gmin, gmax, T, one.scale)
	}
	waits := make([]*big.Int, c.s.N)
	for i := range c.s.N {
		x := c.s.At(i)
		wi, ok := ref.AdmitFCFS(x, at(x, ref.scale))
		if !ok {
			t.Fatalf("per-job admission %d beyond the clock", i)
		}
		waits[i] = wi.Big()
		inside := i >= w.Lo && i < w.Hi
		if inside && w.Wait(i).Cmp(waits[i]) != 0 || !inside && waits[i].Sign() != 0 {
			t.Fatalf("job %d at %v: wait %v, closed form %v (positive in [%d, %d))", i, int64(x), waits[i], w.Wait(i), w.Lo, w.Hi)
		}
	}
	if got, want := one.SaveFCFS(), ref.SaveFCFS(); got != want {
		t.Fatalf("state after %+v, per job %+v", got, want)
	}
	from := rapid.Int64Range(0, c.s.N).Draw(t, "from")
	to := rapid.Int64Range(from, c.s.N).Draw(t, "to")
	sum := new(big.Int)
	for _, x := range waits[from:to] {
		sum.Add(sum, x)
	}
	if got := w.Sum(from, to); got.Cmp(sum) != 0 {
		t.Fatalf("Sum(%d, %d) = %v, want %v", from, to, got, sum)
	}
	for i := from; i < to; i++ {
		if x, ok := w.Wait128(i); ok && i >= w.Lo && i < w.Hi && x.Big().Cmp(waits[i]) != 0 {
			t.Fatalf("Wait128(%d) = %v, want %v", i, x, waits[i])
		}
	}
}

// TestAdmitSpreadHuge: 10^12 jobs spread over one minute into a full
// bucket of 10^4 tokens/s (one token every 10^5 ns), b = 10: the first 10
// pass and job i >= 10 waits for token i - 9 of the refill less its
// arrival offset, w_i = (i - 9)·10^5 - floor(i·6·10^10/10^12) ns =
// (i - 9)·10^5 - floor(3i/50) ns. The total is checked against that
// closed form summed by whole periods of 50 jobs, the last wait by hand.
func TestAdmitSpreadHuge(t *testing.T) {
	b, err := NewTokenBucket(params("10000", "10"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1_000_000_000_000
	w, ok := b.AdmitSpread(Spread{Width: 60 * int64(engine.Second), Count: n, Step: 1, N: n})
	if !ok {
		t.Fatal("refused")
	}
	if w.Lo != 10 || w.Hi != n {
		t.Fatalf("positive waits [%d, %d), want [10, 10^12)", w.Lo, w.Hi)
	}
	sc := big.NewInt(b.Scale())
	// Σ_{i=10}^{n-1} (i - 9)·10^5 = 10^5·(n-9)(n-10)/2.
	m := new(big.Int).Mul(big.NewInt(n-10), big.NewInt(n-9))
	m.Rsh(m, 1)
	m.Mul(m, big.NewInt(1e5))
	// Σ_{i<n} floor(3i/50): with i = 50p + r, floor(3i/50) = 3p +
	// floor(3r/50); per period Σ_r floor(3r/50) (by the definition), and
	// Σ_p 3p·50 over the n/50 periods. The terms i < 10 are 0 (3i < 50).
	per := int64(0)
	for r := range int64(50) {
		per += 3 * r / 50
	}
	periods := int64(n / 50)
	fl := new(big.Int).Mul(big.NewInt(periods), big.NewInt(per))
	tri := new(big.Int).Mul(big.NewInt(periods), big.NewInt(periods-1))
	tri.Rsh(tri, 1)
	fl.Add(fl, tri.Mul(tri, big.NewInt(3*50)))
	want := new(big.Int).Sub(m, fl)
	want.Mul(want, sc)
	if got := w.Sum(0, n); got.Cmp(want) != 0 {
		t.Fatalf("total %v units, want %v", got, want)
	}
	// The last job: (10^12 - 10)·10^5 - floor((10^12 - 1)·3/50) ns.
	last := new(big.Int).Mul(big.NewInt(n-10), big.NewInt(1e5))
	last.Sub(last, big.NewInt((n-1)*3/50))
	if got := w.Wait(n - 1); got.Cmp(last.Mul(last, sc)) != 0 {
		t.Fatalf("last wait %v units, want %v", got, last)
	}
	if d := b.delayed; d != n-10 {
		t.Fatalf("delayed %d, want 10^12 - 10", d)
	}
}

// TestSpreadBeyondClock: 10^12 jobs in one minute into a full bucket of 1
// token/s, b = 10 (one token every 10^9 ns): job i >= 10 is released at
// F_i - b/r = (i - 9)·10^9 ns, the first at or beyond Forever = 2^63 - 1
// ns is i = 9 + ceil((2^63 - 1)/10^9) = 9 + 9223372037 = 9223372046; per
// job, AdmitFCFS refuses exactly that one first (checked on a bucket
// brought by a smaller spread to just before it).
func TestSpreadBeyondClock(t *testing.T) {
	b, err := NewTokenBucket(params("1", "10"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 1_000_000_000_000
	s := Spread{Width: 60 * int64(engine.Second), Count: n, Step: 1, N: n}
	i, ok := b.SpreadBeyondClock(s)
	if !ok || i != 9_223_372_046 {
		t.Fatalf("SpreadBeyondClock = %d, %v, want 9223372046", i, ok)
	}
	pre := s
	pre.N = i
	if _, ok := b.AdmitSpread(pre); !ok {
		t.Fatal("the jobs before it are refused")
	}
	x := s.At(i)
	if _, ok := b.AdmitFCFS(x, at(x, b.scale)); ok {
		t.Fatalf("job %d admitted on the clock", i)
	}
	fresh, _ := NewTokenBucket(params("1", "10"))
	if _, ok := fresh.SpreadBeyondClock(Spread{Width: 60 * int64(engine.Second), Count: n, Step: 1, N: 1000}); ok {
		t.Fatal("1000 jobs of the minute reported beyond the clock")
	}
}
