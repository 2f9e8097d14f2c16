package arrivals

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ratesim/ratesim/engine"
)

func statsOf(t *testing.T, ts []engine.Time, keys []uint64, opt StatsOptions) TraceSummary {
	t.Helper()
	s, err := NewStats(opt)
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range ts {
		var k uint64
		if keys != nil {
			k = keys[i]
		}
		if err := s.Add(x, k); err != nil {
			t.Fatal(err)
		}
	}
	return s.Summary()
}

// TestStatsHand: 8 jobs at 0, 0, 1, 1.5, 3, 3, 3, 10 s with keys
// a a b c a d a b.
func TestStatsHand(t *testing.T) {
	ts := []engine.Time{0, 0, s1, 1500 * ms, 3 * s1, 3 * s1, 3 * s1, 10 * s1}
	keys := []uint64{1, 1, 2, 3, 1, 4, 1, 2}
	s := statsOf(t, ts, keys, StatsOptions{Keyed: true, Scales: []engine.Time{s1, 4 * s1, 20 * s1}})
	gaps := []float64{0, 1, 0.5, 1.5, 0, 0, 7}
	_, v := stat.MeanVariance(gaps, nil)
	m := 10.0 / 7
	if s.Jobs != 8 || s.Duration != 10*s1 || s.MeanRate != 0.8 || math.Abs(s.GapMean-m) > 1e-15 ||
		math.Abs(s.GapSCV-v/(m*m)) > 1e-12 || s.Ties != 3 || s.TieFraction != 3.0/7 {
		t.Errorf("summary %+v; want 8 jobs over 10 s, 0.8 jobs/s, gap mean 10/7, SCV %v, 3 ties", s, v/(m*m))
	}
	// The busiest 1 s window is [3, 4) with 3 jobs; every job is within
	// 60 s.
	want := []PeakRate{
		{Window: s1, Jobs: 3, JobsUpper: 3, Exact: true, Rate: 3, At: 3 * s1},
		{Window: 60 * s1, Jobs: 8, JobsUpper: 8, Exact: true, Rate: 8.0 / 60, At: 0},
	}
	if !slices.Equal(s.Peaks, want) {
		t.Errorf("peaks %+v, want %+v", s.Peaks, want)
	}
	// 1 s windows [0,1) ... [9,10): counts 2 2 0 3 0 0 0 0 0 0 (the job at
	// 10 s is in the incomplete window [10, 11)). 4 s windows [0,4),
	// [4,8): 7 and 0. 20 s: no complete window.
	for i, counts := range [][]float64{{2, 2, 0, 3, 0, 0, 0, 0, 0, 0}, {7, 0}} {
		mean, v := stat.MeanVariance(counts, nil)
		d := s.Dispersion[i]
		if d.Windows != int64(len(counts)) || math.Abs(d.Mean-mean) > 1e-12 || math.Abs(d.IDC-v/mean) > 1e-12 {
			t.Errorf("scale %v: %+v, want %d windows, mean %v, IDC %v", d.Scale, d, len(counts), mean, v/mean)
		}
	}
	if d := s.Dispersion[2]; d.Windows != 0 || !math.IsNaN(d.IDC) {
		t.Errorf("scale 20: %+v, want no windows and IDC NaN", d)
	}
	if s.Keys == nil || s.Keys.Distinct != 4 || s.Keys.Top10Share != 1 || !slices.Equal(s.Keys.Top, []int64{4, 2, 1, 1}) || !s.Keys.Exact {
		t.Errorf("keys %+v, want 4 distinct, share 1, top 4 2 1 1, exact", s.Keys)
	}
	// The gap distribution at the edges 10^-0.3 ≈ 0.501, 1 and 10:
	// P(G > 0.501) = 3/7 (1, 1.5, 7), P(G > 1) = 2/7, P(G > 10) = 0.
	for _, c := range []struct{ x, p float64 }{{math.Pow(10, -0.3), 3.0 / 7}, {1, 2.0 / 7}, {10, 0}} {
		k := slices.IndexFunc(s.GapEdges, func(e float64) bool { return math.Abs(e-c.x) < 1e-12*c.x })
		if k < 0 {
			t.Errorf("no edge at %v", c.x)
		} else if math.Abs(s.GapCCDF[k]-c.p) > 1e-12 {
			t.Errorf("P(G > %v) = %v, want %v", c.x, s.GapCCDF[k], c.p)
		}
	}
	var sum int64
	for _, c := range s.RateCounts {
		sum += c
	}
	if sum != 8 || s.RateWidth != 20*ms {
		t.Errorf("rate series: %d jobs in bins of %v s, want 8 in bins of 0.02 s (10 s over at most 1000 bins)", sum, s.RateWidth)
	}
}

// TestStatsWindowEdges: the window an arrival falls in is decided
// exactly. With τ = 0.1 s, arrivals at 0, 0.1, 0.2 and 0.3 s (float64
// arithmetic puts 0.3/0.1 at 2.9999999999999996 and floor(0.3/0.1) at 2)
// fall in windows 0, 1, 2 and 3: three complete windows with one arrival
// each, so the mean is 1 and the variance 0.
func TestStatsWindowEdges(t *testing.T) {
	ts := []engine.Time{0, 100 * ms, 200 * ms, 300 * ms}
	s := statsOf(t, ts, nil, StatsOptions{Scales: []engine.Time{100 * ms}, PeakWindows: []engine.Time{100 * ms}})
	if d := s.Dispersion[0]; d.Windows != 3 || d.Mean != 1 || d.Variance != 0 {
		t.Errorf("dispersion %+v, want 3 windows, mean 1, variance 0", d)
	}
	// A window [s, s+0.1) holds one of them: 0.1 s apart is not inside.
	if p := s.Peaks[0]; p.Jobs != 1 || !p.Exact {
		t.Errorf("peak over 0.1 s: %+v, want 1 job, exact", p)
	}
}

// TestStatsGapEdges: which side of a histogram edge 10^(k/10 - 9) s a
// whole number of nanoseconds falls on is exact. sqrt(10) s =
// 3162277660.168... ns, so 3162277660 ns is at most e_95 and 3162277661
// ns is above it; 1 s is exactly e_90.
func TestStatsGapEdges(t *testing.T) {
	for _, c := range []struct {
		k    int
		want int64
	}{{0, 1}, {3, 1}, {4, 2}, {90, 1e9}, {91, 1_258_925_411}, {95, 3_162_277_660}, {180, 1e18}} {
		if gapTables().limits[c.k] != c.want {
			t.Errorf("gapLimits[%d] = %d, want %d", c.k, gapTables().limits[c.k], c.want)
		}
	}
	s := statsOf(t, []engine.Time{0, 3_162_277_660, 3_162_277_660 + 3_162_277_661}, nil, StatsOptions{})
	// P(G > e_95) = 1/2: only the second gap is above sqrt(10) s.
	if got := s.GapCCDF[95]; got != 0.5 {
		t.Errorf("P(G > 10^0.5 s) = %v, want 0.5", got)
	}
	if got := s.GapCCDF[94]; got != 1 {
		t.Errorf("P(G > 10^0.4 s) = %v, want 1", got)
	}
}

// TestStatsRandom checks the peaks and the dispersion against brute force
// (every window start, explicit bins) on random traces with ties.
func TestStatsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 100 {
		n := 2 + rng.IntN(300)
		ts := make([]engine.Time, n)
		x := engine.Time(0)
		for i := range ts {
			if rng.IntN(3) > 0 {
				x += engine.Time(rng.IntN(4000)) * ms
			}
			ts[i] = x
		}
		s := statsOf(t, ts, nil, StatsOptions{PeakWindows: []engine.Time{s1, 7500 * ms}, Scales: []engine.Time{500 * ms, 3 * s1}})
		for _, p := range s.Peaks {
			if best := brutePeak(ts, p.Window); p.Jobs != best || p.JobsUpper != best || !p.Exact {
				t.Fatalf("trial %d: peak over %v s = %+v, brute force %d", trial, p.Window, p, best)
			}
		}
		for _, d := range s.Dispersion {
			nb := int((ts[n-1] - ts[0]) / d.Scale)
			counts := make([]float64, nb)
			for _, y := range ts {
				if k := int((y - ts[0]) / d.Scale); k < nb {
					counts[k]++
				}
			}
			if int64(nb) != d.Windows {
				t.Fatalf("trial %d: %d windows of %v s, want %d", trial, d.Windows, d.Scale, nb)
			}
			if nb >= 2 {
				mean, v := stat.MeanVariance(counts, nil)
				if math.Abs(d.Mean-mean) > 1e-9 || mean > 0 && math.Abs(d.IDC-v/mean) > 1e-9*max(1, v/mean) {
					t.Fatalf("trial %d, scale %v: mean %v IDC %v, want %v and %v", trial, d.Scale, d.Mean, d.IDC, mean, v/mean)
				}
			}
		}
	}
}

// brutePeak is the most arrivals in any window [s, s+w): an optimal
// window starts at an arrival.
func brutePeak(ts []engine.Time, w engine.Time) int64 {
	best := int64(0)
	for _, start := range ts {
		c := int64(0)
		for _, y := range ts {
			if y >= start && y < start+w {
				c++
			}
		}
		best = max(best, c)
	}
	return best
}

// TestStatsPeakEqualInstants: a million arrivals at one instant are one
// entry of the peak window (its ring stays at its first size, 16), not a
// million: memory follows the distinct instants, not the arrivals.
func TestStatsPeakEqualInstants(t *testing.T) {
	s, _ := NewStats(StatsOptions{})
	for range 1_000_000 {
		if err := s.Add(5*s1, 0); err != nil {
			t.Fatal(err)
		}
	}
	s.Add(7*s1, 0)
	for i, p := range s.peaks {
		if len(p.ring) > 16 {
			t.Errorf("window %d: ring of %d clusters, want at most 16", i, len(p.ring))
		}
	}
	sum := s.Summary()
	if p := sum.Peaks[0]; p.Jobs != 1_000_000 || !p.Exact || p.At != 5*s1 {
		t.Errorf("peak over 1 s: %+v, want 1000000 jobs at 5 s, exact", p)
	}
	if p := sum.Peaks[1]; p.Jobs != 1_000_001 || !p.Exact {
		t.Errorf("peak over 60 s: %+v, want 1000001 jobs, exact", p)
	}
}

// TestStatsPeakBounded: with the ring limited to 8 clusters, windows that
// hold more distinct instants are merged, and the peak becomes bounds:
// Jobs <= the brute-force peak <= JobsUpper, a window [At, At+w) holds
// Jobs arrivals, and Exact means both bounds are the peak.
func TestStatsPeakBounded(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	inexact := 0
	for trial := range 300 {
		n := 2 + rng.IntN(200)
		ts := make([]engine.Time, n)
		x := engine.Time(0)
		for i := range ts {
			if rng.IntN(4) > 0 {
				x += engine.Time(rng.IntN(400)) * ms
			}
			ts[i] = x
		}
		s, _ := NewStats(StatsOptions{PeakWindows: []engine.Time{s1, 3 * s1}})
		for i := range s.peaks {
			s.peaks[i].limit = 8
		}
		for _, y := range ts {
			s.Add(y, 0)
		}
		for _, p := range s.Summary().Peaks {
			best := brutePeak(ts, p.Window)
			var at int64
			for _, y := range ts {
				if y >= p.At && y < p.At+p.Window {
					at++
				}
			}
			if p.Jobs > best || best > p.JobsUpper || at < p.Jobs || p.Exact != (p.Jobs == p.JobsUpper) || p.Exact && p.Jobs != best {
				t.Fatalf("trial %d, window %v s: %+v, brute force %d, window at At holds %d", trial, p.Window, p, best, at)
			}
			if !p.Exact {
				inexact++
			}
		}
		for _, p := range s.peaks {
			if len(p.ring) > 8 {
				t.Fatalf("ring of %d clusters, want at most 8", len(p.ring))
			}
		}
	}
	if inexact == 0 {
		t.Error("no trial merged instants: the test does not exercise the bounds")
	}
}

func TestStatsInvalid(t *testing.T) {
	if _, err := NewStats(StatsOptions{PeakWindows: []engine.Time{0}}); err == nil {
		t.Error("window 0: error = nil")
	}
	if _, err := NewStats(StatsOptions{Scales: []engine.Time{-s1}}); err == nil {
		t.Error("scale -1 s: error = nil")
	}
	s, _ := NewStats(StatsOptions{})
	s.Add(5*s1, 0)
	if err := s.Add(4*s1, 0); err == nil {
		t.Error("Add going back: error = nil")
	}
	sum := s.Summary()
	if sum.Jobs != 1 || sum.Duration != 0 || !math.IsNaN(sum.MeanRate) || !math.IsNaN(sum.GapMean) {
		t.Errorf("one job: %+v, want 1 job, duration 0, NaN rate and gap mean", sum)
	}
	// From 1677 to 2262 is beyond the range of engine.Time.
	s, _ = NewStats(StatsOptions{})
	s.Add(math.MinInt64, 0)
	if err := s.Add(math.MaxInt64, 0); err == nil {
		t.Error("Add 292 years later: error = nil")
	}
	if s.Summary().Jobs != 1 {
		t.Error("a failed Add counted the arrival")
	}
}

// TestStatsCountsMemory is the reliability report: a counts line saying
// 10^12 jobs in a minute (about 17 arrivals per nanosecond) used to fill
// the peak windows with every arrival. With the windows limited to 1024
// instants for the test, 2 million of its arrivals (within 0.12 s) keep
// the rings at 1024 clusters, and since every cluster is inside the 1 s
// and 60 s windows the peak is still exact: all 2 million.
func TestStatsCountsMemory(t *testing.T) {
	tr, err := NewTrace(strings.NewReader("1000000000000\n"), "c.txt", TraceOptions{Format: FormatCounts})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewStats(StatsOptions{})
	for i := range s.peaks {
		s.peaks[i].limit = 1024
	}
	const n = 2_000_000
	for range n {
		a, err := tr.Next()
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Add(a.T, 0); err != nil {
			t.Fatal(err)
		}
	}
	for i, p := range s.peaks {
		if len(p.ring) > 1024 {
			t.Errorf("window %d: ring of %d clusters, want at most 1024", i, len(p.ring))
		}
	}
	for _, p := range s.Summary().Peaks {
		if p.Jobs != n || p.JobsUpper != n || !p.Exact {
			t.Errorf("peak over %v s: %+v, want %d jobs, exact", p.Window, p, n)
		}
	}
}

// TestStatsGzipEqualTimes: a gzip trace of 200000 equal timestamps, read
// and summarised, is one instant in each peak window.
func TestStatsGzipEqualTimes(t *testing.T) {
	in := gzipped(t, "t\n"+strings.Repeat("1700000000\n", 200_000))
	tr, err := NewTrace(strings.NewReader(in), "same.csv.gz", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := NewStats(StatsOptions{})
	all, err := readAll(tr)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range all {
		s.Add(a.T, 0)
	}
	for i, p := range s.peaks {
		if p.tail-p.h != 1 {
			t.Errorf("window %d holds %d clusters, want 1", i, p.tail-p.h)
		}
	}
	if sum := s.Summary(); sum.Peaks[0].Jobs != 200_000 || sum.Ties != 199_999 {
		t.Errorf("summary: peak %d, ties %d; want 200000 and 199999", sum.Peaks[0].Jobs, sum.Ties)
	}
}

// TestStatsKeysBounded: beyond its limit (100 keys here, 2^20 in use) the
// key counter keeps 100 counters and estimates the distinct keys. Five
// heavy keys (5000, 4000, 3000, 2000 and 1000 arrivals) among 20000 keys
// seen once, shuffled: the heavy keys' counts are at least their true
// counts and at most that plus N/100 (Space-Saving's bound, N = 35000
// arrivals), and the estimate of the 20005 distinct keys is within 3%
// (linear counting over 16384 registers has a standard error of about
// 0.7% here). 200000 distinct keys (the HyperLogLog range) are within 3%
// too (standard error 0.8%).
func TestStatsKeysBounded(t *testing.T) {
	heavy := []int64{5000, 4000, 3000, 2000, 1000}
	var keys []uint64
	for i, n := range heavy {
		for range n {
			keys = append(keys, KeyOfRank(uint64(i+1)))
		}
	}
	for i := range 20_000 {
		keys = append(keys, KeyOfRank(uint64(1000+i)))
	}
	rng := rand.New(rand.NewPCG(4, 2))
	rng.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
	k := newKeyCounter(100)
	for _, key := range keys {
		k.add(key)
	}
	if len(k.heap) != 100 || len(k.index) != 100 || k.exact != nil {
		t.Fatalf("%d counters, %d indexed, exact map %v; want 100, 100 and none", len(k.heap), len(k.index), k.exact != nil)
	}
	top := k.top()
	bound := int64(len(keys) / 100)
	for i, n := range heavy {
		if top[i] < n || top[i] > n+bound {
			t.Errorf("top %d = %d, want in [%d, %d]", i, top[i], n, n+bound)
		}
	}
	if d, exact := k.distinct(); exact || math.Abs(float64(d)/20005-1) > 0.03 {
		t.Errorf("distinct = %d (exact %v), want about 20005 within 3%%", d, exact)
	}
	k = newKeyCounter(1000)
	for i := range 200_000 {
		k.add(KeyOfRank(uint64(i)))
	}
	if d, _ := k.distinct(); math.Abs(float64(d)/200_000-1) > 0.03 {
		t.Errorf("distinct = %d, want about 200000 within 3%%", d)
	}
	// Through Stats: the summary says the figures are estimates.
	s, _ := NewStats(StatsOptions{Keyed: true})
	s.keys.limit = 2
	for i, key := range []uint64{1, 2, 3, 1} {
		s.Add(engine.Time(i), key)
	}
	if ks := s.Summary().Keys; ks.Exact || ks.Top[0] < 2 {
		t.Errorf("keys %+v, want inexact, key 1 counted at least twice", ks)
	}
}

// TestGapHistogramBins: the bin of a gap is the first edge at or above it
// (a binary search over gapLimits), for gaps at and around every edge and
// power of two and at random.
func TestGapHistogramBins(t *testing.T) {
	gaps := []int64{0, 1, math.MaxInt64}
	for _, l := range gapTables().limits {
		gaps = append(gaps, l-1, l, l+1)
	}
	for b := range 63 {
		gaps = append(gaps, 1<<b-1, 1<<b, 1<<b+1)
	}
	r := rand.New(rand.NewPCG(7, 8))
	for range 10000 {
		gaps = append(gaps, r.Int64N(1<<r.IntN(63)+1))
	}
	for _, g := range gaps {
		if g < 0 {
			continue
		}
		h := newGapHistogram()
		h.add(engine.Time(g))
		want, _ := slices.BinarySearch(gapTables().limits, g)
		if h.counts[want] != 1 {
			t.Fatalf("gap %d ns: counts %v, want bin %d", g, h.counts, want)
		}
	}
}
