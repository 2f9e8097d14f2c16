package buckets

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// TestWeightedShares draws n = 10^6 jobs with weights 0.7, 0.2, 0.1 (not
// the rate shares of the sub-buckets, which are equal): each sub-bucket's
// count is binomial(n, p_l), whose standard deviation is at most
// sqrt(n/4) = 500; a tolerance of 5 standard deviations (2500 jobs) fails
// with probability below 1e-6 per count, and the seed is fixed.
func TestWeightedShares(t *testing.T) {
	weights := []float64{0.7, 0.2, 0.1}
	d, err := NewWeightedDispatcher(weights, rand.NewPCG(1, 2))
	if err != nil {
		t.Fatal(err)
	}
	subs := equalSubs(t, 3)
	const n = 1_000_000
	var counts [3]int
	for i := range n {
		l, err := d.Dispatch(Job{ID: int64(i)}, subs)
		if err != nil {
			t.Fatal(err)
		}
		counts[l]++
	}
	for l, w := range weights {
		want := w * n
		if got := float64(counts[l]); math.Abs(got-want) > 2500 {
			t.Errorf("sub-bucket %d: %v of %d jobs, want %v ± 2500", l, got, n, want)
		}
	}
}

// TestWeightedZero: a zero weight is never chosen, also at the ends.
func TestWeightedZero(t *testing.T) {
	for _, weights := range [][]float64{{0, 1}, {1, 0}, {0, 1, 0}} {
		d, err := NewWeightedDispatcher(weights, rand.NewPCG(3, 4))
		if err != nil {
			t.Fatal(err)
		}
		subs := equalSubs(t, len(weights))
		for i := range 10000 {
			l, _ := d.Dispatch(Job{ID: int64(i)}, subs)
			if weights[l] == 0 {
				t.Fatalf("weights %v: job %d sent to sub-bucket %d of weight 0", weights, i, l)
			}
		}
	}
}

// TestWeightedLikeRandom: with the rates as weights, "weighted" makes the
// same choices as "random" from the same source (the same draw and the same
// cumulative search, up to ties of probability 0).
func TestWeightedLikeRandom(t *testing.T) {
	rates := []float64{0.25, 0.5, 0.25}
	w, err := NewDispatcher("weighted", rates, rand.NewPCG(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	r, err := NewDispatcher("random", rates, rand.NewPCG(5, 6))
	if err != nil {
		t.Fatal(err)
	}
	subs := equalSubs(t, 3)
	for i := range 10000 {
		a, _ := w.Dispatch(Job{ID: int64(i)}, subs)
		b, _ := r.Dispatch(Job{ID: int64(i)}, subs)
		if a != b {
			t.Fatalf("job %d: weighted chose %d, random %d", i, a, b)
		}
	}
}

// TestWeightedErrors: invalid weights and a nil source are errors naming
// the value; negative weights wrap ErrParam.
func TestWeightedErrors(t *testing.T) {
	src := rand.NewPCG(1, 1)
	for _, tc := range []struct {
		weights []float64
		src     rand.Source
	}{
		{nil, src},
		{[]float64{0.5, -0.1}, src},
		{[]float64{math.NaN(), 1}, src},
		{[]float64{math.Inf(1), 1}, src},
		{[]float64{0, 0}, src},
		{[]float64{1, 1}, nil},
	} {
		if _, err := NewWeightedDispatcher(tc.weights, tc.src); err == nil {
			t.Errorf("NewWeightedDispatcher(%v, %v): no error", tc.weights, tc.src)
		}
	}
	_, err := NewWeightedDispatcher([]float64{0.5, -0.1}, src)
	if !errors.Is(err, ErrParam) {
		t.Errorf("negative weight: error %v does not wrap ErrParam", err)
	}
}

func equalSubs(t *testing.T, k int) []*TokenBucket {
	t.Helper()
	subs := make([]*TokenBucket, k)
	for l := range subs {
		b, err := NewTokenBucket(Params{Rate: 1, Burst: 1})
		if err != nil {
			t.Fatal(err)
		}
		subs[l] = b
	}
	return subs
}
