package arrivals

import (
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// bruteBurst is the definition b(r) = max over i <= j of
// (j - i + 1) - r(a_j - a_i): the most jobs in an interval [a_i, a_j]
// beyond what rate r serves in it, O(n²), in math/big.
func bruteBurst(ts []engine.Time, r exact.Rat) *big.Rat {
	rho := new(big.Rat).Quo(r.Big(), big.NewRat(1e9, 1)) // tokens per ns
	b := big.NewRat(1, 1)
	for i := range ts {
		for j := i; j < len(ts); j++ {
			x := new(big.Rat).Mul(rho, big.NewRat(int64(ts[j]-ts[i]), 1))
			x.Sub(big.NewRat(int64(j-i+1), 1), x)
			if x.Cmp(b) > 0 {
				b = x
			}
		}
	}
	return b
}

// delayedInBucket runs an exact FCFS token bucket (r tokens/s, b tokens),
// full at the start, on the arrival times and returns the number of jobs
// that waited: an independent oracle in math/big. Job i starts at the
// first instant s_i >= max(a_i, s_{i-1}) at which the bucket holds a
// token, and takes it; the bucket fills at r up to b.
func delayedInBucket(ts []engine.Time, r exact.Rat, b *big.Rat) int64 {
	rho := new(big.Rat).Quo(r.Big(), big.NewRat(1e9, 1)) // tokens per ns
	one := big.NewRat(1, 1)
	var delayed int64
	var prev, level *big.Rat // start of the previous job, tokens left after it
	for _, a := range ts {
		at := big.NewRat(int64(a), 1)
		if prev == nil {
			prev, level = at, new(big.Rat).Sub(b, one) // full: b >= 1 tokens
			continue
		}
		t0 := at
		if prev.Cmp(at) > 0 {
			t0 = prev
		}
		l := new(big.Rat).Mul(rho, new(big.Rat).Sub(t0, prev))
		l.Add(l, level)
		if l.Cmp(b) > 0 {
			l.Set(b)
		}
		start := t0
		if l.Cmp(one) < 0 { // wait for the token: (1 - level)/rho after prev
			start = new(big.Rat).Quo(new(big.Rat).Sub(one, level), rho)
			start.Add(start, prev)
			l.Set(one)
		}
		if start.Cmp(at) > 0 {
			delayed++
		}
		prev, level = start, l.Sub(l, one)
	}
	return delayed
}

func burstOf(t *testing.T, ts []engine.Time, rates []exact.Rat, keep int) *BurstCurve {
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

// rats parses exact rates.
func rats(ss ...string) []exact.Rat {
	var rs []exact.Rat
	for _, s := range ss {
		rs = append(rs, exact.MustParse(s))
	}
	return rs
}

// burstExacts returns b(r) and b allowing m delayed jobs exactly.
func burstExacts(t *testing.T, c *BurstCurve, m int64) (none, allowing []*big.Rat) {
	t.Helper()
	ys, err := c.allowing(m)
	if err != nil {
		t.Fatal(err)
	}
	for k := range c.rates {
		none = append(none, c.burstExact(k, c.rates[k].maxY))
		allowing = append(allowing, c.burstExact(k, ys[k]))
	}
	return none, allowing
}

// TestBurstHand: r = 2 tokens/s, jobs at 0, 0.5, 1, 1, 1 s. The unfinished
// work before each job, in tokens, is X = 0, max(0, 0+1-2·0.5) = 0,
// max(0, 0+1-2·0.5) = 0, 0+1 = 1, 1+1 = 2, so b(2) = 1 + 2 = 3: the
// three jobs at 1 s need three tokens (the interval [1, 1] has 3 jobs
// and rate 2 serves none of them in zero time). Allowing one delayed job,
// b = 1 + (second largest X = 1) = 2: only the fifth job (X = 2 > 1)
// waits. Four jobs at 0 with r = 1 need b = 4.
func TestBurstHand(t *testing.T) {
	const ms = engine.Millisecond
	ts := []engine.Time{0, 500 * ms, 1000 * ms, 1000 * ms, 1000 * ms}
	two := exact.Int(2)
	c := burstOf(t, ts, []exact.Rat{two}, 2)
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
		b    string
		want int64
	}{{"3", 0}, {"2.999", 1}, {"2", 1}, {"1.999", 2}} {
		if got := delayedInBucket(ts, two, exact.MustParse(tc.b).Big()); got != tc.want {
			t.Errorf("bucket (2, %v) delays %d jobs, want %d", tc.b, got, tc.want)
		}
	}
	if got := burstOf(t, []engine.Time{0, 0, 0, 0}, rats("1"), 0).Burst(); got[0] != 4 {
		t.Errorf("four jobs at 0: b(1) = %v, want 4", got[0])
	}
	if got := burstOf(t, nil, rats("1"), 0).Burst(); got[0] != 1 {
		t.Errorf("empty trace: b = %v, want 1", got[0])
	}
}

// TestBurstRandom compares the one-pass curve, exactly, with the O(n²)
// definition and with the exact bucket on random bursty traces (ties,
// bursts and long gaps, times on a 1 ms grid and at odd nanoseconds),
// for decimal rates and rates such as 1/3 that no decimal holds: b(r)
// lets no job wait and b(r) - 10^-15 makes one wait; allowing m delayed
// jobs, the curve's b keeps at most m waiting and b - 10^-15 more than m.
func TestBurstRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 34))
	eps := big.NewRat(1, 1e15)
	rates := rats("0.5", "1", "3.7", "10", "1/3", "10/7", "999.999")
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		ts := make([]engine.Time, n)
		x := engine.Time(0)
		for i := range ts {
			switch rng.IntN(5) {
			case 0: // a tie
			case 1:
				x += engine.Time(rng.IntN(5000)) * engine.Millisecond
			case 2:
				x += engine.Time(rng.Int64N(2e9)) // any nanosecond
			default:
				x += engine.Time(rng.IntN(300)) * engine.Millisecond
			}
			ts[i] = x
		}
		m := int64(rng.IntN(n))
		c := burstOf(t, ts, rates, int(m+1))
		bs, bm := burstExacts(t, c, m)
		floats := c.Burst()
		for k, r := range rates {
			if want := bruteBurst(ts, r); bs[k].Cmp(want) != 0 {
				t.Fatalf("trial %d, r = %v: b = %v, brute force %v (times %v)", trial, r, bs[k], want, ts)
			}
			if f, _ := bs[k].Float64(); floats[k] != f {
				t.Fatalf("trial %d, r = %v: Burst() = %v, want the float64 nearest %v", trial, r, floats[k], bs[k])
			}
			if d := delayedInBucket(ts, r, bs[k]); d != 0 {
				t.Errorf("trial %d, r = %v: bucket b(r) = %v delays %d jobs, want 0", trial, r, bs[k], d)
			}
			if less := new(big.Rat).Sub(bs[k], eps); less.Cmp(big.NewRat(1, 1)) >= 0 {
				if d := delayedInBucket(ts, r, less); d == 0 {
					t.Errorf("trial %d, r = %v: bucket b(r) - 1e-15 delays no job, so b(r) = %v is not the smallest", trial, r, bs[k])
				}
			}
			if d := delayedInBucket(ts, r, bm[k]); d > m {
				t.Errorf("trial %d, r = %v: bucket %v allowing %d delays %d", trial, r, bm[k], m, d)
			}
			if less := new(big.Rat).Sub(bm[k], eps); less.Cmp(big.NewRat(1, 1)) >= 0 {
				if d := delayedInBucket(ts, r, less); d <= m {
					t.Errorf("trial %d, r = %v: %v - 1e-15 still delays only %d <= %d", trial, r, bm[k], d, m)
				}
			}
		}
	}
}

// TestBurstPeriodic: a periodic trace at rate r conforms to (r, 1) when
// 1/r is a whole number of nanoseconds, and b(r) is then exactly 1 (a
// float64 clock and recursion gave values such as 1.0000000002). When 1/r
// is not, the arrivals are rounded up to the nanosecond by e_n < 1 ns and
// b(r) = 1 + r·max_{i<j}(e_i - e_j): for r = 3, e = 0, 2/3, 1/3, 0, ...
// ns, so b = 1 + 3·(2/3)·10^-9 = 1 + 2·10^-9; for r = 0.7, 1/r =
// 10^10/7 ns and 10^10 = 7·1428571428 + 4, so e_n is (-4n mod 7)/7 ns and
// runs through 0, 3/7, 6/7, 2/7, 5/7, 1/7, 4/7: b = 1 + 0.7·(6/7)·10^-9 =
// 1 + 6·10^-10.
func TestBurstPeriodic(t *testing.T) {
	for _, tc := range []struct {
		rate string
		want *big.Rat
	}{
		{"2", big.NewRat(1, 1)},
		{"10", big.NewRat(1, 1)},
		{"0.8", big.NewRat(1, 1)},
		{"3.2", big.NewRat(1, 1)},
		{"1000", big.NewRat(1, 1)},
		{"0.001", big.NewRat(1, 1)},
		// Spacings that are not whole nanoseconds are rounded up, so the
		// gaps stay equal and b(r) is still 1.
		{"3", big.NewRat(1, 1)},
		{"0.7", big.NewRat(1, 1)},
	} {
		r := exact.MustParse(tc.rate)
		p, _ := NewPeriodicRate(r, exact.Rat{})
		c, _ := NewBurstCurve([]exact.Rat{r}, 0)
		for range 100_000 {
			a, _ := p.Next()
			if err := c.Add(a.T); err != nil {
				t.Fatal(err)
			}
		}
		if got := c.burstExact(0, c.rates[0].maxY); got.Cmp(tc.want) != 0 {
			t.Errorf("periodic at rate %s: b = %v, want %v", tc.rate, got.FloatString(12), tc.want.FloatString(12))
		}
		if want, _ := tc.want.Float64(); c.Burst()[0] != want {
			t.Errorf("periodic at rate %s: Burst() = %v, want %v", tc.rate, c.Burst()[0], want)
		}
	}
}

// TestBurstNASA cross-checks b(r) with the exact bucket on the NASA trace.
func TestBurstNASA(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	ts := times(readAllArrivals(t, path, TraceOptions{TimeCol: "ts_unix"}))
	rates := rats("0.7", "1", "2", "5", "20")
	m := int64(len(ts) / 100)
	c := burstOf(t, ts, rates, int(m+1))
	bs, bm := burstExacts(t, c, m)
	eps := big.NewRat(1, 1e6)
	for k, r := range rates {
		if d := delayedInBucket(ts, r, bs[k]); d != 0 {
			t.Errorf("r = %v: b(r) = %v delays %d", r, bs[k], d)
		}
		if less := new(big.Rat).Sub(bs[k], eps); less.Cmp(big.NewRat(1, 1)) >= 0 && delayedInBucket(ts, r, less) == 0 {
			t.Errorf("r = %v: b(r) - 1e-6 delays nobody", r)
		}
		if d := delayedInBucket(ts, r, bm[k]); d > m {
			t.Errorf("r = %v: b = %v delays %d > %d", r, bm[k], d, m)
		}
		if less := new(big.Rat).Sub(bm[k], eps); less.Cmp(big.NewRat(1, 1)) >= 0 && delayedInBucket(ts, r, less) <= m {
			t.Errorf("r = %v: b - 1e-6 delays %d <= %d", r, delayedInBucket(ts, r, less), m)
		}
	}
	// At r = 20 > the 17 jobs of the busiest second, b is that second's 17 jobs.
	if b := c.Burst(); b[4] != 17 {
		t.Errorf("b(20) = %v, want 17 (the most jobs in one second)", b[4])
	}
}

func TestBurstInvalid(t *testing.T) {
	for _, r := range []exact.Rat{{}, exact.Int(-1)} {
		if _, err := NewBurstCurve([]exact.Rat{r}, 0); err == nil || !strings.Contains(err.Error(), "rate "+r.String()+" tokens/s") {
			t.Errorf("rate %v: error = %v, want one naming the rate", r, err)
		}
	}
	if _, err := NewBurstCurve(rats("1"), -1); err == nil {
		t.Error("keep -1: error = nil")
	}
	c := burstOf(t, []engine.Time{engine.Second, 2 * engine.Second}, rats("1"), 0)
	before := slices.Clone(c.Burst())
	if err := c.Add(1500 * engine.Millisecond); err == nil {
		t.Error("Add going back in time: error = nil")
	}
	if !slices.Equal(c.Burst(), before) || c.Jobs() != 2 {
		t.Error("a failed Add changed the curve")
	}
	// At a rate of 2^-62 tokens/s the scale is D = 2^62·1e9, about 2^92,
	// and a queue of 2^35 jobs would make Y = D·X leave 128 bits. Such a
	// queue (Y = 2^127 - 1) is set by hand; the error leaves the curve as
	// it was.
	c = burstOf(t, nil, []exact.Rat{exact.NewRat(1, 1<<62)}, 0)
	c.rates[0].y, _ = exact.FromBig(new(big.Int).Sub(new(big.Int).Lsh(big.NewInt(1), 127), big.NewInt(1)))
	c.n, c.last = 1, 0
	if err := c.Add(0); err == nil || !strings.Contains(err.Error(), "exceeds exact 128-bit arithmetic") {
		t.Errorf("overflowing queue: error = %v", err)
	}
	if c.n != 1 {
		t.Errorf("a failed Add counted the arrival")
	}
}
