package limiterstudy

import (
	"context"
	"errors"
	"image/png"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// limProc is an arrival process over a slice of instants and keys (keys may
// be nil); line i+2 is arrival i, as in a trace with a header.
type limProc struct {
	times []float64 // seconds, decimals converted to whole nanoseconds
	keys  []uint64
	i     int
}

func (p *limProc) Next() (arrivals.Arrival, error) {
	if p.i == len(p.times) {
		return arrivals.Arrival{}, io.EOF
	}
	a := arrivals.Arrival{T: ns(p.times[p.i]), Sub: -1, Line: p.i + 2}
	if p.keys != nil {
		a.Key = p.keys[p.i]
	}
	p.i++
	return a, nil
}

// ns converts decimal seconds written in a test to whole nanoseconds.
func ns(secs float64) engine.Time {
	t, ok := engine.FromSeconds(secs)
	if !ok {
		panic(secs)
	}
	return t
}

// nss maps ns over its arguments.
func nss(secs ...float64) []engine.Time {
	out := make([]engine.Time, len(secs))
	for i, x := range secs {
		out[i] = ns(x)
	}
	return out
}

// r is an exact rational written as a decimal or a fraction.
func r(s string) exact.Rat { return exact.MustParse(s) }

// testLimitersSpec is L = 100 per W = 60 s with R = L/W, the issue's
// example, with a queue of L for the shapers.
func testLimitersSpec() LimitersSpec {
	return LimitersSpec{Params: Params{Rate: r("100/60"), Limit: 100, Window: r("60"), Queue: 100, Soft: r("49.5"), Hard: r("99")}}
}

// issueSpec is testLimitersSpec with unbounded queues and four lengths.
func issueSpec() LimitersSpec {
	s := testLimitersSpec()
	s.Queue, s.Durations = 0, nss(0, 1, 2, 3)
	return s
}

func byName(t *testing.T, res *LimitersResult, name string) LimiterResult {
	t.Helper()
	for _, l := range res.Limiters {
		if l.Name == name {
			return l
		}
	}
	t.Fatalf("no result for %s", name)
	return LimiterResult{}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestRunLimitersHandExample runs the issue's example (100 arrivals at
// 59 s, 100 at 61 s; L = 100 per 60 s, R = 100/60) through every limiter,
// with unbounded queues. Admissions as in buckets.TestBoundaryBurstHandExample:
// fixed window 200 (α*(2 s) = 200 = 2L in [59, 61], overshoot 2), sliding
// log 100, policing bucket and GCRA 103, sliding counter 102.
//
// The shapers admit all 200. token-shape: 100 pass at 59 s and 3 at 61 s;
// the k-th job left (k = 1..97) gets the token at 59 + (3 + k)·0.6 s, a
// delay of 0.4 + 0.6·(k - 1) s: total 97·0.4 + 0.6·(96·97/2) = 2832.4 s,
// mean over 200 jobs 14.162 s, max 58 s. leaky-queue: job k (0-based)
// leaves at 59 + 0.6·k s, waiting 0.6·k s (k < 100) or 0.6·k - 2 s:
// total 0.6·19900 - 200 = 11740 s, mean 58.7 s, max 117.4 s.
func TestRunLimitersHandExample(t *testing.T) {
	times := append(slices.Repeat([]float64{59}, 100), slices.Repeat([]float64{61}, 100)...)
	spec := issueSpec()
	res, err := RunLimiters(context.Background(), spec, &limProc{times: times})
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 200 || res.Duration != 61 || res.Keys != 1 {
		t.Errorf("jobs %d over %v s with %d keys, want 200 over 61 s, 1 key", res.Jobs, res.Duration, res.Keys)
	}
	for name, want := range map[string]int64{
		"token-police": 103, "token-shape": 200, "leaky-queue": 200, "gcra": 103,
		"fixed-window": 200, "sliding-log": 100, "sliding-counter": 102,
	} {
		if l := byName(t, res, name); l.Admitted != want || l.Rejected != 200-want {
			t.Errorf("%s admits %d and rejects %d, want %d and %d", name, l.Admitted, l.Rejected, want, 200-want)
		}
	}
	fixed := byName(t, res, "fixed-window")
	if w := fixed.Worst; w.Ratio != 2 || w.D != 2 || w.Jobs != 200 || w.Promise != 100 || w.From != 59 || w.To != 61 {
		t.Errorf("fixed window worst overshoot %+v, want 200/100 = 2 at d = 2 s in [59, 61]", w)
	}
	if log := byName(t, res, "sliding-log"); log.Worst.Ratio != 1 {
		t.Errorf("sliding log worst overshoot %v, want 1", log.Worst.Ratio)
	}
	shape := byName(t, res, "token-shape")
	if d := shape.Delay; d == nil || d.Jobs != 200 || d.Delayed != 97 || !near(d.Total, 2832.4) || !near(d.Mean, 14.162) || !near(d.Max, 58) {
		t.Errorf("token-shape delays %+v, want 97 delayed, total 2832.4 s, mean 14.162 s, max 58 s", d)
	}
	leaky := byName(t, res, "leaky-queue")
	if d := leaky.Delay; d == nil || d.Delayed != 199 || !near(d.Total, 11740) || !near(d.Mean, 58.7) || !near(d.Max, 117.4) {
		t.Errorf("leaky-queue delays %+v, want 199 delayed, total 11740 s, mean 58.7 s, max 117.4 s", d)
	}
	// Shapers keep their promise on what they release: α*(d) of the
	// departures of token-shape is at most 100 + d·100/60.
	for _, p := range shape.Curve {
		if float64(p.Jobs) > p.Promise+1e-9 {
			t.Errorf("token-shape releases %d jobs in %v s > promise %v", p.Jobs, p.D, p.Promise)
		}
	}
	for i, l := range res.Limiters {
		if l.Shaper != (l.Delay != nil) {
			t.Errorf("%s: shaper %v with delays %v", l.Name, l.Shaper, l.Delay)
		}
		// Without KeepArrivals (no zoom figure) nothing per job is kept.
		if rel := res.Focus.Releases[i]; len(rel) != 0 {
			t.Errorf("%s: %d releases kept without KeepArrivals, want none", l.Name, len(rel))
		}
	}
	if res.Focus.Key != "" || res.Focus.Arrivals != nil {
		t.Errorf("focus %q with %d arrivals, want every job and no arrivals kept", res.Focus.Key, len(res.Focus.Arrivals))
	}
	// With it, the focus holds every release, sorted.
	spec.KeepArrivals = true
	kept, err := RunLimiters(context.Background(), spec, &limProc{times: times})
	if err != nil {
		t.Fatal(err)
	}
	for i, l := range kept.Limiters {
		if rel := kept.Focus.Releases[i]; int64(len(rel)) != l.Admitted || !slices.IsSorted(rel) {
			t.Errorf("%s: %d sorted releases for %d admitted", l.Name, len(rel), l.Admitted)
		}
	}
}

// TestRunLimitersBoundaryCase runs the small adversarial case of
// buckets.TestSlidingCounterHandCase through the built-in boundary pattern
// (L = 4, W = 4 s, gap 1 s, stream 4, two cycles 12 s apart), where the
// sliding counter admits 7 jobs per cycle, all in [3, 6.25] (3.25 s < W):
// the measured worst overshoot is 7/4 = 1.75 at d = 3.25 s. Per cycle the
// fixed window admits 8, the log 4 and the policing bucket (r = 1, b = 4)
// 7.
func TestRunLimitersBoundaryCase(t *testing.T) {
	proc, err := arrivals.NewBoundary(arrivals.BoundarySpec{Window: 4 * engine.Second, Gap: engine.Second, Burst: 4, Stream: 4, Cycles: 2})
	if err != nil {
		t.Fatal(err)
	}
	spec := LimitersSpec{Params: Params{Rate: r("1"), Limit: 4, Window: r("4"), Soft: r("1.5"), Hard: r("3")}, Durations: nss(0, 2, 3, 3.25, 3.5)}
	res, err := RunLimiters(context.Background(), spec, proc)
	if err != nil {
		t.Fatal(err)
	}
	counter := byName(t, res, "sliding-counter")
	if w := counter.Worst; counter.Admitted != 14 || w.Ratio != 1.75 || w.D != 3.25 || w.Jobs != 7 || w.From != 3 || w.To != 6.25 {
		t.Errorf("sliding counter admits %d, worst %+v; want 14 and 7/4 = 1.75 at d = 3.25 s in [3, 6.25]", counter.Admitted, w)
	}
	for name, want := range map[string]int64{"fixed-window": 16, "sliding-log": 8, "token-police": 14, "gcra": 14} {
		if l := byName(t, res, name); l.Admitted != want {
			t.Errorf("%s admits %d, want %d", name, l.Admitted, want)
		}
	}
}

// TestRunLimitersKeyed: with keys, each key has its own limiters. Key 1
// sends 3 jobs at 0 and key 2 sends 1, interleaved, through a sliding log
// of L = 2: key 1 gets 2 (one rejected), key 2 gets its 1. The keys are
// listed by arrivals, and the curve is the worst key's.
func TestRunLimitersKeyed(t *testing.T) {
	spec := LimitersSpec{Params: Params{Rate: r("1"), Limit: 2, Window: r("10"), Hard: r("1")}, Names: []string{"sliding-log"}, Durations: nss(0), Keyed: true, KeepArrivals: true}
	res, err := RunLimiters(context.Background(), spec, &limProc{times: []float64{0, 0, 0, 0}, keys: []uint64{2, 1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	l := res.Limiters[0]
	if res.Keys != 2 || l.Admitted != 3 || l.Rejected != 1 || len(l.Keys) != 2 {
		t.Fatalf("%d keys, admitted %d, rejected %d, %d key results; want 2, 3, 1, 2", res.Keys, l.Admitted, l.Rejected, len(l.Keys))
	}
	k1, k2 := l.Keys[0], l.Keys[1]
	if k1.Key != "#1" || k1.Arrivals != 3 || k1.Admitted != 2 || k1.FirstLine != 3 || k2.Key != "#2" || k2.Admitted != 1 {
		t.Errorf("keys %+v, want key 1 first (3 arrivals, 2 admitted, line 3), then key 2", l.Keys)
	}
	if w := l.Worst; w.Jobs != 2 || w.Key != k1.Key || w.Ratio != 1 {
		t.Errorf("worst %+v, want 2 jobs of key 1 at d = 0", w)
	}
	// The zoom focuses on key 1: its 3 arrivals and 2 admissions.
	if f := res.Focus; f.Key != k1.Key || len(f.Arrivals) != 3 || len(f.Releases[0]) != 2 {
		t.Errorf("focus %+v, want key 1 with 3 arrivals and 2 releases", f)
	}
}

func TestRunLimitersErrors(t *testing.T) {
	ctx := context.Background()
	_, err := RunLimiters(ctx, issueSpec(), &limProc{times: []float64{0, 2, 1}})
	if !errors.Is(err, experiments.ErrInput) || !errors.Is(err, buckets.ErrOrder) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("out-of-order arrival: err = %v, want ErrInput and ErrOrder naming line 4", err)
	}
	for _, edit := range []func(*LimitersSpec){
		func(s *LimitersSpec) { s.Rate = r("0") },
		func(s *LimitersSpec) { s.Limit = 0 },
		func(s *LimitersSpec) { s.Window = r("-1") },
		func(s *LimitersSpec) { s.Offset = r("60") },
		func(s *LimitersSpec) { s.Queue = -1 },
		func(s *LimitersSpec) { s.Hard = r("100") },
		func(s *LimitersSpec) { s.Soft = r("99.5") },
		func(s *LimitersSpec) { s.Names = []string{"leaky-meter"} },
		func(s *LimitersSpec) { s.Names = []string{"gcra", "gcra"} },
		func(s *LimitersSpec) { s.Durations = []engine.Time{-1} },
	} {
		s := issueSpec()
		edit(&s)
		var le *LimiterError
		if _, err := RunLimiters(ctx, s, &limProc{}); !errors.As(err, &le) || !errors.Is(err, buckets.ErrParam) {
			t.Errorf("%+v: err = %v, want a *LimiterError", s, err)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := RunLimiters(cancelled, issueSpec(), &limProc{times: []float64{0}}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: err = %v, want context.Canceled", err)
	}
}

// TestDefaultDurations: 0, then W/128 to 4W with 8 lengths per doubling,
// W itself among them (60/128 s = 0.46875 s exactly).
func TestDefaultDurations(t *testing.T) {
	ds := DefaultDurations(r("60"))
	if len(ds) != 74 || ds[0] != 0 || ds[1] != 468750*engine.Microsecond || ds[len(ds)-1] != 240*engine.Second ||
		!slices.Contains(ds, 60*engine.Second) || !slices.IsSorted(ds) {
		t.Errorf("DefaultDurations(60) = %v", ds)
	}
}

// TestLimiterFigures draws the figures of the hand example and checks the
// data behind them and that the files are images.
func TestLimiterFigures(t *testing.T) {
	times := append(slices.Repeat([]float64{59}, 100), slices.Repeat([]float64{61}, 100)...)
	spec := issueSpec()
	spec.KeepArrivals, spec.Input = true, "test"
	res, err := RunLimiters(context.Background(), spec, &limProc{times: times})
	if err != nil {
		t.Fatal(err)
	}
	// The worst overshoot is the fixed window's, [59, 61]: the zoom is
	// centred on the edge at 60 s, ± W/2.
	if edge, from, to := res.ZoomRange(); edge != 60 || from != 30 || to != 90 {
		t.Errorf("zoom around %v in [%v, %v], want 60 in [30, 90]", edge, from, to)
	}
	if w := res.WorstLimiter(); res.Limiters[w].Name != "fixed-window" {
		t.Errorf("worst limiter %s, want fixed-window", res.Limiters[w].Name)
	}
	figs, err := LimiterFigures(res)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	if want := []string{"arrival-curves", "boundary-zoom", "throttle-response"}; !slices.Equal(names, want) {
		t.Errorf("figures %v, want %v", names, want)
	}
	dir := t.TempDir()
	paths, err := experiments.SaveFigures(t.Context(), figs, dir, "png")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(f)
		f.Close()
		if err != nil || cfg.Width < 500 || cfg.Height < 300 {
			t.Errorf("%s: %v, %dx%d; want a PNG image", filepath.Base(p), err, cfg.Width, cfg.Height)
		}
	}
	// The throttle's measured response: the policing bucket admits every
	// job that finds a token (deficit < 99) and none beyond; bins add up
	// to the arrivals.
	for _, l := range res.Limiters {
		if l.Name != "token-police" {
			continue
		}
		var offered, admitted int64
		for _, b := range l.Response {
			offered += b.Offered
			admitted += b.Admitted
			if b.Hi <= 99 && b.Admitted != b.Offered {
				t.Errorf("policing bucket: bin [%v, %v) admits %d of %d", b.Lo, b.Hi, b.Admitted, b.Offered)
			}
		}
		if offered != 200 || admitted != 103 {
			t.Errorf("response bins: %d offered, %d admitted; want 200 and 103", offered, admitted)
		}
	}
}

// TestRunLimitersNASA runs every limiter on the NASA-HTTP trace (30,969
// requests) with L = 30 per 60 s and checks the documented bounds: the
// sliding log and every bucket keep their promise, the fixed window stays
// within 2L per window-shorter interval, the counter within L + ceil(L·d/W).
func TestRunLimitersNASA(t *testing.T) {
	path := filepath.Join("../../shared/traces", "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	if _, err := os.Stat(path); err != nil {
		t.Skipf("skipping: real trace not found (../shared/traces is beside the repository, not in it): %v", err)
	}
	tr, err := arrivals.Open(path, arrivals.TraceOptions{TimeCol: "ts_unix"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	// KeepArrivals keeps the releases (Focus) for the pairwise check below.
	spec := LimitersSpec{Params: Params{Rate: r("0.5"), Limit: 30, Window: r("60"), Queue: 30, Soft: r("14.5"), Hard: r("29")}, KeepArrivals: true}
	if o, ok := tr.Origin(); ok {
		spec.Origin = o
	}
	res, err := RunLimiters(context.Background(), spec, tr)
	if err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 30969 {
		t.Fatalf("%d jobs, want 30969", res.Jobs)
	}
	for _, l := range res.Limiters {
		if l.Admitted+l.Rejected != res.Jobs || l.Admitted == 0 {
			t.Errorf("%s: %d admitted + %d rejected != %d", l.Name, l.Admitted, l.Rejected, res.Jobs)
		}
		for _, p := range l.Curve {
			bound := p.Promise + 1e-9
			switch l.Name {
			case "fixed-window":
				bound = 30 * (math.Floor(p.D/60) + 2)
			case "sliding-counter":
				if p.D >= 60 {
					continue
				}
				bound = 30 + math.Ceil(30*p.D/60)
			}
			if float64(p.Jobs) > bound {
				t.Errorf("%s: α*(%v s) = %d > %v", l.Name, p.D, p.Jobs, bound)
			}
		}
	}
	if w := byName(t, res, "fixed-window").Worst.Ratio; w <= 1 {
		t.Errorf("fixed window's worst overshoot on NASA %v, want > 1 (the boundary burst)", w)
	}
	// The exact overshoot of the window limiters against L·(floor(d/W) +
	// 1), checked over every pair of releases in integer arithmetic (about
	// 1.7·10^8 pairs each): fixed window 56 releases in 59 s against 30
	// (28/15) and an excess of 30 jobs (at a longer d: 28 within 4·W);
	// sliding counter 45 in 58 s (3/2), excess 15; sliding log 1, excess 0.
	want := map[string][2]string{"fixed-window": {"28/15", "30"}, "sliding-counter": {"3/2", "15"}, "sliding-log": {"1", "0"}}
	for i, l := range res.Limiters {
		if l.Name != "fixed-window" && l.Name != "sliding-counter" && l.Name != "sliding-log" {
			continue
		}
		xs := make([]int64, len(res.Focus.Releases[i]))
		for j, x := range res.Focus.Releases[i] {
			xs[j] = int64(math.Round(x * 1e9))
		}
		bestC, bestP := int64(0), int64(1) // ratio bestC/bestP
		bestE := int64(math.MinInt64)
		for a := range xs {
			for b := a; b < len(xs); b++ {
				c, p := int64(b-a+1), 30*((xs[b]-xs[a])/60e9+1)
				if c*bestP > bestC*p {
					bestC, bestP = c, p
				}
				bestE = max(bestE, c-p)
			}
		}
		ratio := new(big.Rat).SetFrac64(bestC, bestP)
		x := l.Exact
		if x == nil || x.RatioExact != ratio.RatString() || x.Ratio != float64(bestC)/float64(bestP) {
			t.Errorf("%s: exact overshoot %+v, the pairs give %v", l.Name, x, ratio)
			continue
		}
		if x.ExcessExact != big.NewInt(bestE).String() || (x.Ratio > 1) != (x.Excess > 0) {
			t.Errorf("%s: exact excess %v, the pairs' %d, the ratio %v", l.Name, x.ExcessExact, bestE, x.Ratio)
		}
		if w := want[l.Name]; x.RatioExact != w[0] || x.ExcessExact != w[1] {
			t.Errorf("%s: overshoot %s, excess %s; want %s and %s", l.Name, x.RatioExact, x.ExcessExact, w[0], w[1])
		}
	}
}

// originProc is a limProc that reports an absolute origin, as a trace does.
type originProc struct {
	limProc
	origin int64
}

func (p *originProc) Origin() (int64, bool) { return p.origin, p.i > 0 }

// TestWindowsFollowTheTraceClock: a trace whose first arrival is at
// 1700000039 s, one second before the whole minute 1700000040 =
// 28333334·60 s, and a second arrival 2 s later (run time 2 s). With
// L = 1 per W = 60 s the fixed window and the sliding counter see the two
// jobs in different minutes and admit both (the counter's estimate 1 s
// into the new minute is 1·59/60 + 0 < 1); windows started at the first
// arrival would have put both in one window and rejected the second. The
// sliding log (no edges) rejects it.
func TestWindowsFollowTheTraceClock(t *testing.T) {
	spec := LimitersSpec{
		Params:    Params{Rate: r("1/60"), Limit: 1, Window: r("60"), Hard: r("0")},
		Durations: nss(0),
		Names:     []string{"fixed-window", "sliding-counter", "sliding-log"},
	}
	proc := &originProc{limProc: limProc{times: []float64{0, 2}}, origin: 1700000039 * int64(engine.Second)}
	res, err := RunLimiters(context.Background(), spec, proc)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]int64{"fixed-window": 2, "sliding-counter": 2, "sliding-log": 1} {
		if l := byName(t, res, name); l.Admitted != want {
			t.Errorf("%s admits %d, want %d", name, l.Admitted, want)
		}
	}
	if res.Spec.Origin != proc.origin {
		t.Errorf("result's origin %d, want %d", res.Spec.Origin, proc.origin)
	}
}
