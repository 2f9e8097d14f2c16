package netcalc_test

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// TestConformsSteps: hand-counted windows.
func TestConformsSteps(t *testing.T) {
	const ms = engine.Millisecond
	tests := []struct {
		name string
		ts   []engine.Time
		a    netcalc.Arrival
		ok   bool
		want netcalc.Violation
	}{
		{
			// Three jobs at one instant against a burst of 2: the window
			// [0, 0] of length 0 holds 3 > α(0+) = 2.
			name: "ties", ts: []engine.Time{0, 0, 0}, a: tb("1", "2"),
			want: netcalc.Violation{First: 0, Last: 2, Length: q("0"), Jobs: 3, Bound: q("2")},
		},
		{
			// γ(1, 1): [0, 0.5] holds 2 > 1 + 0.5.
			name: "token bucket", ts: []engine.Time{0, 500 * ms, 1000 * ms}, a: tb("1", "1"),
			want: netcalc.Violation{First: 0, Last: 1, Length: q("0.5"), Jobs: 2, Bound: q("1.5")},
		},
		{
			// The same stream spaced by 1 s conforms, the windows holding
			// k+1 jobs in k seconds: 1 + k.
			name: "spaced", ts: []engine.Time{0, 1000 * ms, 2000 * ms}, a: tb("1", "1"), ok: true,
		},
		{
			// A fixed-window limiter of 2 jobs per aligned second admits
			// 0.9 and 0.95 in [0, 1) and 1.0 and 1.05 in [1, 2); the first
			// window past the staircase L·(floor(d/W)+1) = 2 is [0.9, 1.0]
			// with 3 jobs.
			name: "fixed window", ts: []engine.Time{900 * ms, 950 * ms, 1000 * ms, 1050 * ms}, a: netcalc.Staircase{Jobs: 2, Window: q("1")},
			want: netcalc.Violation{First: 0, Last: 2, Length: q("0.1"), Jobs: 3, Bound: q("2")},
		},
		{
			// The window ends with all jobs at its last instant: the scan
			// finds a violation at job 1 (2 jobs in [0, 0.5] > 1 + 0.5),
			// the window takes job 2 too, and the latest violating start is
			// then 0.5 itself (2 jobs at one instant > α(0+) = 1).
			name: "end instant", ts: []engine.Time{0, 500 * ms, 500 * ms}, a: tb("1", "1"),
			want: netcalc.Violation{First: 1, Last: 2, Length: q("0"), Jobs: 2, Bound: q("1")},
		},
		{
			// A dual bucket: the peak bucket γ(10, 1) forbids 2 jobs 50 ms
			// apart (1 + 0.5), though the sustained γ(1, 5) allows them.
			name: "dual", ts: []engine.Time{0, 50 * ms}, a: netcalc.Concave{tb("10", "1"), tb("1", "5")},
			want: netcalc.Violation{First: 0, Last: 1, Length: q("0.05"), Jobs: 2, Bound: q("1.5")},
		},
		{name: "empty", a: tb("1", "1"), ok: true},
	}
	for _, tt := range tests {
		v, ok, err := netcalc.Conforms(tt.ts, tt.a)
		if err != nil || ok != tt.ok || !ok && !sameViolation(v, tt.want) {
			t.Errorf("%s: Conforms = %+v, %v, %v; want %+v, %v", tt.name, v, ok, err, tt.want, tt.ok)
		}
	}
}

func TestConformsErrors(t *testing.T) {
	if _, _, err := netcalc.Conforms([]engine.Time{1, 0}, tb("1", "1")); err == nil || !strings.Contains(err.Error(), "instant 1") {
		t.Errorf("out of order: error %v", err)
	}
	if _, _, err := netcalc.Conforms([]engine.Time{0}, nil); err == nil {
		t.Error("nil curve: no error")
	}
	if _, _, err := netcalc.ConformsSeconds([]exact.Rat{q("0")}, netcalc.Staircase{Jobs: 1}); err == nil || !strings.Contains(err.Error(), "window 0") {
		t.Errorf("zero window: error %v", err)
	}
}

// TestConformsMatchesBruteForce compares Conforms with bruteViolation,
// which counts every closed window between two instants (O(n²)) against
// the curve evaluated from its definition, on random streams with ties
// and random curves; both the verdict and the first window must agree.
func TestConformsMatchesBruteForce(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 6))
	runs := 3000
	if testing.Short() {
		runs = 500
	}
	var conforming, violating int
	for range runs {
		a := randArrival(src)
		ts := randStream(src, 1+src.IntN(40), engine.Time(1+src.IntN(300))*engine.Millisecond)
		if src.IntN(2) == 0 {
			ts = police(ts, a) // conforming streams, and their near misses below
			if len(ts) > 1 && src.IntN(2) == 0 {
				i := 1 + src.IntN(len(ts)-1)
				ts[i] -= engine.Time(1 + src.IntN(int(ts[i]-ts[i-1])+1))
				ts[i] = max(ts[i], ts[i-1])
			}
		}
		want, wantBad := bruteViolation(secondsOfNanos(ts), a)
		got, ok, err := netcalc.Conforms(ts, a)
		if err != nil {
			t.Fatal(err)
		}
		if ok == wantBad || wantBad && !sameViolation(got, want) {
			t.Fatalf("%v on %v: Conforms = %+v, %v; brute force %+v, conforms %v", a, ts, got, ok, want, !wantBad)
		}
		if ok {
			conforming++
		} else {
			violating++
		}
	}
	if conforming < runs/5 || violating < runs/5 {
		t.Errorf("unbalanced cases: %d conforming, %d violating", conforming, violating)
	}
}

// TestConformsSecondsMatchesBruteForce is the same on exact instants with
// denominators up to 12, so that windows and bounds meet exactly.
func TestConformsSecondsMatchesBruteForce(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 7))
	runs := 2000
	if testing.Short() {
		runs = 300
	}
	for range runs {
		a := randArrival(src)
		ts := make([]exact.Rat, 1+src.IntN(30))
		for i := 1; i < len(ts); i++ {
			ts[i] = ts[i-1]
			if src.IntN(3) > 0 {
				ts[i], _ = ts[i].Add(randRat(src, 0, 1, 12))
			}
		}
		want, wantBad := bruteViolation(bigs(ts), a)
		got, ok, err := netcalc.ConformsSeconds(ts, a)
		if err != nil {
			t.Fatal(err)
		}
		if ok == wantBad || wantBad && !sameViolation(got, want) {
			t.Fatalf("%v on %v: ConformsSeconds = %+v, %v; brute force %+v, conforms %v", a, ts, got, ok, want, !wantBad)
		}
	}
}

// TestRoundedStreamNeedsSlack: a greedy stream whose instants are not
// whole nanoseconds, rounded up to the nanosecond (as the engine delivers a
// limiter's events), may violate γ_{r,b} but conforms to γ_{r, b + r·1e-9},
// as Conforms' documentation says. For γ(3, 1): 1/3 s and 2/3 s round to
// 333333334 and 666666667 ns, 2 jobs in 333333333 ns > 1 + 3·0.333333333.
func TestRoundedStreamNeedsSlack(t *testing.T) {
	ns := big.NewRat(1, int64(engine.Second))
	round := func(ts []exact.Rat) []engine.Time {
		out := make([]engine.Time, len(ts))
		for i, x := range ts {
			c, _ := x.Mul(exact.Int(int64(engine.Second)))
			out[i] = engine.Time(c.Ceil().Int64())
		}
		return out
	}
	a := tb("3", "1")
	ts, _ := netcalc.Greedy(a, 10)
	v, ok, _ := netcalc.Conforms(round(ts), a)
	if ok || v.First != 1 || v.Last != 2 || v.Length.Cmp(q("0.333333333")) != 0 {
		t.Errorf("rounded greedy γ(3, 1): %+v, %v; want the window of jobs 1..2, 0.333333333 s", v, ok)
	}
	src := rand.New(rand.NewPCG(1, 8))
	for range 300 {
		a := randArrival(src)
		c, concave := a.(netcalc.Concave)
		if b, isTB := a.(netcalc.TokenBucket); isTB {
			c, concave = netcalc.Concave{b}, true
		}
		if !concave {
			continue
		}
		ts, err := netcalc.Greedy(c, 50)
		if err != nil {
			continue
		}
		slack := make(netcalc.Concave, len(c))
		for i, b := range c {
			extra, _ := ratOfBig(new(big.Rat).Mul(b.Rate.Big(), ns))
			slack[i] = netcalc.TokenBucket{Rate: b.Rate}
			slack[i].Burst, _ = b.Burst.Add(extra)
		}
		if v, ok, err := netcalc.Conforms(round(ts), slack); !ok || err != nil {
			t.Fatalf("%v rounded up: violates %v: %+v, %v", c, slack, v, err)
		}
	}
}

func ratOfBig(z *big.Rat) (exact.Rat, error) { return exact.ParseRat(z.RatString()) }

// BenchmarkConforms checks a stream of 100000 jobs, 1 ms apart, against a
// dual token bucket and a staircase.
func BenchmarkConforms(b *testing.B) {
	ts := make([]engine.Time, 100000)
	for i := range ts {
		ts[i] = engine.Time(i) * engine.Millisecond
	}
	for _, a := range []netcalc.Arrival{
		netcalc.Concave{tb("2000", "5"), tb("1000", "100")},
		netcalc.Staircase{Jobs: 1000, Window: q("1")},
	} {
		b.Run(a.String(), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := netcalc.Conforms(ts, a); !ok || err != nil {
					b.Fatal("does not conform")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ts)), "ns/job")
		})
	}
}

// BenchmarkServe serves 100000 jobs 1 ms apart at 3000 jobs/s.
func BenchmarkServe(b *testing.B) {
	ts := make([]engine.Time, 100000)
	for i := range ts {
		ts[i] = engine.Time(i) * engine.Millisecond
	}
	s := rl("3000", "0.001")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.Serve(ts); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(len(ts)), "ns/job")
}
