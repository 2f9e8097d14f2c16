package experiments

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/ratesim/ratesim/internal/crash"
	"github.com/ratesim/ratesim/plots"
)

// NamedFigure is a figure and the base name of its file (no extension).
type NamedFigure struct {
	Name   string
	Figure plots.Figure
}

// SaveFigures saves each figure to dir/name.format and returns the paths.
// It stops once ctx is done: it checks ctx before drawing each figure and
// returns the paths saved so far with ctx.Err(). Figures are drawn in
// parallel on GOMAXPROCS goroutines (each figure is independent); the
// paths come back in the order of figs, and on an error SaveFigures
// returns the paths of the figures before the first one that failed, with
// its error.
func SaveFigures(ctx context.Context, figs []NamedFigure, dir, format string) ([]string, error) {
	errs := make([]error, len(figs))
	var failed atomic.Bool // no figure is started after an error
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(figs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if failed.Load() {
					errs[i] = errSkipped
					continue
				}
				if errs[i] = ctx.Err(); errs[i] == nil {
					errs[i] = saveFigure(ctx, figs[i], dir, format)
				}
				if errs[i] != nil {
					failed.Store(true)
				}
			}
		}()
	}
	for i := range figs {
		next <- i
	}
	close(next)
	wg.Wait()
	var paths []string
	for i, f := range figs {
		if errs[i] == errSkipped {
			continue // not drawn after another failed, whose error is returned
		}
		if errs[i] != nil {
			return paths, errs[i]
		}
		paths = append(paths, filepath.Join(dir, f.Name+"."+format))
	}
	return paths, nil
}

// saveFigure saves f to dir/name.format; a panic while drawing is
// returned as a *crash.Error.
//
// It stops waiting when ctx is done, returning ctx.Err() at once: a
// figure is drawn by gonum/plot in one call that cannot be interrupted,
// so the drawing is left to finish on its own goroutine, and writes
// nothing (plots.SaveContext checks ctx before it encodes and writes).
func saveFigure(ctx context.Context, f NamedFigure, dir, format string) error {
	done := make(chan error, 1)
	go func() {
		var err error
		defer func() { done <- err }()
		defer crash.Recover(&err)
		err = plots.SaveContext(ctx, f.Figure, filepath.Join(dir, f.Name+"."+format))
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// errSkipped marks a figure not drawn because another failed.
var errSkipped = errors.New("skipped")

// Delayed returns P(delay > 0): 1 - P(delay <= 0), the jump of the CDF at
// 0 (0 when there are no data).
func (d Distribution) Delayed() float64 {
	if len(d.X) == 0 {
		return 0
	}
	if d.X[0] == 0 {
		return 1 - d.P[0]
	}
	return 1
}

// Tail returns the complementary distribution 1 - P[i], P(delay > X[i]),
// with the values that round to 0 or below (the last point) NaN so that
// a log axis draws the rest.
func (d Distribution) Tail() []float64 {
	out := make([]float64, len(d.P))
	for i, x := range d.P {
		out[i] = 1 - x
		if out[i] <= 0 {
			out[i] = math.NaN()
		}
	}
	return out
}

// FormatProb writes a probability for a legend or caption: four
// significant digits, no e-notation above 1e-4.
func FormatProb(p float64) string {
	if p != 0 && p < 1e-4 {
		return strconv.FormatFloat(p, 'e', 2, 64)
	}
	return strconv.FormatFloat(p, 'g', 4, 64)
}

// textNumber writes a number for the text of a figure (titles, legends,
// captions) in the notation of the plots package's axes, as plain text:
// the shortest decimal that reads back as x from 10^-6 up to 10^4
// (0.00001, 0.9, 5000), SI prefixes from 10^4 on (20k, 107.55k, 1M), and
// e-notation only beyond (2e-07, 5e+21).
func textNumber(x float64) string {
	a := math.Abs(x)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return formatFloat(x)
	case a == 0 || a >= 1e-6 && a < 1e4:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case a >= 1e4 && a < 1e21:
		k := 0
		for k+1 < len(siTextPrefixes) && a >= math.Pow10(3*(k+1)) {
			k++
		}
		return strconv.FormatFloat(x/math.Pow10(3*k), 'f', -1, 64) + siTextPrefixes[k]
	}
	return strconv.FormatFloat(x, 'g', -1, 64)
}

var siTextPrefixes = []string{"", "k", "M", "G", "T", "P", "E"}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
