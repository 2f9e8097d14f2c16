package plots

import (
	"fmt"
	"math"
	"slices"
)

// LimiterCurve is one limiter's empirical arrival curve α*(d) (the most
// jobs it let pass, or released, in any interval of length d) at a list of
// interval lengths, with its promise at the same lengths.
type LimiterCurve struct {
	Name    string
	Color   int       // palette index (see Color)
	Marks   bool      // mark the points (to show a curve that coincides with another)
	D       []float64 // interval lengths d, seconds, increasing
	Jobs    []float64 // α*(d), jobs
	Promise []float64 // the limiter's promise at d, jobs (> 0)
	// PromiseName names the promise (e.g. "b + r·d"): limiters with the
	// same name share one dashed promise curve, drawn once.
	PromiseName  string
	PromiseColor int  // palette index of the promise curve; < 0 gray
	PromiseStep  bool // draw the promise as a step function
}

// ArrivalCurves is the data of the figure of what each limiter lets pass:
// α*(d) against the promise, and the overshoot α*(d)/promise(d).
type ArrivalCurves struct {
	Title, Caption string
	Footer         string // a last, smaller line (provenance), as given
	Limiters       []LimiterCurve
}

// Figure returns the figure: two panels over a common logarithmic axis of
// d (lengths <= 0 are left out), α*(d) with the dashed promises above (log
// scale), the overshoot below with the line 1 where the promise is just
// kept. The legend lists the limiters, then the promises. It returns an
// error naming the limiter when the data are inconsistent: lengths that
// differ, or a promise that is not > 0.
func (a ArrivalCurves) Figure() (*Stack, error) {
	if len(a.Limiters) == 0 {
		return nil, fmt.Errorf("plots: arrival curves: no limiter")
	}
	curves := &LinePlot{XLabel: "interval length d (s)", YLabel: "α*(d) (jobs)", LogX: true, LogY: true}
	ratios := &LinePlot{XLabel: "interval length d (s)", YLabel: "α*(d) / promise(d)", LogX: true}
	var promises []string
	var promiseLines []Line
	xmin, xmax := math.Inf(1), math.Inf(-1)
	for _, l := range a.Limiters {
		if len(l.Jobs) != len(l.D) || len(l.Promise) != len(l.D) {
			return nil, fmt.Errorf("plots: arrival curves: %q has %d lengths, %d values of α* and %d of the promise", l.Name, len(l.D), len(l.Jobs), len(l.Promise))
		}
		ratio := make([]float64, len(l.D))
		for i := range l.D {
			if !(l.Promise[i] > 0) {
				return nil, fmt.Errorf("plots: arrival curves: %q promises %v jobs at d = %v s, want > 0", l.Name, l.Promise[i], l.D[i])
			}
			ratio[i] = l.Jobs[i] / l.Promise[i]
			if logable(l.D[i]) {
				xmin, xmax = math.Min(xmin, l.D[i]), math.Max(xmax, l.D[i])
			}
		}
		curves.Lines = append(curves.Lines, Line{Label: l.Name, X: l.D, Y: l.Jobs, Color: l.Color, Marks: l.Marks})
		ratios.Lines = append(ratios.Lines, Line{Label: l.Name, X: l.D, Y: ratio, Color: l.Color, Marks: l.Marks})
		if l.PromiseName != "" && !slices.Contains(promises, l.PromiseName) {
			promises = append(promises, l.PromiseName)
			promiseLines = append(promiseLines, Line{Label: "promise " + l.PromiseName, X: l.D, Y: l.Promise,
				Dashed: true, Step: l.PromiseStep, Color: l.PromiseColor})
		}
	}
	curves.Lines = append(curves.Lines, promiseLines...)
	if xmin < xmax {
		ratios.Lines = append(ratios.Lines, Line{Label: "1: promise just kept", X: []float64{xmin, xmax}, Y: []float64{1, 1}, Dashed: true, Color: -1})
	}
	return &Stack{Title: a.Title, Caption: a.Caption, Footer: a.Footer, Panels: []*LinePlot{curves, ratios}, Heights: []float64{1.2, 1}}, nil
}

// ZoomSeries is one stream of instants (seconds, non-decreasing) in the
// zoom figure.
type ZoomSeries struct {
	Name  string
	Color int // palette index; < 0 gray
	T     []float64
}

// BoundaryZoom is the data of the zoom on admissions around a window edge:
// the cumulative count, from From on, of the jobs offered and of the jobs
// each limiter let pass or released.
type BoundaryZoom struct {
	Title, Caption string
	Footer         string       // a last, smaller line (provenance), as given
	From, To       float64      // the time range, seconds, From < To
	Edges          []float64    // window edges to mark, seconds
	Streams        []ZoomSeries // the offered arrivals first, then each limiter
}

// Figure returns the figure: one staircase per stream (a burst is a
// vertical jump) and a dashed vertical line at each edge in the range. It
// returns an error for an empty range or a stream that is not
// non-decreasing.
func (z BoundaryZoom) Figure() (*LinePlot, error) {
	if !finite(z.From, z.To) || !(z.From < z.To) {
		return nil, fmt.Errorf("plots: zoom: range [%v, %v] s, want finite From < To", z.From, z.To)
	}
	lp := &LinePlot{
		Title:   z.Title,
		Caption: z.Caption,
		Footer:  z.Footer,
		XLabel:  "time (s)",
		YLabel:  fmt.Sprintf("jobs since %s s", formatSig([]float64{z.From}, 6)[0]),
		XRange:  [2]float64{z.From, z.To},
	}
	top := 0.0
	for _, s := range z.Streams {
		x, y, err := staircase(s.T, z.From, z.To)
		if err != nil {
			return nil, fmt.Errorf("plots: zoom: %q: %w", s.Name, err)
		}
		top = math.Max(top, y[len(y)-1])
		lp.Lines = append(lp.Lines, Line{Label: s.Name, X: x, Y: y, Step: true, Color: s.Color})
	}
	lp.YRange = [2]float64{0, niceCeil(math.Max(1, top*1.05))}
	label := "window edge"
	for _, e := range z.Edges {
		if !finite(e) {
			return nil, fmt.Errorf("plots: zoom: window edge %v s, want a finite instant", e)
		}
		if e < z.From || e > z.To {
			continue
		}
		lp.Lines = append(lp.Lines, Line{Label: label, X: []float64{e, e}, Y: []float64{0, lp.YRange[1]}, Dashed: true, Color: -1})
		label = ""
	}
	return lp, nil
}

// niceCeil returns the smallest number of the form m·10^k (m = 1, 1.2,
// 1.5, 2, 2.5, 3, 4, 5, 6 or 8, k an integer) that is >= x > 0, so that an
// axis ending there gets round tick labels.
func niceCeil(x float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(x)))
	for _, m := range []float64{1, 1.2, 1.5, 2, 2.5, 3, 4, 5, 6, 8, 10} {
		if m*p >= x {
			return m * p
		}
	}
	return 10 * p
}

// staircase returns the points of the cumulative count of ts over
// [from, to]: (from, 0), (t, n) at each distinct instant t in the range with
// n the count up to t, and (to, n).
func staircase(ts []float64, from, to float64) (x, y []float64, err error) {
	x, y = []float64{from}, []float64{0}
	n := 0
	for i, t := range ts {
		if !finite(t) || i > 0 && t < ts[i-1] {
			return nil, nil, fmt.Errorf("instant %d (%v s) is not finite, or earlier than the one before", i, t)
		}
		if t < from || t > to {
			continue
		}
		n++
		if x[len(x)-1] == t {
			y[len(y)-1] = float64(n)
			continue
		}
		x, y = append(x, t), append(y, float64(n))
	}
	return append(x, to), append(y, float64(n)), nil
}

// ResponseCurve is an admission probability as a function of the token
// deficit a job finds: a documented response function, or a measured
// fraction per deficit bin.
type ResponseCurve struct {
	Name     string
	Color    int
	Deficit  []float64 // tokens
	P        []float64 // probability of admission, in [0, 1]
	Measured bool      // draw as marked points joined by a dashed line
}

// Response is the data of the figure of slope against cliff.
type Response struct {
	Title, Caption string
	Footer         string // a last, smaller line (provenance), as given
	Curves         []ResponseCurve
}

// Figure returns the figure: probability of admission against token
// deficit, documented functions solid and measurements marked. It returns
// an error for a curve whose lengths differ or with a probability outside
// [0, 1] (NaN included).
func (r Response) Figure() (*LinePlot, error) {
	lp := &LinePlot{
		Title:   r.Title,
		Caption: r.Caption,
		Footer:  r.Footer,
		XLabel:  "token deficit at arrival: b minus the tokens left (tokens)",
		YLabel:  "probability of admission",
		YRange:  [2]float64{-0.03, 1.03},
	}
	for _, c := range r.Curves {
		if len(c.P) != len(c.Deficit) {
			return nil, fmt.Errorf("plots: response: %q has %d deficits and %d probabilities", c.Name, len(c.Deficit), len(c.P))
		}
		for i, p := range c.P {
			if !(p >= 0 && p <= 1) {
				return nil, fmt.Errorf("plots: response: %q point %d has probability %v, want in [0, 1]", c.Name, i, p)
			}
		}
		lp.Lines = append(lp.Lines, Line{Label: c.Name, X: c.Deficit, Y: c.P, Color: c.Color, Marks: c.Measured, Dashed: c.Measured})
	}
	return lp, nil
}
