package splitstudy

import (
	"context"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// fourAtZero is the hand-computed example: r = 1, b = 2, four arrivals at
// 0; the one bucket serves them at 0, 0, 1, 2 (jobs 2 and 3 wait); the
// round-robin split (0.5, 1) + (0.5, 1) serves them at 0, 0, 2, 2.
func fourAtZero() (RunSpec, arrivals.Process) {
	spec := RunSpec{One: pp("1", "2"), Subs: []buckets.Params{pp("0.5", "1"), pp("0.5", "1")}, Dispatch: "rr"}
	return spec, &sliceProc{times: []engine.Time{0, 0, 0, 0}}
}

// TestSeriesFourAtZero: N(t) is 2 on [0, 1), 1 on [1, 2), 0 from 2;
// Σ N_l(t) is 2 on [0, 2), 0 from 2. So S(2) = 2 + 1 = 3 and S^(k)(2) =
// 2·2 = 4, the total delays 0+0+1+2 and 0+0+2+2.
func TestSeriesFourAtZero(t *testing.T) {
	for _, opt := range []SeriesOptions{{From: 0, To: 5}, {}} {
		spec, proc := fourAtZero()
		res, ser, err := RunSeries(context.Background(), spec, proc, nil, opt)
		if err != nil {
			t.Fatal(err)
		}
		if res.One.Total != 3 || res.Split.Total != 4 {
			t.Fatalf("totals %v, %v; want 3 and 4", res.One.Total, res.Split.Total)
		}
		want := struct {
			T     []float64
			N, NK []int
		}{[]float64{0, 1, 2}, []int{2, 1, 0}, []int{2, 2, 0}}
		got := struct {
			T     []float64
			N, NK []int
		}{ser.StepT, ser.N, ser.NSplit}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("options %+v: steps (-want +got):\n%s", opt, diff)
		}
		k := len(ser.T) - 1
		if ser.T[k] != 2 || ser.S[k] != 3 || ser.SSplit[k] != 4 {
			t.Errorf("last sample S(%v) = %v, S^(k) = %v; want S(2) = 3, S^(k)(2) = 4", ser.T[k], ser.S[k], ser.SSplit[k])
		}
		// Delays 0, 0, 1, 2: P(0) = 1/2, then 3/4 at 1 and 1 at 2, exactly.
		d := ser.One
		if len(d.X) != 3 || d.X[0] != 0 || d.P[0] != 0.5 || d.P[1] != 0.75 || d.P[2] != 1 || d.X[1] != 1 || d.X[2] != 2 {
			t.Errorf("one-bucket distribution %+v, want P(0) = 0.5, P(1) = 0.75, P(2) = 1", d)
		}
	}
}

// TestSeriesMatchesRun: on a long Poisson run the series ends at the
// totals of Run, S(t) never decreases, S(t) <= S^(k)(t) at every sample
// (Theorem 2), the samples stay within the bound, and the window holds
// the busiest episode.
func TestSeriesMatchesRun(t *testing.T) {
	one := pp("1", "4")
	subs, _ := buckets.EqualSplit(one, 2)
	spec := RunSpec{One: one, Subs: subs, Dispatch: "random", Seed: 3, MaxJobs: 200_000}
	proc := func() arrivals.Process {
		p, err := arrivals.NewPoisson(0.85, experiments.Source(3, systems.StreamArrivals))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	plain, err := Run(context.Background(), spec, proc(), nil)
	if err != nil {
		t.Fatal(err)
	}
	res, ser, err := RunSeries(context.Background(), spec, proc(), nil, SeriesOptions{Samples: 100, WindowSteps: 50})
	if err != nil {
		t.Fatal(err)
	}
	if res.One != plain.One || res.Split != plain.Split || !cmp.Equal(res.Check, plain.Check) {
		t.Fatalf("RunSeries result differs from Run: %+v vs %+v", res, plain)
	}
	if n := len(ser.T); n < 100 || n > 201 {
		t.Errorf("%d samples, want between 100 and 201", n)
	}
	k := len(ser.T) - 1
	if math.Abs(ser.S[k]-res.One.Total) > 1e-9*res.One.Total || math.Abs(ser.SSplit[k]-res.Split.Total) > 1e-9*res.Split.Total {
		t.Errorf("S(end) = %v, S^(k)(end) = %v; totals %v, %v", ser.S[k], ser.SSplit[k], res.One.Total, res.Split.Total)
	}
	for i := 1; i < len(ser.T); i++ {
		if ser.T[i] <= ser.T[i-1] || ser.S[i] < ser.S[i-1] || ser.S[i] > ser.SSplit[i]*(1+1e-12) {
			t.Fatalf("sample %d: t %v after %v, S %v after %v, S^(k) %v", i, ser.T[i], ser.T[i-1], ser.S[i], ser.S[i-1], ser.SSplit[i])
		}
	}
	if len(ser.StepT) == 0 || len(ser.StepT) > 50 {
		t.Fatalf("%d steps in the busiest window, want 1 to 50", len(ser.StepT))
	}
	peak := 0
	for _, n := range ser.NSplit {
		peak = max(peak, n)
	}
	// Independently: the largest Σ N_l over the run, from an explicit
	// window covering it all.
	_, all, err := RunSeries(context.Background(), spec, proc(), nil, SeriesOptions{From: 0, To: 1e12, MaxSteps: 1 << 30})
	if err != nil {
		t.Fatal(err)
	}
	top := 0
	for _, n := range all.NSplit {
		top = max(top, n)
	}
	if peak < top-top/8 {
		t.Errorf("busiest window peaks at %d waiting jobs, the run at %d", peak, top)
	}
	if all.Truncated || all.StepT[0] != 0 {
		t.Errorf("whole-run window: truncated %v, first step %v", all.Truncated, all.StepT[0])
	}
	// The distributions end at 1 and start at the undelayed fraction.
	for _, d := range []struct {
		dist experiments.Distribution
		st   experiments.Stats
	}{{ser.One, res.One}, {ser.Split, res.Split}} {
		if d.dist.P[len(d.dist.P)-1] != 1 || d.dist.X[0] != 0 ||
			math.Abs(d.dist.P[0]-(1-float64(d.st.Delayed)/float64(d.st.Jobs))) > 1e-12 {
			t.Errorf("distribution starts at (%v, %v), ends at %v; want (0, %v) and 1", d.dist.X[0], d.dist.P[0], d.dist.P[len(d.dist.P)-1], 1-float64(d.st.Delayed)/float64(d.st.Jobs))
		}
	}
}
