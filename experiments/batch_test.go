package experiments

import (
	"bytes"
	"context"
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// perJob hides a process's NextTimes, so that Run takes the per-job path.
type perJob struct{ p arrivals.Process }

func (s perJob) Next() (arrivals.Arrival, error) { return s.p.Next() }

// TestBatchPathResult: Run on the batch path (Poisson arrivals drawn a
// batch of instants at a time, round-robin) gives the result of the
// per-job path, field by field (the check may evaluate fewer instants),
// and the same per-job rows, at loads below and above 1, with a warm-up.
func TestBatchPathResult(t *testing.T) {
	for _, c := range []struct {
		load   float64
		k      int
		jobs   int64
		warmup int64
	}{{0.3, 2, 100_000, 0}, {0.9, 2, 200_000, 1000}, {1.1, 3, 100_000, 0}, {0.99, 4, 150_000, 5000}} {
		one := pp("1", "10")
		subs, _ := buckets.EqualSplit(one, c.k)
		spec := RunSpec{One: one, Subs: subs, Dispatch: "rr", Seed: 3, MaxJobs: c.jobs, Warmup: c.warmup}
		var rows [2]bytes.Buffer
		var res [2]Result
		for path := range 2 {
			proc, err := arrivals.NewPoisson(c.load, Source(spec.Seed, systems.StreamArrivals))
			if err != nil {
				t.Fatal(err)
			}
			var p arrivals.Process = proc
			if path == 1 {
				p = perJob{proc}
			}
			if res[path], err = Run(context.Background(), spec, p, &rows[path]); err != nil {
				t.Fatal(err)
			}
		}
		if res[0].Check.Evaluated > res[1].Check.Evaluated {
			t.Errorf("load %g: batch path evaluated %d instants, per-job path %d", c.load, res[0].Check.Evaluated, res[1].Check.Evaluated)
		}
		res[0].Check.Evaluated = res[1].Check.Evaluated
		a, _ := json.Marshal(res[0])
		b, _ := json.Marshal(res[1])
		if !bytes.Equal(a, b) {
			t.Errorf("load %g: batch path\n%s\nper-job path\n%s", c.load, a, b)
		}
		if res[0].One.Quantiles != "exact" {
			t.Errorf("load %g: quantiles %q", c.load, res[0].One.Quantiles)
		}
		if !bytes.Equal(rows[0].Bytes(), rows[1].Bytes()) {
			t.Errorf("load %g: the rows differ", c.load)
		}
	}
}

// TestHistogramQuantiles: beyond ExactQuantileJobs delayed jobs, a run's
// quantiles come from the log-linear histogram within HistogramAccuracy
// of the exact nearest-rank values (sorted here), the maximum, total and
// counts stay exact, and the label says so.
func TestHistogramQuantiles(t *testing.T) {
	src := rand.New(rand.NewPCG(26, 4))
	st := newRunStats()
	st.setDen(1)
	n := ExactQuantileJobs*4/3 + 300_000
	ws := make([]int64, n)
	var sum exact.Int128
	for i := range ws {
		if src.IntN(4) > 0 {
			ws[i] = int64(math.Exp(src.Float64()*40)) + 1 // 1 ns to 7 years, log-uniform
			sum = sum.Add64(ws[i])
		}
	}
	for b := 0; b < n; b += 1000 {
		st.addUnitsBatch(ws[b:min(n, b+1000)], 1)
	}
	s := st.stats()
	if s.Quantiles != "log-linear histogram, relative accuracy 0.00390625" {
		t.Errorf("quantiles %q", s.Quantiles)
	}
	sorted := slices.Clone(ws)
	slices.Sort(sorted)
	for _, c := range []struct {
		permille int64
		got      float64
	}{{500, s.P50}, {900, s.P90}, {990, s.P99}, {999, s.P999}} {
		want := float64(sorted[rank(c.permille, int64(n))-1]) / 1e9
		if math.Abs(c.got-want) > want*HistogramAccuracy {
			t.Errorf("p%d = %v s, exact %v s: beyond %g relative", c.permille, c.got, want, HistogramAccuracy)
		}
	}
	if want := float64(sorted[n-1]) / 1e9; s.Max != want {
		t.Errorf("max %v, want %v", s.Max, want)
	}
	if total := exact.Frac(sum, 1).QuoFloat64(1e9); s.Total != total {
		t.Errorf("total %v, want %v", s.Total, total)
	}
	if s.Jobs != int64(n) || s.Delayed != int64(n-slices.IndexFunc(sorted, func(w int64) bool { return w > 0 })) {
		t.Errorf("jobs %d delayed %d", s.Jobs, s.Delayed)
	}
}
