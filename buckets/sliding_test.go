package buckets

import (
	"slices"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestSlidingLogSteps: L = 2 jobs in any (t - 10 s, t]. Two jobs at 0 fill
// it; at 5 s both are still inside: rejected. At 10 s they leave (0 + 10 <=
// 10, the window is open on the left): two pass, a third is rejected, and
// so is one at 19.99 s. At 20 s the jobs of 10 s leave: admitted.
func TestSlidingLogSteps(t *testing.T) {
	l, err := NewSlidingLog(WindowParams{Limit: 2, Window: 10})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "sliding log", Limiter[engine.Time](l), []offerStep[engine.Time]{
		{0, true, 0}, {0, true, 0}, {5, false, 0},
		{10, true, 0}, {10, true, 0}, {10, false, 0},
		{19.99, false, 0}, {20, true, 0},
	})
	expectPanic(t, "sliding log Offer before an admitted job", func() { l.Offer(15) })
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
	c, err := NewSlidingCounter(WindowParams{Limit: 2, Window: 10})
	if err != nil {
		t.Fatal(err)
	}
	runSteps(t, "sliding counter", Limiter[engine.Time](c), []offerStep[engine.Time]{
		{9, true, 0}, {9, true, 0}, {9, false, 0},
		{10, false, 0},
		{12.5, true, 0}, {12.5, false, 0},
		{15, false, 0},
		{15.5, true, 0},
	})
	// Estimate at 16 s: 2·(10 - 6)/10 + 2 = 2.8.
	if e := c.Estimate(16); e != 2.8 {
		t.Errorf("Estimate(16) = %v, want 2.8", e)
	}
	runSteps(t, "sliding counter", Limiter[engine.Time](c), []offerStep[engine.Time]{{35, true, 0}})
}

// boundaryCase is the adversarial boundary pattern for L = 4 jobs per
// W = 4 s, one cycle around the edge at 4 s, with a gap δ = 1 s and a
// stream of 4 jobs: 4 jobs at 4 - δ = 3 s, 4 at 4 + δ = 5 s, and 4 spread
// over (5, 7] at the midpoints of four slots of 0.5 s: 5.25, 5.75, 6.25,
// 6.75 s.
func boundaryCase() []engine.Time {
	return slices.Concat(repeat(3, 4), repeat(5, 4), []engine.Time{5.25, 5.75, 6.25, 6.75})
}

// TestSlidingCounterHandCase is the hand-computed overshoot of the
// sliding window counter on the boundary pattern above (L = 4, W = 4 s).
// Window [0, 4) admits the 4 jobs at 3 s (no previous count). In window
// [4, 8), p = 4, and a job at 4 + e passes iff 4·(4 - e)/4 + c < 4, i.e.
// c < e:
//
//	5     e = 1     c = 0 < 1 passes; c = 1 < 1 does not (3 rejected)
//	5.25  e = 1.25  1 < 1.25 passes
//	5.75  e = 1.75  2 < 1.75 no
//	6.25  e = 2.25  2 < 2.25 passes
//	6.75  e = 2.75  3 < 2.75 no
//
// So 7 jobs pass, all of them in [3, 6.25], an interval of 3.25 s < W
// where the promise is L = 4: α*(3.25 s) = 7, an overshoot of 7/4 = 1.75
// (within the documented bound L + ceil(L·d/W) = 4 + 4 = 8). Shorter
// intervals: α*(2 s) = 5 ([3, 5]), α*(2.25 s) = 6 ([3, 5.25]).
//
// The same arrivals through the fixed window give 8 (4 at 3 s and 4 at
// 5 s; α*(2 s) = 8 = 2L); through the sliding log 4 (the jobs of 3 s fill
// (t - 4, t] until 7 s); through the policing bucket r = L/W = 1, b = 4,
// 7: 4 at 3 s, 2 at 5 s (2 tokens accrued), none at 5.25 (0.25 token) or
// 5.75 (0.75), one at 6.25 (1.25), none at 6.75 (0.75): α*(d) <= 4 + d.
func TestSlidingCounterHandCase(t *testing.T) {
	win := WindowParams{Limit: 4, Window: 4}
	ds := []engine.Time{0, 1, 2, 2.25, 3, 3.25, 3.5, 3.875}
	c, _ := NewSlidingCounter(win)
	rel := offerAll(c, boundaryCase())
	if want := slices.Concat(repeat(3, 4), []engine.Time{5, 5.25, 6.25}); !slices.Equal(rel, want) {
		t.Fatalf("sliding counter admits %v, want %v", rel, want)
	}
	pts, _ := MeasureArrivalCurve(rel, ds)
	wantJobs := []int{4, 4, 5, 6, 6, 7, 7, 7}
	worst, worstD := 0.0, engine.Time(0)
	for i, pt := range pts {
		if pt.Jobs != wantJobs[i] {
			t.Errorf("α*(%v) = %d, want %d", pt.D, pt.Jobs, wantJobs[i])
		}
		if r := float64(pt.Jobs) / c.Promise(pt.D); r > worst {
			worst, worstD = r, pt.D
		}
	}
	if worst != 1.75 || worstD != 3.25 {
		t.Errorf("worst overshoot %v at d = %v s, want 1.75 at 3.25 s", worst, worstD)
	}
	for _, tc := range []struct {
		name string
		l    Limiter[engine.Time]
		n    int
	}{
		{"fixed window", mustFixed(t, win), 8},
		{"sliding log", must(NewSlidingLog(win)), 4},
		{"policing bucket", must(NewTokenBucket(Params{Rate: 1, Burst: 4}, WithPolicing())), 7},
	} {
		if got := len(offerAll(tc.l, boundaryCase())); got != tc.n {
			t.Errorf("%s admits %d, want %d", tc.name, got, tc.n)
		}
	}
}

// TestSlidingCounterTwiceTheLimit: the counter's bound L + ceil(L·d/W) is
// reached, and with it 2L jobs in an interval shorter than W. L = 4,
// W = 4 s: 4 jobs at 3.75 s fill window [0, 4); then one job every 0.25 s
// from 4.25 s to 7.75 s. In window [4, 8) a job passes iff c < e (as in
// TestSlidingCounterHandCase): at 4.25 (0 < 0.25), 5.25 (1 < 1.25), 6.25
// (2 < 2.25) and 7.25 s (3 < 3.25). So [3.75, 7.25], 3.5 s < W, holds
// 4 + 4 = 8 = 2L jobs: α*(3.5 s) = 8 = L + ceil(4·3.5/4).
func TestSlidingCounterTwiceTheLimit(t *testing.T) {
	times := repeat(3.75, 4)
	for at := engine.Time(4.25); at <= 7.75; at += 0.25 {
		times = append(times, at)
	}
	c, _ := NewSlidingCounter(WindowParams{Limit: 4, Window: 4})
	rel := offerAll(c, times)
	pts, _ := MeasureArrivalCurve(rel, []engine.Time{3.5})
	if pts[0].Jobs != 8 || pts[0].From != 3.75 || pts[0].To != 7.25 {
		t.Errorf("α*(3.5 s) = %+v, want 8 jobs in [3.75, 7.25]", pts[0])
	}
}

func must[L any](l L, err error) L {
	if err != nil {
		panic(err)
	}
	return l
}
