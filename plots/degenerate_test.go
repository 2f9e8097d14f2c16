package plots

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"
	"testing"
	"time"
)

// degenerate are data sets every figure must draw, or refuse with an
// error that says why: each is the x and y of one series.
var degenerate = []struct {
	name string
	x, y []float64
}{
	{"empty", nil, nil},
	{"one point", []float64{0.5}, []float64{2}},
	{"one point at 0", []float64{0}, []float64{0}},
	{"constant 1", []float64{1, 2, 3}, []float64{1, 1, 1}}, // b(r) = 1 at every rate: the log-tick hang
	{"constant x", []float64{2, 2, 2}, []float64{1, 2, 3}},
	{"all zero", []float64{0, 0, 0}, []float64{0, 0, 0}},
	{"negative", []float64{-3, -2, -1}, []float64{-5, -1, -0.5}},
	{"sign change", []float64{-1, 0, 1}, []float64{-1, 0, 1}},
	{"all NaN", []float64{nan, nan}, []float64{nan, nan}},
	{"some NaN", []float64{1, 2, 3}, []float64{1, nan, 3}},
	{"infinities", []float64{1, 2, 3}, []float64{inf, -inf, 1}},
	{"all infinite", []float64{-inf, inf}, []float64{inf, inf}},
	{"float64 extremes", []float64{-math.MaxFloat64, math.MaxFloat64}, []float64{-math.MaxFloat64, math.MaxFloat64}},
	{"huge constant", []float64{math.MaxFloat64, math.MaxFloat64}, []float64{math.MaxFloat64, math.MaxFloat64}},
	{"subnormal", []float64{5e-324, 1e-323}, []float64{5e-324, 1e-323}},
	{"flat at 1e15", []float64{1e15, 1e15 + 0.125}, []float64{1e15, 1e15 + 0.125}},
	{"600 decades", []float64{1e-300, 1e300}, []float64{1e-300, 1e300}},
	{"decreasing x", []float64{3, 2, 1}, []float64{1, 2, 3}},
	{"probabilities 0 and 1", []float64{0, 1}, []float64{0, 1}},
}

var (
	nan = math.NaN()
	inf = math.Inf(1)
)

// at returns xs[i], or def when xs is shorter.
func at(xs []float64, i int, def float64) float64 {
	if i >= 0 && i < len(xs) {
		return xs[i]
	}
	return def
}

// counts turns values into counts: finite ones truncated (and clamped to
// int64), others 0.
func counts(ys []float64) []int64 {
	out := make([]int64, len(ys))
	for i, y := range ys {
		if finite(y) {
			out[i] = int64(math.Max(math.Min(y, 1e18), -1e18))
		}
	}
	return out
}

func scaled(ys []float64, f float64) []float64 {
	out := make([]float64, len(ys))
	for i, y := range ys {
		out[i] = y * f
	}
	return out
}

// figureMakers make, for every exported figure of the package, a figure
// from one degenerate series on linear or log axes (the argument log),
// feeding it to every field that takes a series.
var figureMakers = map[string]func(x, y []float64, log bool) (Figure, error){
	"LinePlot": func(x, y []float64, log bool) (Figure, error) {
		return &LinePlot{Title: "t", XLabel: "x", YLabel: "y", LogX: log, LogY: log, Lines: []Line{
			{Label: "band", X: x, Y: y, Lo: scaled(y, 0.9), Hi: scaled(y, 1.1), Marks: true},
			{Label: "steps", X: x, Y: y, Step: true, Color: 1},
			{Label: "dashed", X: x, Y: y, Dashed: true, Color: -1},
		}}, nil
	},
	"LinePlot/XTicks": func(x, y []float64, log bool) (Figure, error) {
		return &LinePlot{XTicks: x, LogX: log, Lines: []Line{{Label: "a", X: x, Y: y}}}, nil
	},
	"LinePlot/ranges": func(x, y []float64, log bool) (Figure, error) {
		return &LinePlot{LogX: log, LogY: log, XRange: [2]float64{at(x, 0, 0), at(x, 1, 1)}, YRange: [2]float64{at(y, 0, 0), at(y, 1, 1)},
			Lines: []Line{{Label: "a", X: x, Y: y}}}, nil
	},
	"Stack": func(x, y []float64, log bool) (Figure, error) {
		return &Stack{Title: "t", Panels: []*LinePlot{
			{XLabel: "x", YLabel: "y", LogX: log, LogY: log, Lines: []Line{{Label: "a", X: x, Y: y}}},
			{XLabel: "x", YLabel: "y", LogY: log, Lines: []Line{{Label: "b", X: []float64{1, 2}, Y: []float64{1, 2}}}},
		}, Heights: []float64{2, 1}}, nil
	},
	"HeatMap/columns": func(x, y []float64, log bool) (Figure, error) {
		return &HeatMap{Title: "t", X: x, Y: []float64{0, 1}, Z: [][]float64{y, y}, LogZ: log, Diagonal: "d"}, nil
	},
	"HeatMap/rows": func(x, y []float64, log bool) (Figure, error) {
		z := make([][]float64, len(x))
		for j := range z {
			z[j] = []float64{y[j]}
		}
		return &HeatMap{Title: "t", X: []float64{0}, Y: x, Z: z, LogZ: log, Diagonal: "d"}, nil
	},
	"HeatMap/values": func(x, y []float64, log bool) (Figure, error) {
		xs := make([]float64, len(y))
		for i := range xs {
			xs[i] = float64(i)
		}
		return &HeatMap{Title: "t", X: xs, Y: []float64{0, 1}, Z: [][]float64{y, x}, LogZ: log, MaskLabel: "m",
			Masked: [][]bool{{true}}}, nil
	},
	"TraceFigure/rates": func(x, y []float64, log bool) (Figure, error) {
		return &TraceFigure{Title: "t", RateWidth: at(x, 0, 60), RateCounts: counts(y), MeanRate: at(y, 0, 1)}, nil
	},
	"TraceFigure/gaps": func(x, y []float64, log bool) (Figure, error) {
		return &TraceFigure{RateWidth: 1, RateCounts: []int64{1, 2}, GapEdges: x, GapCCDF: y,
			GapMean: at(x, 0, 1), TieFraction: at(y, 0, 0)}, nil
	},
	"TraceFigure/burst": func(x, y []float64, log bool) (Figure, error) {
		return &TraceFigure{RateWidth: 1, RateCounts: []int64{1, 2}, Rates: x, Burst: y, BurstTarget: y, TargetLabel: "t"}, nil
	},
	"ArrivalCurves": func(x, y []float64, log bool) (Figure, error) {
		ones := make([]float64, len(x))
		for i := range ones {
			ones[i] = 1
		}
		return ArrivalCurves{Title: "t", Limiters: []LimiterCurve{
			{Name: "a", D: x, Jobs: y, Promise: ones, PromiseName: "1"},
			{Name: "b", D: x, Jobs: ones, Promise: y, PromiseName: "y", PromiseStep: true, Marks: true},
		}}.Figure()
	},
	"BoundaryZoom": func(x, y []float64, log bool) (Figure, error) {
		return BoundaryZoom{Title: "t", From: at(x, 0, 0), To: at(x, len(x)-1, 1), Edges: y,
			Streams: []ZoomSeries{{Name: "x", T: x}, {Name: "y", T: y}}}.Figure()
	},
	"Response": func(x, y []float64, log bool) (Figure, error) {
		return Response{Title: "t", Curves: []ResponseCurve{{Name: "a", Deficit: x, P: y}, {Name: "m", Deficit: x, P: y, Measured: true}}}.Figure()
	},
}

// TestDegenerateData feeds every degenerate series to every figure, on
// linear and log axes, and saves it. Each must return (a goroutine and a
// generous limit detect a hang; the limit is no speed requirement) without
// panicking, and either write a non-empty file or return a one-line
// error, prefixed "plots:", that says why and leaves no file.
func TestDegenerateData(t *testing.T) {
	dir := t.TempDir()
	if d := os.Getenv("PLOTS_DEGENERATE_DIR"); d != "" {
		dir = d // to look at the figures
	}
	n := 0
	for _, fig := range slices.Sorted(maps.Keys(figureMakers)) {
		make := figureMakers[fig]
		for _, d := range degenerate {
			for _, log := range []bool{false, true} {
				name := fmt.Sprintf("%s/%s/log=%t", fig, d.name, log)
				// Each case in one format, all three in turn (SVG only
				// with -short: PNG takes the time).
				ext := Formats[n%len(Formats)]
				n++
				if testing.Short() {
					ext = "svg"
				}
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					path := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_", "=", "").Replace(name)+"."+ext)
					err := returns(t, name, func() error {
						f, err := make(d.x, d.y, log)
						if err != nil {
							return err
						}
						return f.Save(path)
					})
					checkOutcome(t, path, err)
					if err != nil && testing.Verbose() {
						t.Log(err)
					}
				})
			}
		}
	}
}

// hangLimit is how long a figure may take before returns reports a
// hang: far beyond the milliseconds a figure takes, as it is there to
// stop a runaway loop (which would fill the memory) rather than to time
// anything.
const hangLimit = 2 * time.Minute

// returns runs f on its own goroutine and returns its error; a panic
// fails the test with its stack, and no return within hangLimit stops the
// test binary with every goroutine's stack.
func returns(t *testing.T, name string, f func() error) error {
	t.Helper()
	type result struct {
		err   error
		panic any
		stack []byte
	}
	done := make(chan result, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- result{panic: r, stack: debug.Stack()}
			}
		}()
		done <- result{err: f()}
	}()
	select {
	case r := <-done:
		if r.panic != nil {
			t.Fatalf("panic: %v\n%s", r.panic, r.stack)
		}
		return r.err
	case <-time.After(hangLimit):
		panic(fmt.Sprintf("%s: no return after %v: a hang", name, hangLimit))
	}
}

// checkOutcome checks that err is nil and path a non-empty file, or err
// a one-line "plots:" error with a reason and no file at path.
func checkOutcome(t *testing.T, path string, err error) {
	t.Helper()
	fi, statErr := os.Stat(path)
	if err != nil {
		msg := err.Error()
		if !strings.HasPrefix(msg, "plots: ") || strings.Contains(msg, "\n") || len(strings.TrimSpace(strings.TrimPrefix(msg, "plots: "))) < 10 {
			t.Errorf("error %q: want one line, prefixed \"plots: \", saying why", msg)
		}
		if statErr == nil {
			t.Errorf("error %q, yet %s was written", msg, path)
		}
		return
	}
	if statErr != nil || fi.Size() == 0 {
		t.Errorf("no error, and no figure at %s (%v)", path, statErr)
	}
}
