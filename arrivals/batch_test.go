package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestBatchMoments checks each batch-size law: the sizes (runs of equal
// times) have the law's mean and second moment, the mean job rate is the
// target, and the gaps have SCV 2·E[S] - 1. The sizes are i.i.d., so
// their mean's standard error is sd(S)/sqrt(batches); the rate's
// relative standard error is sqrt(E[S²]/E[S]/(λT)) (the index of
// dispersion of a compound Poisson count is E[S²]/E[S]); the gap SCV's
// comes from 20 batch means. Tolerances are 5 standard errors.
func TestBatchMoments(t *testing.T) {
	n := 600_000
	if testing.Short() {
		n = 150_000
	}
	const rate = 0.9
	for _, size := range []BatchSize{{"geom", 4}, {"geom", 1}, {"fixed", 3}, {"poisson", 3}, {"uniform", 2.5}} {
		b, err := NewBatch(rate, size, rand.NewPCG(6, 6))
		if err != nil {
			t.Fatal(err)
		}
		ts := drawTimes(t, b, n)
		// Batch times are distinct with probability 1: runs are batches.
		var sizes []float64
		run := 1.0
		for i := 1; i < len(ts); i++ {
			if ts[i] == ts[i-1] {
				run++
				continue
			}
			sizes = append(sizes, run)
			run = 1
		}
		var s1, s2 float64
		for _, s := range sizes {
			s1 += s
			s2 += s * s
		}
		k := float64(len(sizes))
		m1, m2 := s1/k, s2/k
		wantM2 := size.SecondMoment()
		sd := math.Sqrt(max(wantM2-size.Mean*size.Mean, 0))
		if se := sd / math.Sqrt(k); math.Abs(m1-size.Mean) > 5*se+1e-12 {
			t.Errorf("%+v: mean batch size %v, want %v within 5 SE (%.3g)", size, m1, size.Mean, 5*se)
		}
		if size.Law == "fixed" && (m2 != wantM2 || m1 != size.Mean) {
			t.Errorf("%+v: E[S²] = %v, E[S] = %v, want exactly %v and %v", size, m2, m1, wantM2, size.Mean)
		}
		if math.Abs(m2/wantM2-1) > 0.03 {
			t.Errorf("%+v: E[S²] = %v, want %v within 3%%", size, m2, wantM2)
		}
		idc := wantM2 / size.Mean
		got := float64(n) / ts[n-1]
		if se := math.Sqrt(idc / float64(n)); math.Abs(got/rate-1) > 5*se {
			t.Errorf("%+v: rate %v jobs/s, want %v within 5 relative SE (%.3g)", size, got, rate, 5*se)
		}
		wantSCV := 2*size.Mean - 1
		gotSCV, se := batchMeansSE(gapsOf(ts), 20, sampleSCV)
		if math.Abs(gotSCV-wantSCV) > 5*se+1e-9 {
			t.Errorf("%+v: gap SCV %v, want 2E[S] - 1 = %v within 5 SE (%.3g)", size, gotSCV, wantSCV, 5*se)
		}
	}
}

func TestNewBatchInvalid(t *testing.T) {
	for _, tc := range []struct {
		rate float64
		size BatchSize
		want string
	}{
		{0, BatchSize{"geom", 2}, "rate 0 "},
		{1, BatchSize{"geom", 0.5}, "mean 0.5 "},
		{1, BatchSize{"fixed", 2.5}, "whole mean"},
		{1, BatchSize{"uniform", 2.25}, "2·mean whole"},
		{1, BatchSize{"zipf", 2}, "\"zipf\""},
	} {
		_, err := NewBatch(tc.rate, tc.size, rand.NewPCG(1, 1))
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: batch") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewBatch(%g, %+v) error = %v, want one containing %q", tc.rate, tc.size, err, tc.want)
		}
	}
}
