package buckets

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// delayLog is a Recorder that keeps every job's sub-bucket and delays.
type delayLog struct {
	sub   []int
	one   []float64
	split []float64
}

func (d *delayLog) Arrived(j Job, sub int) {
	d.sub = append(d.sub, sub)
	d.one = append(d.one, math.NaN())
	d.split = append(d.split, math.NaN())
}

func (d *delayLog) Served(id int64, sub int, delay engine.Time) {
	if sub == OneBucket {
		d.one[id] = float64(delay)
	} else {
		d.split[id] = float64(delay)
	}
}

// compareRun runs times through a Compare of one against subs with the
// given dispatch (a name, or "column" with subOf giving each job's
// sub-bucket) and returns the recorder and the Compare after Finish.
func compareRun(t *testing.T, one Params, subs []Params, dispatch string, times []float64, subOf []int, allowUnequal bool, opts ...Option) (*delayLog, *Compare) {
	t.Helper()
	ob, err := NewTokenBucket(one, opts...)
	if err != nil {
		t.Fatal(err)
	}
	var sbs []*TokenBucket
	rates := make([]float64, len(subs))
	for l, p := range subs {
		sb, err := NewTokenBucket(p, opts...)
		if err != nil {
			t.Fatal(err)
		}
		sbs = append(sbs, sb)
		rates[l] = p.Rate
	}
	disp, err := NewDispatcher(dispatch, rates, nil)
	if err != nil {
		t.Fatal(err)
	}
	rec := &delayLog{}
	c, err := NewCompare(ob, sbs, disp, rec, allowUnequal)
	if err != nil {
		t.Fatal(err)
	}
	for i, at := range times {
		j := Job{T: engine.Time(at), Sub: -1}
		if subOf != nil {
			j.Sub = subOf[i]
		}
		if err := c.Arrive(j); err != nil {
			t.Fatal(err)
		}
	}
	c.Finish()
	return rec, c
}

func equalDelays(t *testing.T, name string, got, want []float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d delays, want %d", name, len(got), len(want))
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-12*math.Max(1, math.Abs(want[i])) {
			t.Errorf("%s: job %d delay = %.17g, want %.17g", name, i, got[i], want[i])
		}
	}
}

func sum(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s
}

func newTestRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed)) }
