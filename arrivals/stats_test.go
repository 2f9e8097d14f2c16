package arrivals

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat"
)

func statsOf(t *testing.T, ts []float64, keys []uint64, opt StatsOptions) TraceSummary {
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
	ts := []float64{0, 0, 1, 1.5, 3, 3, 3, 10}
	keys := []uint64{1, 1, 2, 3, 1, 4, 1, 2}
	s := statsOf(t, ts, keys, StatsOptions{Keyed: true, Scales: []float64{1, 4, 20}})
	gaps := []float64{0, 1, 0.5, 1.5, 0, 0, 7}
	_, v := stat.MeanVariance(gaps, nil)
	m := 10.0 / 7
	if s.Jobs != 8 || s.Duration != 10 || s.MeanRate != 0.8 || math.Abs(s.GapMean-m) > 1e-15 ||
		math.Abs(s.GapSCV-v/(m*m)) > 1e-12 || s.Ties != 3 || s.TieFraction != 3.0/7 {
		t.Errorf("summary %+v; want 8 jobs over 10 s, 0.8 jobs/s, gap mean 10/7, SCV %v, 3 ties", s, v/(m*m))
	}
	// The busiest 1 s window is [3, 4) with 3 jobs; every job is within
	// 60 s.
	want := []PeakRate{{Window: 1, Jobs: 3, Rate: 3, At: 3}, {Window: 60, Jobs: 8, Rate: 8.0 / 60, At: 0}}
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
	if s.Keys == nil || s.Keys.Distinct != 4 || s.Keys.Top10Share != 1 || !slices.Equal(s.Keys.Top, []int64{4, 2, 1, 1}) {
		t.Errorf("keys %+v, want 4 distinct, share 1, top 4 2 1 1", s.Keys)
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
	if sum != 8 || s.RateWidth != 0.02 {
		t.Errorf("rate series: %d jobs in bins of %v s, want 8 in bins of 0.02 s (10 s over at most 1000 bins)", sum, s.RateWidth)
	}
}

// TestStatsRandom checks the peaks and the dispersion against brute force
// (every window start, explicit bins) on random traces with ties.
func TestStatsRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	for trial := range 100 {
		n := 2 + rng.IntN(300)
		ts := make([]float64, n)
		x := 0.0
		for i := range ts {
			if rng.IntN(3) > 0 {
				x += float64(rng.IntN(4000)) / 1000
			}
			ts[i] = x
		}
		s := statsOf(t, ts, nil, StatsOptions{PeakWindows: []float64{1, 7.5}, Scales: []float64{0.5, 3}})
		for _, p := range s.Peaks {
			best := int64(0)
			for _, start := range ts { // an optimal window starts at a job
				c := int64(0)
				for _, y := range ts {
					if y >= start && y < start+p.Window {
						c++
					}
				}
				best = max(best, c)
			}
			if p.Jobs != best {
				t.Fatalf("trial %d: peak over %v s = %d, brute force %d", trial, p.Window, p.Jobs, best)
			}
		}
		for _, d := range s.Dispersion {
			nb := int(math.Floor((ts[n-1] - ts[0]) / d.Scale))
			counts := make([]float64, nb)
			for _, y := range ts {
				if k := int(math.Floor((y - ts[0]) / d.Scale)); k < nb {
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

func TestStatsInvalid(t *testing.T) {
	if _, err := NewStats(StatsOptions{PeakWindows: []float64{0}}); err == nil {
		t.Error("window 0: error = nil")
	}
	if _, err := NewStats(StatsOptions{Scales: []float64{math.Inf(1)}}); err == nil {
		t.Error("scale +Inf: error = nil")
	}
	s, _ := NewStats(StatsOptions{})
	s.Add(5, 0)
	if err := s.Add(4, 0); err == nil {
		t.Error("Add going back: error = nil")
	}
	if err := s.Add(math.NaN(), 0); err == nil {
		t.Error("Add(NaN): error = nil")
	}
	sum := s.Summary()
	if sum.Jobs != 1 || sum.Duration != 0 || !math.IsNaN(sum.MeanRate) || !math.IsNaN(sum.GapMean) {
		t.Errorf("one job: %+v, want 1 job, duration 0, NaN rate and gap mean", sum)
	}
	if empty := (&Stats{}); empty.n != 0 {
		t.Fatal()
	}
}
