package splitstudy

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/experiments"
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
			proc, err := arrivals.NewPoisson(c.load, experiments.Source(spec.Seed, systems.StreamArrivals))
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
