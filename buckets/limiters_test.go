package buckets

import (
	"errors"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Independent window oracles in math/big rationals of seconds.

// fixedOracle admits a job while fewer than L jobs were admitted in the
// window floor((t - off)/W).
func fixedOracle(p WindowParams, ts []engine.Time) []bool {
	var out []bool
	counts := map[string]int64{}
	for _, x := range ts {
		q := new(big.Rat).Sub(nsRat(x), p.Offset.Big())
		q.Quo(q, p.Window.Big())
		k := new(big.Int).Div(q.Num(), q.Denom()).String() // floor for a positive denominator
		ok := counts[k] < p.Limit
		if ok {
			counts[k]++
		}
		out = append(out, ok)
	}
	return out
}

// logOracle admits a job while fewer than L admitted jobs lie in (t - W, t].
func logOracle(p WindowParams, ts []engine.Time) []bool {
	var out []bool
	var adm []*big.Rat
	for _, x := range ts {
		t := nsRat(x)
		from := new(big.Rat).Sub(t, p.Window.Big())
		in := int64(0)
		for _, a := range adm {
			if a.Cmp(from) > 0 {
				in++
			}
		}
		ok := in < p.Limit
		if ok {
			adm = append(adm, t)
		}
		out = append(out, ok)
	}
	return out
}

// counterOracle evaluates p·(W - e)/W + c < L with big rationals, windows
// counted by index.
func counterOracle(p WindowParams, ts []engine.Time) []bool {
	var out []bool
	counts := map[string]int64{}
	for _, x := range ts {
		q := new(big.Rat).Sub(nsRat(x), p.Offset.Big())
		q.Quo(q, p.Window.Big())
		k := new(big.Int).Div(q.Num(), q.Denom())
		start := new(big.Rat).Mul(new(big.Rat).SetInt(k), p.Window.Big())
		start.Add(start, p.Offset.Big())
		e := new(big.Rat).Sub(nsRat(x), start)
		prev := counts[new(big.Int).Sub(k, big.NewInt(1)).String()]
		curr := counts[k.String()]
		est := new(big.Rat).Sub(p.Window.Big(), e)
		est.Mul(est, big.NewRat(prev, 1)).Quo(est, p.Window.Big()).Add(est, big.NewRat(curr, 1))
		ok := est.Cmp(big.NewRat(p.Limit, 1)) < 0
		if ok {
			counts[k.String()]++
		}
		out = append(out, ok)
	}
	return out
}

var gridWindows = []string{"0.1", "1", "2.5", "60", "1/3", "0.001"}

func randWindow(src *rand.Rand) WindowParams {
	w := rat(gridWindows[src.IntN(len(gridWindows))])
	off := exact.Rat{}
	if src.IntN(2) == 0 {
		// an offset on a grid of W/4
		off = must(w.Mul(exact.NewRat(int64(src.IntN(4)), 4)))
	}
	return WindowParams{Limit: int64(1 + src.IntN(4)), Window: w, Offset: off}
}

// TestWindowsAgainstOracles: fixed window, sliding log and sliding counter
// decide as the big-rational oracles on decimal-grid instances (times on
// 1 ms, 0.1 s and 1 s grids, many ties, some at Unix-epoch instants;
// windows 0.1 s, 1/3 s, 2.5 s, ...).
func TestWindowsAgainstOracles(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 1))
	for n := range 3000 {
		in := randInstance(src, 1+src.IntN(40))
		p := randWindow(src)
		for _, c := range []struct {
			name   string
			l      Limiter
			oracle func(WindowParams, []engine.Time) []bool
		}{
			{"fixed window", must(NewFixedWindow(p)), fixedOracle},
			{"sliding log", must(NewSlidingLog(p)), logOracle},
			{"sliding counter", must(NewSlidingCounter(p)), counterOracle},
		} {
			want := c.oracle(p, in.times)
			for i, x := range in.times {
				if got := c.l.Offer(x, int64(i)).Admitted(); got != want[i] {
					t.Fatalf("instance %d %s %+v: job %d at %v s admitted %v, oracle %v", n, c.name, p, i, x, got, want[i])
				}
			}
		}
	}
}

// TestWindowIssueCase: limit 1 per 0.1 s, arrivals 0, 0.2, 0.3: 0.3 starts
// a new window (edges at 0, 0.1, 0.2, 0.3 exactly), and in the log the
// job of 0.2 is exactly 0.1 s old at 0.3, so out of (0.2, 0.3]: all three
// are admitted by both.
func TestWindowIssueCase(t *testing.T) {
	p := WindowParams{Limit: 1, Window: rat("0.1")}
	ts := secs("0", "0.2", "0.3")
	for name, l := range map[string]Limiter{"fixed": must(NewFixedWindow(p)), "log": must(NewSlidingLog(p))} {
		if got := admitted(l, ts); len(got) != 3 {
			t.Errorf("%s window admits %v, want all of %v", name, got, ts)
		}
	}
}

// TestWindowRetryAfter: a job rejected at t and offered again RetryAfter
// later passes, and 1 ns earlier would not have.
func TestWindowRetryAfter(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 2))
	for range 1500 {
		in := randInstance(src, 1+src.IntN(20))
		p := randWindow(src)
		builders := map[string]func() Limiter{
			"fixed":   func() Limiter { return must(NewFixedWindow(p)) },
			"log":     func() Limiter { return must(NewSlidingLog(p)) },
			"counter": func() Limiter { return must(NewSlidingCounter(p)) },
		}
		for name, build := range builders {
			for i, x := range in.times {
				replay := func(extra engine.Time) Verdict {
					l := build()
					for j, y := range in.times[:i] {
						l.Offer(y, int64(j))
					}
					if extra < 0 {
						return l.Offer(x, int64(i)).Verdict
					}
					return l.Offer(extra, int64(i)).Verdict
				}
				l := build()
				for j, y := range in.times[:i] {
					l.Offer(y, int64(j))
				}
				d := l.Offer(x, int64(i))
				if d.Verdict != Reject {
					continue
				}
				if d.RetryAfter <= 0 {
					t.Fatalf("%s %+v: rejected at %v s with RetryAfter %v", name, p, x, d.RetryAfter)
				}
				if v := replay(x + d.RetryAfter); v == Reject {
					t.Fatalf("%s %+v: rejected at %v s; retry after %v s is rejected again", name, p, x, d.RetryAfter)
				}
				if d.RetryAfter > 1 {
					if v := replay(x + d.RetryAfter - 1); v != Reject {
						t.Fatalf("%s %+v: rejected at %v s, retry after %v s, but 1 ns earlier gives %v", name, p, x, d.RetryAfter, v)
					}
				}
			}
		}
	}
}

// TestAligned: windows of 60 s aligned to the Unix epoch for a trace whose
// first arrival is at 1700000010 s, 30 s past a whole minute (1699999980 =
// 28333333·60): in run time the edges are at 30 s, 90 s, ...; so two jobs
// at run times 29 s and 30 s fall in different windows with limit 1.
func TestAligned(t *testing.T) {
	p := WindowParams{Limit: 1, Window: rat("60")}
	a := must(p.Aligned(1700000010 * int64(engine.Second)))
	if a.Offset.Cmp(rat("30")) != 0 {
		t.Fatalf("aligned offset %v, want 30 s", a.Offset)
	}
	f := must(NewFixedWindow(a))
	if got := admitted(f, secs("29", "30", "89.999999999")); !slices.Equal(got, secs("29", "30")) {
		t.Errorf("admitted %v, want 29 s and 30 s", got)
	}
	// Offset 10 s and an origin 5 ns before a whole minute (1700000040 =
	// 28333334·60): (10 + 5e-9) mod 60.
	b := must(WindowParams{Limit: 1, Window: rat("60"), Offset: rat("10")}.Aligned(1700000040*int64(engine.Second) - 5))
	if b.Offset.Cmp(rat("10.000000005")) != 0 {
		t.Errorf("aligned offset %v, want 10.000000005 s", b.Offset)
	}
}

// TestSlidingCounterSteps: L = 2 jobs per W = 10 s, edges at 10k s.
//
//	t = 9     window 0 (no previous count): 0 < 2 and 1 < 2 pass, 2 < 2 not
//	t = 10    window 1, e = 0, p = 2: estimate 2·10/10 + 0 = 2, not < 2:
//	          rejected (on an edge the previous window counts in full)
//	t = 12.5  e = 2.5: 2·7.5/10 + 0 = 1.5 < 2 passes; then 1.5 + 1 = 2.5 not
//	t = 15    e = 5: 2·5/10 + 1 = 2, not < 2: rejected
//	t = 15.5  e = 5.5: 2·4.5/10 + 1 = 1.9 < 2: passes
//	t = 35    window 3, after the empty window 2: p = 0, passes
func TestSlidingCounterSteps(t *testing.T) {
	c := must(NewSlidingCounter(WindowParams{Limit: 2, Window: rat("10")}))
	runSteps(t, "sliding counter", c, []step{
		{"9", Admit, ""}, {"9", Admit, ""}, {"9", Reject, ""},
		{"10", Reject, ""},
		{"12.5", Admit, ""}, {"12.5", Reject, ""},
		{"15", Reject, ""},
		{"15.5", Admit, ""},
	})
	// Estimate at 16 s: 2·(10 - 6)/10 + 2 = 2.8.
	if e := c.Estimate(sec("16")); e.Cmp(rat("2.8")) != 0 {
		t.Errorf("Estimate(16) = %v, want 2.8", e)
	}
	runSteps(t, "sliding counter", c, []step{{"35", Admit, ""}})
}

// boundaryCase is the adversarial boundary pattern for L = 4 jobs per
// W = 4 s: 4 jobs at 3 s, 4 at 5 s, and 4 spread over (5, 7] at 5.25,
// 5.75, 6.25 and 6.75 s.
func boundaryCase() []engine.Time {
	return secs("3", "3", "3", "3", "5", "5", "5", "5", "5.25", "5.75", "6.25", "6.75")
}

// TestSlidingCounterHandCase is the hand-computed overshoot of the sliding
// window counter on the boundary pattern above (L = 4, W = 4 s). Window
// [0, 4) admits the 4 jobs at 3 s. In window [4, 8), p = 4, and a job at
// 4 + e passes iff 4·(4 - e)/4 + c < 4, i.e. c < e:
//
//	5     e = 1     c = 0 < 1 passes; c = 1 < 1 does not (3 rejected)
//	5.25  e = 1.25  1 < 1.25 passes
//	5.75  e = 1.75  2 < 1.75 no
//	6.25  e = 2.25  2 < 2.25 passes
//	6.75  e = 2.75  3 < 2.75 no
//
// So 7 jobs pass, all in [3, 6.25], an interval of 3.25 s < W where the
// promise is L = 4: α*(3.25 s) = 7, an overshoot of 7/4. The same arrivals
// through the fixed window give 8, through the sliding log 4, through the
// policing bucket r = L/W = 1, b = 4: 7 (4 at 3 s, 2 at 5 s, one at 6.25 s
// with 1.25 tokens).
func TestSlidingCounterHandCase(t *testing.T) {
	win := WindowParams{Limit: 4, Window: rat("4")}
	rel := admitted(must(NewSlidingCounter(win)), boundaryCase())
	if want := secs("3", "3", "3", "3", "5", "5.25", "6.25"); !slices.Equal(rel, want) {
		t.Fatalf("sliding counter admits %v, want %v", rel, want)
	}
	pts := must(MeasureArrivalCurve(rel, secs("0", "1", "2", "2.25", "3", "3.25", "3.5", "3.875")))
	for i, want := range []int{4, 4, 5, 6, 6, 7, 7, 7} {
		if pts[i].Jobs != want {
			t.Errorf("α*(%v s) = %d, want %d", pts[i].D, pts[i].Jobs, want)
		}
	}
	for _, c := range []struct {
		name string
		l    Limiter
		n    int
	}{
		{"fixed window", must(NewFixedWindow(win)), 8},
		{"sliding log", must(NewSlidingLog(win)), 4},
		{"policing bucket", must(NewTokenBucket(params("1", "4"), WithPolicing())), 7},
	} {
		if got := len(admitted(c.l, boundaryCase())); got != c.n {
			t.Errorf("%s admits %d, want %d", c.name, got, c.n)
		}
	}
}

// TestWindowPromises: the sliding log keeps L·(floor(d/W) + 1), the fixed
// window stays within L·(floor(d/W) + 2), the sliding counter within
// L + ceil(L·d/W) for d < W (derived in its documentation), on
// decimal-grid instances.
func TestWindowPromises(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 3))
	for range 1000 {
		in := randInstance(src, 1+src.IntN(80))
		p := randWindow(src)
		wns := p.Window.Float64() * 1e9
		ds := []engine.Time{0, engine.Time(wns / 2), engine.Time(wns) - 1, engine.Time(wns), engine.Time(2.5 * wns)}
		for _, c := range []struct {
			name  string
			l     Limiter
			bound func(d float64) float64
		}{
			{"log", must(NewSlidingLog(p)), func(d float64) float64 { return float64(p.Limit) * (math.Floor(d/wns) + 1) }},
			{"fixed", must(NewFixedWindow(p)), func(d float64) float64 { return float64(p.Limit) * (math.Floor(d/wns) + 2) }},
			{"counter", must(NewSlidingCounter(p)), func(d float64) float64 {
				if d >= wns {
					return math.Inf(1)
				}
				return float64(p.Limit) + math.Ceil(float64(p.Limit)*d/wns)
			}},
		} {
			pts := must(MeasureArrivalCurve(admitted(c.l, in.times), ds))
			for _, pt := range pts {
				if float64(pt.Jobs) > c.bound(float64(pt.D)) {
					t.Fatalf("%s %+v: α*(%v s) = %d > %v", c.name, p, pt.D, pt.Jobs, c.bound(float64(pt.D)))
				}
			}
		}
	}
}

// TestGCRAEqualsPolicing: GCRA(1/r, (b - 1)/r) and the policing token
// bucket (r, b) decide identically, and as the explicit-token oracle, on
// decimal-grid instances, ties included.
func TestGCRAEqualsPolicing(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 4))
	for range 3000 {
		in := randInstance(src, 1+src.IntN(40))
		g := must(NewGCRA(MatchGCRA(in.p)))
		b := must(NewTokenBucket(in.p, WithPolicing()))
		o := newBucketOracle(in.p, 0, false)
		for i, x := range in.times {
			dg, db := g.Offer(x, int64(i)), b.Offer(x, int64(i))
			want := o.offer(nsRat(x), int64(i))
			if dg.Admitted() != want || db.Admitted() != want || dg.RetryAfter != db.RetryAfter {
				t.Fatalf("%v job %d at %v s: GCRA %+v, bucket %+v, oracle admits %v", in.p, i, x, dg, db, want)
			}
		}
	}
}

// TestGCRASteps: GCRA(T = 1 s, τ = 2 s) is the bucket (1, 3): three jobs at
// 0 pass (TAT 1, 2, 3), the fourth finds TAT - τ = 1 > 0 and is told to
// retry in 1 s; at 1 s TAT - τ = 1: passes (TAT 4).
func TestGCRASteps(t *testing.T) {
	p := MatchGCRA(params("1", "3"))
	if p.Interval.Cmp(rat("1")) != 0 || p.Tolerance.Cmp(rat("2")) != 0 {
		t.Fatalf("MatchGCRA(1, 3) = %+v", p)
	}
	g := must(NewGCRA(p))
	for i, c := range []struct {
		at    string
		v     Verdict
		retry engine.Time
	}{{"0", Admit, 0}, {"0", Admit, 0}, {"0", Admit, 0}, {"0", Reject, engine.Second}, {"1", Admit, 0}} {
		if d := g.Offer(sec(c.at), int64(i)); d.Verdict != c.v || d.RetryAfter != c.retry {
			t.Errorf("step %d: %+v, want %v retry %v", i, d, c.v, c.retry)
		}
	}
	if tat := g.TAT(); tat.Cmp(waitSecs("4")) != 0 {
		t.Errorf("TAT = %v ns, want 4 s", tat)
	}
	if _, err := NewGCRA(GCRAParams{Interval: rat("0")}); !errors.Is(err, ErrParam) {
		t.Errorf("interval 0: %v", err)
	}
}

// TestLeakySteps: rate 2 jobs/s, queue 2: three jobs at 0 leave at 0, 0.5
// and 1 s; a fourth finds 2 waiting and is rejected. At 0.5 s one job has
// left: a job then leaves at 1.5 s.
func TestLeakySteps(t *testing.T) {
	l := must(NewLeakyBucket(LeakyParams{Rate: rat("2"), Queue: 2}))
	runSteps(t, "leaky", l, []step{
		{"0", Admit, ""}, {"0", Delay, "0.5"}, {"0", Delay, "1"}, {"0", Reject, ""},
		{"0.5", Delay, "1"},
	})
	if _, err := NewLeakyBucket(LeakyParams{Rate: rat("2"), Queue: -1}); !errors.Is(err, ErrParam) {
		t.Errorf("queue -1: %v", err)
	}
}

// TestLeakyAgainstRecursion: the leaky bucket's releases follow
// D_i = max(a_i, D_{i-1} + 1/R), computed here with big rationals.
func TestLeakyAgainstRecursion(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 5))
	for range 1000 {
		in := randInstance(src, 1+src.IntN(40))
		l := must(NewLeakyBucket(LeakyParams{Rate: in.p.Rate}))
		inv := new(big.Rat).Inv(in.p.Rate.Big())
		var dep *big.Rat
		for i, x := range in.times {
			a := nsRat(x)
			d := new(big.Rat).Set(a)
			if dep != nil {
				if next := new(big.Rat).Add(dep, inv); next.Cmp(a) > 0 {
					d = next
				}
			}
			dep = d
			got := l.Offer(x, int64(i))
			wait := new(big.Rat).Sub(d, a)
			if waitRat(got.Wait).Cmp(wait) != 0 {
				t.Fatalf("rate %v job %d at %v s: wait %v s, recursion %v s", in.p.Rate, i, x, waitRat(got.Wait), wait)
			}
		}
	}
}

// TestThrottleAdmission: the response function for Soft = 2, Hard = 6
// tokens of deficit is 1 up to 2, then (6 - δ)/4: 0.75 at 3, 0.5 at 4,
// 0.25 at 5, and 0 from 6. With Soft = Hard = 3 it is the cliff.
func TestThrottleAdmission(t *testing.T) {
	ramp := ThrottleParams{Rate: rat("1"), Burst: rat("10"), Soft: rat("2"), Hard: rat("6")}
	cliff := ThrottleParams{Rate: rat("1"), Burst: rat("10"), Soft: rat("3"), Hard: rat("3")}
	for _, c := range []struct {
		p       ThrottleParams
		deficit string
		want    float64
	}{
		{ramp, "0", 1}, {ramp, "2", 1}, {ramp, "3", 0.75}, {ramp, "4", 0.5}, {ramp, "5", 0.25}, {ramp, "6", 0}, {ramp, "9", 0},
		{cliff, "3", 1}, {cliff, "3.000000001", 0},
	} {
		if got := c.p.Admission(rat(c.deficit)); got != c.want {
			t.Errorf("%+v: Admission(%v) = %v, want %v", c.p, c.deficit, got, c.want)
		}
	}
}

// TestThrottleCliffIsPolicing: with Soft = Hard = b - 1 the throttle admits
// a job iff the bucket holds at least one token, as the policing bucket,
// on decimal-grid instances.
func TestThrottleCliffIsPolicing(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 6))
	for range 2000 {
		in := randInstance(src, 1+src.IntN(40))
		top := must(in.p.Burst.Sub(exact.Int(1)))
		th := must(NewThrottle(ThrottleParams{Rate: in.p.Rate, Burst: in.p.Burst, Soft: top, Hard: top}, nil))
		b := must(NewTokenBucket(in.p, WithPolicing()))
		for i, x := range in.times {
			if dt, db := th.Offer(x, int64(i)), b.Offer(x, int64(i)); dt.Verdict != db.Verdict {
				t.Fatalf("%v job %d at %v s: throttle %v, policing bucket %v", in.p, i, x, dt.Verdict, db.Verdict)
			}
		}
	}
}

// TestThrottleProbability: at a fixed deficit δ the throttle admits with
// probability p(δ). Soft = 2, Hard = 6, b = 10, r = 1: each of n = 100000
// trials starts a throttle, takes δ tokens at 0 with Soft = Hard = b - 1
// impossible, so instead offers δ jobs at 0 to reach deficit δ (all
// admitted while δ <= Soft, then with probability p). To avoid that
// dependence, the state is set directly: the deficit δ is the G/D/1 finish
// δ/r. The standard error of the admitted fraction is at most
// sqrt(0.25/n) = 0.0016, so a tolerance of 0.01 (more than 6 standard
// errors) fails by chance with probability below 1e-9; the seed is fixed.
func TestThrottleProbability(t *testing.T) {
	const n = 100000
	src := rand.NewPCG(1, 1)
	p := ThrottleParams{Rate: rat("1"), Burst: rat("10"), Soft: rat("2"), Hard: rat("6")}
	for _, c := range []struct {
		deficit int64
		p       float64
	}{{1, 1}, {3, 0.75}, {4, 0.5}, {5, 0.25}, {6, 0}} {
		th := must(NewThrottle(p, src))
		adm := 0
		for range n {
			th.finish, _ = th.token.Mul64OK(c.deficit)
			if th.Offer(0, 0).Admitted() {
				adm++
			}
		}
		if got := float64(adm) / n; math.Abs(got-c.p) > 0.01 {
			t.Errorf("deficit %d: admitted fraction %v, want %v ± 0.01", c.deficit, got, c.p)
		}
	}
}

// TestThrottlePromise: what the throttle admits never exceeds b + r·d.
func TestThrottlePromise(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 7))
	for range 500 {
		in := randInstance(src, 1+src.IntN(80))
		top := must(in.p.Burst.Sub(exact.Int(1)))
		soft := must(top.Mul(exact.NewRat(1, 3)))
		th := must(NewThrottle(ThrottleParams{Rate: in.p.Rate, Burst: in.p.Burst, Soft: soft, Hard: top}, rand.NewPCG(2, 2)))
		ds := secs("0", "0.5", "1", "3", "10", "40")
		for _, pt := range must(MeasureArrivalCurve(admitted(th, in.times), ds)) {
			// α*(d) <= b + r·d, exactly: compare with big rationals.
			bound := new(big.Rat).Mul(in.p.Rate.Big(), nsRat(pt.D))
			bound.Add(bound, in.p.Burst.Big())
			if big.NewRat(int64(pt.Jobs), 1).Cmp(bound) > 0 {
				t.Fatalf("%v: α*(%v s) = %d > b + r·d = %v", in.p, pt.D, pt.Jobs, bound.FloatString(3))
			}
		}
	}
}

func TestThrottleParamErrors(t *testing.T) {
	for _, p := range []ThrottleParams{
		{Rate: rat("0"), Burst: rat("4")},
		{Rate: rat("1"), Burst: rat("4"), Soft: rat("1"), Hard: rat("3.5")}, // hard > b - 1
		{Rate: rat("1"), Burst: rat("4"), Soft: rat("2"), Hard: rat("1")},   // soft > hard
		{Rate: rat("1"), Burst: rat("4"), Soft: rat("-1"), Hard: rat("1")},
	} {
		if _, err := NewThrottle(p, rand.NewPCG(1, 1)); !errors.Is(err, ErrParam) {
			t.Errorf("NewThrottle(%+v): err = %v, want ErrParam", p, err)
		}
	}
	if _, err := NewThrottle(ThrottleParams{Rate: rat("1"), Burst: rat("4"), Soft: rat("1"), Hard: rat("2")}, nil); !errors.Is(err, ErrParam) {
		t.Error("a ramp without a random source must fail")
	}
}

// TestArrivalCurveBruteForce compares MeasureArrivalCurve with a count over
// every pair of instants.
func TestArrivalCurveBruteForce(t *testing.T) {
	src := rand.New(rand.NewPCG(11, 8))
	for range 300 {
		in := randInstance(src, src.IntN(60))
		ds := []engine.Time{0, engine.Millisecond, 100 * engine.Millisecond, engine.Second, 3 * engine.Second}
		pts := must(MeasureArrivalCurve(in.times, ds))
		for k, d := range ds {
			best := 0
			for _, s := range in.times {
				n := 0
				for _, x := range in.times {
					if x >= s && x <= s+d {
						n++
					}
				}
				best = max(best, n)
			}
			if pts[k].Jobs != best {
				t.Fatalf("α*(%v) = %d, brute force %d", d, pts[k].Jobs, best)
			}
		}
	}
	if _, err := MeasureArrivalCurve(secs("1", "0"), nil); !errors.Is(err, ErrOrder) {
		t.Errorf("decreasing instants: %v", err)
	}
}

// TestWindowPromiseExact checks floor(d/W) in exact arithmetic: 0.3 s is
// 3 windows of 0.1 s (float64 division gives 2.9999999999999996), so
// L·(3 + 1) = 4 for L = 1; 1 ns less is 2 windows and 3 jobs; 1/3 s at
// W = 1/3 s is one window (2·L = 4 for L = 2).
func TestWindowPromiseExact(t *testing.T) {
	for _, c := range []struct {
		p    WindowParams
		d    engine.Time
		want float64
	}{
		{WindowParams{Limit: 1, Window: exact.MustParse("0.1")}, 300 * engine.Millisecond, 4},
		{WindowParams{Limit: 1, Window: exact.MustParse("0.1")}, 300*engine.Millisecond - 1, 3},
		{WindowParams{Limit: 2, Window: exact.MustParse("1/3")}, 333333333, 2},
		{WindowParams{Limit: 2, Window: exact.MustParse("1/3")}, 333333334, 4},
		{WindowParams{Limit: 5, Window: exact.MustParse("60")}, -1, 5},
	} {
		if got := c.p.Promise(c.d); got != c.want {
			t.Errorf("L = %d, W = %v s: Promise(%d ns) = %v, want %v", c.p.Limit, c.p.Window, c.d, got, c.want)
		}
	}
}
