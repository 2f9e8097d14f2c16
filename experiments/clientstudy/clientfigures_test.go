package clientstudy

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/plots"
)

// TestClientsFiguresData: the figures of the hand case (3 clients
// at 0 into a policing bucket (1, 1), constant backoff 0.5 s: attempts at
// 0 (3, one passes), 0.5 (2), 1 (2, one passes), 1.5 (1), 2 (1, passes);
// latencies 0, 1, 2 s), in bins of 1 s: offered 3, 0, 0 requests/s;
// retries 2, 3, 1; admitted 1, 1, 1; amplification 5/3 in the first bin
// and none after (no request made there). The latency tail: P(latency > 0)
// = 2/3, P(> 1) = 1/3, P(> 2) = 0 (not drawn on a log axis).
func TestClientsFiguresData(t *testing.T) {
	res := &ClientsResult{
		Foreground: ClientSummary{Requests: 3, Attempts: 9, Successes: 3, Amplification: 3},
		ForegroundSeries: []ClientBin{
			{Start: 0, Requests: 3, Attempts: 5, Successes: 1},
			{Start: 1, Attempts: 3, Successes: 1},
			{Start: 2, Attempts: 1, Successes: 1},
		},
		Latencies: []float64{0, 2, 1},
	}
	res.Spec.Scenario.Bin = engine.Second
	figs := ClientsFigures(res, "hand case")
	if len(figs) != 2 || figs[0].Name != "clients-series" || figs[1].Name != "latency-ccdf" {
		t.Fatalf("figures %v", figs)
	}
	st := figs[0].Figure.(*plots.Stack)
	want := map[string][]float64{
		"offered (new requests)": {3, 0, 0, 0},
		"retries":                {2, 3, 1, 1},
		"admitted":               {1, 1, 1, 1},
		"give-ups":               {0, 0, 0, 0},
	}
	for _, l := range st.Panels[0].Lines {
		if !slices.Equal(l.X, []float64{0, 1, 2, 3}) || !slices.Equal(l.Y, want[l.Label]) || !l.Step {
			t.Errorf("%q: x %v y %v, want x 0..3, y %v", l.Label, l.X, l.Y, want[l.Label])
		}
		delete(want, l.Label)
	}
	if len(want) > 0 {
		t.Errorf("curves missing: %v", want)
	}
	amp := st.Panels[1].Lines[0].Y
	if len(amp) != 4 || amp[0] != 5.0/3 || !math.IsNaN(amp[1]) || !math.IsNaN(amp[2]) {
		t.Errorf("amplification %v, want 5/3 then none", amp)
	}
	if !strings.HasPrefix(st.Caption, "hand case; bins of 1 s; retry amplification over the run 3") {
		t.Errorf("series caption %q", st.Caption)
	}
	cc := figs[1].Figure.(*plots.LinePlot)
	l := cc.Lines[0]
	// Latencies 0, 1, 2: P(latency > x) is 2/3 from 0, 1/3 from 1, and
	// the last step holds to the largest latency, 2, where the curve ends
	// with a mark (the x axis reaches the maximum).
	if !slices.Equal(l.X, []float64{0, 1, 2}) || l.Y[0] != 2.0/3 || l.Y[1] != 1.0/3 || l.Y[2] != 1.0/3 || !cc.LogX || !cc.LogY {
		t.Errorf("latency tail x %v y %v", l.X, l.Y)
	}
	if m := cc.Lines[len(cc.Lines)-1]; !m.Marks || !slices.Equal(m.X, []float64{2}) || !strings.Contains(l.Label, "max 2 s") {
		t.Errorf("no mark at the largest latency 2 s: %+v, label %q", m, l.Label)
	}
	if want := "; 3 admitted of 3 requests, 0 given up (not in the distribution); P(latency > 0) = 0.6667; the curve ends at the largest latency (mark)"; !strings.HasSuffix(cc.Caption, want) {
		t.Errorf("latency caption %q, want it to end %q", cc.Caption, want)
	}
	// Without series (bin 0) or successes, the figures are left out.
	res.Spec.Scenario.Bin, res.Latencies = 0, nil
	if figs := ClientsFigures(res, ""); len(figs) != 0 {
		t.Errorf("%d figures without series and successes", len(figs))
	}
}

// TestCCDFPointsThinned: beyond maxCCDFPoints values the tail keeps a
// point where it moved by more than 1%, and stays exact there.
func TestCCDFPointsThinned(t *testing.T) {
	n := 100000
	xs := make([]float64, n)
	for i := range xs {
		xs[i] = float64(i + 1)
	}
	x, y := ccdfPoints(xs)
	if len(x) > maxCCDFPoints || len(x) < 100 {
		t.Fatalf("%d points", len(x))
	}
	for i := range x {
		if want := float64(n-int(x[i])) / float64(n); !(y[i] == want || i == len(x)-1 && math.IsNaN(y[i])) {
			t.Fatalf("P(> %v) = %v, want %v", x[i], y[i], want)
		}
		if i > 0 && i < len(x)-1 && !(y[i] <= 0.99*y[i-1]*(1+1e-12)) {
			t.Fatalf("point %d: %v after %v, a change under 1%%", i, y[i], y[i-1])
		}
	}
}
