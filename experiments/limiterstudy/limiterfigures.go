package limiterstudy

import (
	"fmt"
	"math"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// LimiterCaption returns the caption line of a limiters run's figures:
// the parameters of the family's limiters when some ran (the profiles
// are configured by their own specs, which the caption lists instead),
// the input and the seed.
func LimiterCaption(spec LimitersSpec) string {
	queue := "unbounded"
	if spec.Queue > 0 {
		queue = fmt.Sprintf("%d jobs", spec.Queue)
	}
	keyed := ""
	if spec.Keyed {
		keyed = "; one limiter per key, α* of the worst key"
	}
	var parts []string
	if len(spec.names()) > 0 {
		parts = append(parts, fmt.Sprintf("R = %v tokens/s, L = b = %d, W = %v s, window edges at %v + k·W s from %s, shapers' queue %s, throttle ramp from deficit %v to %v tokens",
			spec.Rate, spec.Limit, spec.Window, spec.Offset, spec.EdgesFrom(), queue, spec.Soft, spec.Hard))
	}
	if len(spec.Profiles) > 0 {
		var ps []string
		for _, p := range spec.Profiles {
			ps = append(ps, p.String())
		}
		parts = append(parts, "profiles "+strings.Join(ps, ", ")+" (each against its own bound)")
	}
	return fmt.Sprintf("%s%s. Input: %s; seed %d.", strings.Join(parts, "; "), keyed, spec.Input, spec.Seed)
}

// limiterLabels returns the legend label of each limiter of res: its
// name, or, for a profile whose name another limiter of the run shares
// (two nginx configurations), its full spec, so that each legend entry
// names one configuration.
func limiterLabels(res *LimitersResult) []string {
	count := map[string]int{}
	for _, l := range res.Limiters {
		count[l.Name]++
	}
	out := make([]string, len(res.Limiters))
	for i, l := range res.Limiters {
		out[i] = l.Name
		if count[l.Name] > 1 && l.Profile && l.Params != "" {
			out[i] = l.Params
		}
	}
	return out
}

// LimiterFigures returns the figures of a limiters run, to be saved with
// [SaveFigures]:
//
//   - "arrival-curves": α*(d) of every limiter against its promise, and the
//     overshoot α*(d)/promise(d);
//   - "boundary-zoom": the cumulative admissions (releases, for shapers)
//     of every limiter, and the arrivals when res kept them, around the
//     window edge nearest the worst overshoot of the run;
//   - "throttle-response", when the throttle or the policing token bucket
//     ran: their admission probability by token deficit, documented and
//     measured (slope against cliff).
func LimiterFigures(res *LimitersResult) ([]experiments.NamedFigure, error) {
	spec := res.Spec
	caption := LimiterCaption(spec)
	ac := plots.ArrivalCurves{
		Title:   "What each limiter lets pass, against what it promises",
		Caption: caption,
	}
	labels := limiterLabels(res)
	for i, r := range res.Limiters {
		kind := kindOf(r, i)
		if kind.promise == r.Name+" promise" {
			kind.promise = labels[i] + " promise" // each profile's own bound, one per configuration
		}
		c := plots.LimiterCurve{Name: labels[i], Color: kind.color, Marks: kind.marks,
			PromiseName: kind.promise, PromiseColor: kind.promiseColor, PromiseStep: kind.promiseStep}
		for _, p := range r.Curve {
			c.D = append(c.D, p.D)
			c.Jobs = append(c.Jobs, float64(p.Jobs))
			c.Promise = append(c.Promise, p.Promise)
		}
		ac.Limiters = append(ac.Limiters, c)
	}
	curves, err := ac.Figure()
	if err != nil {
		return nil, err
	}
	figs := []experiments.NamedFigure{{Name: "arrival-curves", Figure: curves}}

	zoom, err := boundaryZoom(res, caption)
	if err != nil {
		return nil, err
	}
	figs = append(figs, experiments.NamedFigure{Name: "boundary-zoom", Figure: zoom})

	if resp := responseFigure(res, caption); len(resp.Curves) > 0 {
		f, err := resp.Figure()
		if err != nil {
			return nil, err
		}
		figs = append(figs, experiments.NamedFigure{Name: "throttle-response", Figure: f})
	}
	return figs, nil
}

// WorstLimiter returns the index of the limiter with the largest worst
// overshoot (the first on ties), or -1 when none ran.
func (r *LimitersResult) WorstLimiter() int {
	w := -1
	for i, l := range r.Limiters {
		if w < 0 || l.Worst.Ratio > r.Limiters[w].Worst.Ratio {
			w = i
		}
	}
	return w
}

// edges returns the run-time offset of the fixed windows' edges (aligned
// to the Unix epoch) and the window length, seconds, for figures.
func (s LimitersSpec) edges() (offset, window float64) {
	w, err := s.window()
	if err != nil {
		return s.Offset.Float64(), s.Window.Float64()
	}
	return w.Offset.Float64(), w.Window.Float64()
}

// ZoomRange returns the window edge nearest the middle of the run's worst
// overshoot interval and the range the zoom figure shows around it: the
// edge ± max(W/2, the interval's length), starting at 0 at the earliest.
func (r *LimitersResult) ZoomRange() (edge, from, to float64) {
	offset, window := r.Spec.edges()
	w := r.WorstLimiter()
	mid, span := 0.0, 0.0
	if w >= 0 {
		p := r.Limiters[w].Worst
		mid, span = (p.From+p.To)/2, p.To-p.From
	}
	edge = math.FMA(math.Round((mid-offset)/window), window, offset)
	half := math.Max(window/2, span)
	from, to = math.Max(0, edge-half), edge+half
	return edge, from, to
}

func boundaryZoom(res *LimitersResult, caption string) (*plots.LinePlot, error) {
	edge, from, to := res.ZoomRange()
	title := fmt.Sprintf("Admissions around the window edge at %.6g s", edge)
	if res.Focus.Key != "" {
		title = fmt.Sprintf("Admissions of key %s around the window edge at %.6g s", res.Focus.Key, edge)
	}
	if w := res.WorstLimiter(); w >= 0 {
		l := res.Limiters[w]
		title += fmt.Sprintf("\n%s: %d jobs in [%.6g, %.6g] s, %.3g× its promise", limiterLabels(res)[w], l.Worst.Jobs, l.Worst.From, l.Worst.To, l.Worst.Ratio)
	}
	z := plots.BoundaryZoom{Title: title, Caption: caption, From: from, To: to}
	offset, window := res.Spec.edges()
	for k := math.Ceil((from - offset) / window); ; k++ {
		e := math.FMA(k, window, offset)
		if e > to {
			break
		}
		z.Edges = append(z.Edges, e)
	}
	if res.Focus.Arrivals != nil {
		z.Streams = append(z.Streams, plots.ZoomSeries{Name: "offered (arrivals)", Color: -1, T: res.Focus.Arrivals})
	}
	labels := limiterLabels(res)
	for i, l := range res.Limiters {
		z.Streams = append(z.Streams, plots.ZoomSeries{Name: labels[i], Color: kindOf(l, i).color, T: res.Focus.Releases[i]})
	}
	return z.Figure()
}

func responseFigure(res *LimitersResult, caption string) plots.Response {
	s := res.Spec
	r := plots.Response{Title: "Slope against cliff: admission by token deficit", Caption: caption}
	for _, l := range res.Limiters {
		d := familyDef(l.Name)
		if l.Profile || d == nil || d.response == nil {
			continue
		}
		kind := d.kind
		label, deficit, p := d.response(s.Params)
		r.Curves = append(r.Curves, plots.ResponseCurve{Name: label, Color: kind.color, Deficit: deficit, P: p})
		m := plots.ResponseCurve{Name: l.Name + ", measured", Color: kind.color, Measured: true}
		for _, bin := range l.Response {
			if bin.Offered > 0 {
				m.Deficit = append(m.Deficit, (bin.Lo+bin.Hi)/2)
				m.P = append(m.P, float64(bin.Admitted)/float64(bin.Offered))
			}
		}
		if len(m.P) > 0 {
			r.Curves = append(r.Curves, m)
		}
	}
	return r
}

// kindOf returns the figure attributes of result r, the i-th limiter of
// its run: a profile gets colour i and its promise in the same colour.
func kindOf(r LimiterResult, i int) limiterKind {
	if d := familyDef(r.Name); !r.Profile && d != nil {
		return d.kind
	}
	return limiterKind{shaper: r.Shaper, color: i, promise: r.Name + " promise", promiseColor: i}
}
