package splitstudy

import (
	"context"
	"fmt"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// figureByName returns the named figure or fails.
func figureByName(t *testing.T, figs []experiments.NamedFigure, name string) plots.Figure {
	t.Helper()
	for _, f := range figs {
		if f.Name == name {
			return f.Figure
		}
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	t.Fatalf("no figure %q among %v", name, names)
	return nil
}

// TestSweepFiguresData checks the data behind the sweep figures of the
// small spec (grid load × q × p) against the points themselves.
func TestSweepFiguresData(t *testing.T) {
	s := smallSpec(t)
	res, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Version = "test"
	figs := SweepFigures(res)
	if len(figs) != 6 {
		t.Errorf("%d figures, want heat map, ratio and delay for each of 2 loads", len(figs))
	}
	// The point with the given load, q and p.
	at := func(load, q, p float64) *PointResult {
		for i := range res.Points {
			r := &res.Points[i]
			if r.Load == load && r.RateShares[0] == q && r.TrafficShares[0] == p {
				return r
			}
		}
		t.Fatalf("no point at load %v, q %v, p %v", load, q, p)
		return nil
	}
	// No band of a mean delay reaches below 0.
	for _, f := range figs {
		if lp, ok := f.Figure.(*plots.LinePlot); ok && strings.HasPrefix(f.Name, "delay-") {
			for _, l := range lp.Lines {
				for _, lo := range l.Lo {
					if lo < 0 {
						t.Errorf("%s, %s: band down to %v < 0", f.Name, l.Label, lo)
					}
				}
			}
		}
	}
	hm := figureByName(t, Named(figs), "heatmap-load0.8").(*plots.HeatMap)
	if want := []float64{0.25, 0.5, 0.75}; !equalFloats(hm.X, want) || !equalFloats(hm.Y, want) {
		t.Errorf("heat map cells x %v, y %v; want %v", hm.X, hm.Y, want)
	}
	for j, q := range hm.Y {
		for i, p := range hm.X {
			r := at(0.8, q, p)
			// Sub-bucket loads p·0.8/q and (1-p)·0.8/(1-q), computed here.
			overloaded := p*0.8/q >= 1 || (1-p)*0.8/(1-q) >= 1
			if hm.Z[j][i] != float64(r.Ratio) || hm.Masked[j][i] != overloaded {
				t.Errorf("cell (p %v, q %v) = %v masked %v; want %v masked %v", p, q, hm.Z[j][i], hm.Masked[j][i], r.Ratio, overloaded)
			}
		}
	}
	if !strings.Contains(hm.Caption, "seed 5") || !strings.Contains(hm.Caption, "load ρ = 0.8") || !hm.LogZ {
		t.Errorf("heat map caption %q", hm.Caption)
	}
	rp := figureByName(t, Named(figs), "ratio-load0.6").(*plots.LinePlot)
	if len(rp.Lines) != 3 {
		t.Fatalf("%d ratio curves, want one per q", len(rp.Lines))
	}
	for _, l := range rp.Lines {
		q := 0.0
		if _, err := fmt.Sscan(strings.TrimPrefix(l.Label, "q = "), &q); err != nil {
			t.Fatalf("curve label %q", l.Label)
		}
		for i, p := range l.X {
			r := at(0.6, q, p)
			want := float64(r.Ratio)
			if !r.Stable() {
				want = math.NaN()
			}
			if !sameFloat(l.Y[i], want) || (r.Stable() && (l.Lo[i] != float64(r.RatioLo) || l.Hi[i] != float64(r.RatioHi))) {
				t.Errorf("ratio curve q %v at p %v: %v [%v, %v], want %v [%v, %v]", q, p, l.Y[i], l.Lo[i], l.Hi[i], want, r.RatioLo, r.RatioHi)
			}
		}
	}
	dp := figureByName(t, Named(figs), "delay-load0.6").(*plots.LinePlot)
	var labels []string
	for _, l := range dp.Lines {
		labels = append(labels, l.Label)
	}
	if got := strings.Join(labels, "|"); got != "split, q = 0.25|split, q = 0.5|one bucket, q = 0.5|split, q = 0.75" {
		t.Errorf("delay curves %q", got)
	}
	// Save them all: valid PNGs.
	dir := t.TempDir()
	paths, err := experiments.SaveFigures(t.Context(), Named(figs), dir, "png")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		checkPNG(t, p)
	}
	rows := LeastBad(res)
	if len(rows) != 2 || rows[0].Group != "ρ = 0.6" || rows[0].Points != 9 {
		t.Errorf("least-bad rows %+v", rows)
	}
	for _, row := range rows {
		if !(row.Lo <= row.Ratio && row.Ratio <= row.Hi) {
			t.Errorf("least-bad row %+v: ratio outside its interval", row)
		}
	}
}

// TestRunFiguresData checks the data behind the single-run figures of the
// hand-computed example.
func TestRunFiguresData(t *testing.T) {
	spec, proc := fourAtZero()
	_, ser, err := RunSeries(context.Background(), spec, proc, nil, SeriesOptions{})
	if err != nil {
		t.Fatal(err)
	}
	figs := RunFigures(ser, "four jobs at 0")
	ccdf := figureByName(t, figs, "latency-ccdf").(*plots.LinePlot)
	// P(delay > x) of the one bucket (delays 0, 0, 1, 2 s): 1/2 from 0,
	// 1/4 from 1, holding to the largest delay, 2 s, where the curve ends
	// with a mark: the x axis reaches the maximum.
	if l := ccdf.Lines[0]; !equalFloats(l.X, []float64{0, 1, 2}) || !equalFloats(l.Y, []float64{0.5, 0.25, 0.25}) || !strings.Contains(l.Label, "max 2 s") {
		t.Errorf("one-bucket CCDF x %v y %v (%q), want x 0, 1, 2, y 0.5, 0.25, 0.25, max 2 s", l.X, l.Y, l.Label)
	}
	if m := ccdf.Lines[1]; !m.Marks || !equalFloats(m.X, []float64{2}) || !equalFloats(m.Y, []float64{0.25}) {
		t.Errorf("mark at the largest one-bucket delay %v, %v; want (2, 0.25)", m.X, m.Y)
	}
	// Split delays 0, 0, 2, 2: one positive value, drawn as a mark that
	// says so.
	if m := ccdf.Lines[2]; !m.Marks || !equalFloats(m.X, []float64{2}) || !equalFloats(m.Y, []float64{0.5}) || !strings.Contains(m.Label, "every delayed job waits 2 s") {
		t.Errorf("split CCDF %+v, want one mark at (2, 0.5) saying so", m)
	}
	// The CDF draws the atom at 0: from (0, 0) up to (0, 1/2), labelled.
	cdf := figureByName(t, figs, "latency-cdf").(*plots.LinePlot)
	if l := cdf.Lines[0]; len(l.X) < 2 || l.X[0] != 0 || l.Y[0] != 0 || l.X[1] != 0 || l.Y[1] != 0.5 || !strings.Contains(l.Label, "P(delay = 0) = 0.5") {
		t.Errorf("CDF without the atom at 0: x %v y %v %q", l.X, l.Y, l.Label)
	}
	q := figureByName(t, figs, "queue").(*plots.LinePlot)
	if !equalFloats(q.Lines[0].Y, []float64{2, 1, 0}) || !equalFloats(q.Lines[1].Y, []float64{2, 2, 0}) || !q.Lines[0].Step {
		t.Errorf("queue steps %v and %v, want 2, 1, 0 and 2, 2, 0", q.Lines[0].Y, q.Lines[1].Y)
	}
	acc := figureByName(t, figs, "accrued-delay").(*plots.Stack)
	gap := acc.Panels[1].Lines[0].Y
	if gap[len(gap)-1] != 1 { // S^(k)(2) - S(2) = 4 - 3
		t.Errorf("final gap %v, want 1", gap[len(gap)-1])
	}
	dir := t.TempDir()
	paths, err := experiments.SaveFigures(t.Context(), figs, dir, "png")
	if err != nil || len(paths) != 4 {
		t.Fatalf("saved %v, %v", paths, err)
	}
	for _, p := range paths {
		checkPNG(t, p)
	}
}

func checkPNG(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := png.DecodeConfig(f); err != nil {
		t.Errorf("%s is not a PNG: %v", filepath.Base(path), err)
	}
}

// equalFloats reports whether a and b hold the same values, NaN equal
// to NaN.
func equalFloats(a, b []float64) bool { return slices.EqualFunc(a, b, sameFloat) }

func sameFloat(a, b float64) bool { return a == b || (math.IsNaN(a) && math.IsNaN(b)) }

// sweepFigures runs the sweep of the YAML spec and returns its figures.
func sweepFigures(t *testing.T, spec string) []SweepFigure {
	t.Helper()
	s, err := ParseSpec(strings.NewReader(spec), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return SweepFigures(res)
}

// TestSweepCaptionPlottedAxes: a caption states what the figure holds
// fixed, never a plotted axis at the value of the group's first point
// (issue 15: with k plotted it read "k = 1, rate shares 1, burst shares
// 1"); when the curves show some of the values of an axis, the caption
// says which.
func TestSweepCaptionPlottedAxes(t *testing.T) {
	figs := sweepFigures(t, `
load: 0.5
rate: 2
jobs: 200
warmup: 0
replications: 2
seed: 1
sweep:
  burst: [2, 4, 8, 16, 32, 64, 128, 256, 512]
  k: [1, 2]
`)
	lp := figureByName(t, Named(figs), "ratio-grid0").(*plots.LinePlot)
	for _, bad := range []string{"k = ", "rate shares 1", "burst shares 1", "b = "} {
		if strings.Contains(lp.Caption, bad) {
			t.Errorf("caption %q states the plotted axis (%q)", lp.Caption, bad)
		}
	}
	for _, want := range []string{
		"Poisson arrivals, load ρ = 0.5, r = 2 tokens/s, equal rate and burst shares (1/k each); rr dispatch, fcfs;",
		"200 jobs after 0 warm-up, 2 replications per point; seed 1",
		"curves for 5 of the 9 values of burst (2, 8, 32, 128, 512; every value is in results.csv)",
	} {
		if !strings.Contains(lp.Caption, want) {
			t.Errorf("caption %q\nwant it to contain %q", lp.Caption, want)
		}
	}
	if len(lp.Lines) != 5 {
		t.Errorf("%d ratio curves, want 5", len(lp.Lines))
	}
}

// TestSweepFigureNumbers: the numbers in titles, legends and captions are
// written as the axes write them: no e-notation at low load, SI prefixes
// for large ones (issue 15: "1e-05", "500000").
func TestSweepFigureNumbers(t *testing.T) {
	for x, want := range map[float64]string{
		0.00001: "0.00001", 0.5: "0.5", 500: "500", 1000: "1000", 9999: "9999",
		500000: "500k", 107550: "107.55k", 1e6: "1M", 2.5e9: "2.5G", 2e-7: "2e-07", 0: "0", -20000: "-20k",
	} {
		if got := experiments.TextNumber(x); got != want {
			t.Errorf("experiments.TextNumber(%v) = %q, want %q", x, got, want)
		}
	}
	figs := sweepFigures(t, `
burst: 4
k: 2
dispatch: weighted
jobs: 100
warmup: 0
replications: 2
seed: 1
sweep:
  load: [0.00001]
  q: [0.25, 0.5]
  p: [0.25, 0.5]
`)
	hm := figureByName(t, Named(figs), "heatmap-load1e-05").(*plots.HeatMap)
	if want := "Split/one mean delay ratio (ρ = 0.00001)"; hm.Title != want {
		t.Errorf("heat map title %q, want %q", hm.Title, want)
	}
	if !strings.Contains(hm.Caption, "load ρ = 0.00001") || strings.Contains(hm.Caption, "e-05") {
		t.Errorf("heat map caption %q", hm.Caption)
	}
}

// TestLeftOutAndLeastBad: at load 0.05 with b = 10 the one bucket delays
// no job (10 tokens, jobs 20 s apart on average: a job would need 10
// arrivals within 10 s), so every ratio is undefined, and the caption says
// so rather than blaming overload; k = 1 is no split (ratio 1 by
// construction) and is never the least bad split.
func TestLeftOutAndLeastBad(t *testing.T) {
	s, err := ParseSpec(strings.NewReader(`
rate: 1
burst: 10
jobs: 400
warmup: 0
replications: 2
sweep:
  load: [0.05, 0.9]
  k: [1, 2, 5]
`), "test.yaml")
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunSweep(context.Background(), s, experiments.SweepOptions{Workers: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, pr := range res.Points {
		if pr.Load == 0.05 && pr.One.Delayed != 0 {
			t.Fatalf("load 0.05: the one bucket delayed %v jobs; the test assumes none", pr.One.Delayed)
		}
	}
	lp := figureByName(t, Named(SweepFigures(res)), "ratio-grid0").(*plots.LinePlot)
	if want := "; left out: 3 where the one bucket delayed no job (ratio undefined), of 6 points"; !strings.HasSuffix(lp.Caption, want) {
		t.Errorf("caption %q\nwant it to end with %q", lp.Caption, want)
	}
	rows := LeastBad(res)
	if len(rows) == 0 {
		t.Fatal("no least bad split")
	}
	for _, row := range rows {
		if !strings.Contains(row.Point, "k = 2") && !strings.Contains(row.Point, "k = 5") {
			t.Errorf("least bad split %+v is k = 1, no split", row)
		}
	}
}

// TestGeometricAxis: the swept k of the split-k sweep (1, 2, 4, ..., 64)
// is drawn on a log axis, loads from 0.3 to 0.95 on a linear one.
func TestGeometricAxis(t *testing.T) {
	for _, c := range []struct {
		xs   []float64
		want bool
	}{
		{[]float64{1, 2, 4, 8, 16, 32, 64}, true}, // ratios all 2, span 64
		{[]float64{1, 2, 8, 64}, true},            // ratios 2, 4, 8
		{[]float64{0.3, 0.5, 0.7, 0.8, 0.9, 0.95}, false},
		{[]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, false}, // span 10, median ratio 1.2
		{[]float64{0, 1, 10, 100}, false},                 // 0 has no place on a log axis
		{[]float64{1, 64}, false},                         // two values: no spacing to judge
	} {
		if got := geometric(c.xs); got != c.want {
			t.Errorf("geometric(%v) = %v, want %v", c.xs, got, c.want)
		}
	}
}

// TestRunCaptionParameters: a run's caption names the warm-up and the
// traffic shares of weighted dispatch when they change the numbers, and
// leaves them out when they do not.
func TestRunCaptionParameters(t *testing.T) {
	spec, _ := fourAtZero()
	plain := RunCaption("four jobs", spec, 4)
	spec.Dispatch, spec.Shares, spec.Warmup = "weighted", []float64{0.25, 0.75}, 2
	c := RunCaption("four jobs", spec, 4)
	for _, want := range []string{"dispatch weighted (traffic shares 0.25 : 0.75)", "the first 2 left out of the delay statistics", "seed"} {
		if !strings.Contains(c, want) {
			t.Errorf("caption %q lacks %q", c, want)
		}
	}
	if strings.Contains(plain, "left out") || strings.Contains(plain, "traffic shares") {
		t.Errorf("caption without warm-up or weights %q names them", plain)
	}
}
