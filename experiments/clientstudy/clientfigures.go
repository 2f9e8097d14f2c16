package clientstudy

import (
	"fmt"
	"math"
	"slices"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// ClientsFigures returns the figures of ratesim clients --plot (issue 13):
//
//   - "clients-series", over time in bins of the scenario's width: the
//     requests offered (new requests), the retries, the requests admitted
//     (successes) and the give-ups, per second, with the backfill's
//     admitted requests when there is one; under them, the retry
//     amplification of each bin (attempts per request made in it). Left
//     out when the run has no series (bin width 0).
//   - "downstream", with a downstream server and a series: the largest
//     number of jobs at the server in each bin (in service and waiting,
//     every class) against its capacity, the buffer + 1 (dashed), over
//     the jobs lost to the full buffer in each bin (foreground, and the
//     backfill's when there is one).
//   - "latency-ccdf": the tail P(latency > x) of the latency users saw,
//     first attempt to success, on log-log axes, with P(latency > 0) in
//     the legend; give-ups are not latencies and are counted in the
//     caption. Left out when no request succeeded.
//
// With servers that can collapse (ratesim clients --service),
// "overload-series" replaces "clients-series": offered load, retries, work
// at the servers and goodput per second, the jobs waiting and the
// timeouts, with the faults marked.
//
// caption describes the run; the figures add what they need.
func ClientsFigures(res *ClientsResult, caption string) []experiments.NamedFigure {
	var figs []experiments.NamedFigure
	if width := res.Spec.Scenario.Bin.Seconds(); width > 0 && len(res.ForegroundSeries) > 0 && res.Spec.Overload != nil {
		figs = append(figs, experiments.NamedFigure{Name: "overload-series", Figure: overloadSeries(res, width, caption)})
	} else if width > 0 && len(res.ForegroundSeries) > 0 {
		figs = append(figs, experiments.NamedFigure{Name: "clients-series", Figure: clientsSeries(res, width, caption)})
		if sv := res.Spec.Scenario.Server; sv != nil && res.ForegroundSeries[0].DownstreamMaxJobs != nil {
			figs = append(figs, experiments.NamedFigure{Name: "downstream", Figure: downstreamSeries(res, width, sv.Buffer, caption)})
		}
	}
	if len(res.Latencies) > 0 {
		figs = append(figs, experiments.NamedFigure{Name: "latency-ccdf", Figure: latencyCCDF(res, caption)})
	}
	return figs
}

// binSteps returns the step curve x = bin starts (and the end of the last
// bin, holding its value), y = f(bin).
func binSteps(bins []ClientBin, width float64, f func(ClientBin) float64) (x, y []float64) {
	for _, b := range bins {
		x = append(x, b.Start)
		y = append(y, f(b))
	}
	if n := len(bins); n > 0 {
		x = append(x, bins[n-1].Start+width)
		y = append(y, y[n-1])
	}
	return x, y
}

func clientsSeries(res *ClientsResult, width float64, caption string) *plots.Stack {
	bins := res.ForegroundSeries
	per := func(f func(ClientBin) int64) func(ClientBin) float64 {
		return func(b ClientBin) float64 { return float64(f(b)) / width }
	}
	line := func(label string, color int, dashed bool, f func(ClientBin) float64) plots.Line {
		x, y := binSteps(bins, width, f)
		return plots.Line{Label: label, X: x, Y: y, Step: true, Color: color, Dashed: dashed}
	}
	succ := "admitted" // the successes of the bins
	if res.Foreground.Served != nil {
		succ = "served"
	}
	rates := []plots.Line{
		line("offered (new requests)", 0, false, per(func(b ClientBin) int64 { return b.Requests })),
		line("retries", 1, true, per(func(b ClientBin) int64 { return b.Attempts - b.Requests })),
		line(succ, 2, false, per(func(b ClientBin) int64 { return b.Successes })),
		line("give-ups", 3, true, per(func(b ClientBin) int64 { return b.GiveUps })),
	}
	if len(res.BackfillSeries) > 0 {
		x, y := binSteps(res.BackfillSeries, width, per(func(b ClientBin) int64 { return b.Successes }))
		rates = append(rates, plots.Line{Label: "backfill " + succ, X: x, Y: y, Step: true, Color: 4})
	}
	amp := line("attempts per request made in the bin", 5, false, func(b ClientBin) float64 {
		if b.Requests == 0 {
			return math.NaN()
		}
		return float64(b.Attempts) / float64(b.Requests)
	})
	return &plots.Stack{
		Title:   "Offered, retried and " + succ + " requests over time, and the retry amplification",
		Caption: caption + fmt.Sprintf("; bins of %s s; retry amplification over the run %s", experiments.TextNumber(width), experiments.TextNumber(float64(res.Foreground.Amplification))),
		Heights: []float64{1.6, 1},
		Panels: []*plots.LinePlot{
			{XLabel: "time t (s)", YLabel: "requests/s", Lines: rates},
			{XLabel: "time t (s)", YLabel: "retry amplification", Lines: []plots.Line{amp}},
		},
	}
}

// downstreamSeries draws the server's occupancy and overflows per bin.
func downstreamSeries(res *ClientsResult, width float64, buffer int, caption string) *plots.Stack {
	bins := res.ForegroundSeries
	jx, jy := binSteps(bins, width, func(b ClientBin) float64 { return float64(*b.DownstreamMaxJobs) })
	capacity := float64(buffer + 1)
	capLine := plots.Line{Label: fmt.Sprintf("capacity: buffer + 1 in service = %d", buffer+1),
		X: []float64{jx[0], jx[len(jx)-1]}, Y: []float64{capacity, capacity}, Color: -1, Dashed: true}
	overflows := func(b ClientBin) float64 {
		if b.DownstreamOverflows == nil {
			return 0
		}
		return float64(*b.DownstreamOverflows)
	}
	ox, oy := binSteps(bins, width, overflows)
	lost := []plots.Line{{Label: "foreground jobs lost", X: ox, Y: oy, Step: true, Color: 3}}
	var total float64
	for _, y := range oy[:len(oy)-1] {
		total += y
	}
	if len(res.BackfillSeries) > 0 {
		bx, by := binSteps(res.BackfillSeries, width, overflows)
		lost = append(lost, plots.Line{Label: "backfill jobs lost", X: bx, Y: by, Step: true, Color: 4, Dashed: true})
		for _, y := range by[:len(by)-1] {
			total += y
		}
	}
	// Both panels start at 0, the jobs' with room above the capacity.
	top := float64(buffer+1) + max(1, math.Ceil(0.1*float64(buffer+1)))
	lostTop := 1.0
	for _, l := range lost {
		for _, y := range l.Y {
			lostTop = max(lostTop, 1.1*y)
		}
	}
	return &plots.Stack{
		Title: "Jobs at the downstream server and jobs lost to its full buffer, per bin",
		Caption: caption + fmt.Sprintf("; bins of %s s; largest number of jobs at the server in each bin (in service and waiting); jobs lost to the full buffer in all: %s",
			experiments.TextNumber(width), experiments.TextNumber(total)),
		Heights: []float64{1.6, 1},
		Panels: []*plots.LinePlot{
			{XLabel: "time t (s)", YLabel: "jobs at the server (max in the bin)", YRange: [2]float64{0, top}, Lines: []plots.Line{
				{Label: "jobs at the server", X: jx, Y: jy, Step: true, Color: 0}, capLine}},
			{XLabel: "time t (s)", YLabel: "jobs lost per bin", YRange: [2]float64{0, lostTop}, Lines: lost},
		},
	}
}

// maxCCDFPoints bounds the points of the latency tail: beyond it the
// curve keeps a point where P(latency > x) has changed by 1% since the
// last one kept (and the last point).
const maxCCDFPoints = 4000

// latencyCCDF draws P(latency > x) of the admitted requests.
func latencyCCDF(res *ClientsResult, caption string) *plots.LinePlot {
	lat := slices.Clone(res.Latencies)
	slices.Sort(lat)
	x, y := ccdfPoints(lat)
	zero, _ := slices.BinarySearch(lat, math.Nextafter(0, 1)) // latencies <= 0
	pos := float64(len(lat)-zero) / float64(len(lat))         // P(latency > 0)
	fg := res.Foreground
	succ, n, end := "admitted", fg.Successes, "admission"
	if fg.Served != nil {
		succ, n, end = "served", *fg.Served, "service downstream"
	}
	c := caption + fmt.Sprintf("; %d %s of %d requests, %d given up (not in the distribution); P(latency > 0) = %s",
		n, succ, fg.Requests, fg.GiveUps, experiments.FormatProb(pos))
	label := succ + ", P(latency > 0) = " + experiments.FormatProb(pos)
	lines := []plots.Line{{Label: label, X: x, Y: y, Step: true, Color: 0}}
	// The last step holds up to the largest latency, where the tail is 0
	// (no place on a log axis): the curve ends there, marked, so that the
	// x axis reaches the maximum.
	if n := len(x); n >= 2 && math.IsNaN(y[n-1]) {
		y[n-1] = y[n-2]
		lines[0].Label += ", max " + plots.SecondsText(x[n-1])
		lines = append(lines, plots.Line{X: []float64{x[n-1]}, Y: []float64{y[n-1]}, Marks: true, Color: 0})
		c += "; the curve ends at the largest latency (mark)"
	}
	return &plots.LinePlot{
		Title:   "Latency users saw, first attempt to " + end + " (CCDF, log-log)",
		Caption: c,
		XLabel:  "latency x (s, log scale)",
		YLabel:  "P(latency > x) (log scale)",
		LogX:    true,
		LogY:    true,
		Lines:   lines,
		YRange:  plots.TailRange(lines),
	}
}

// ccdfPoints returns the distinct values of sorted (ascending) and
// P(value > x) at each, exactly, thinned to about maxCCDFPoints (see
// there). The last value's tail is 0 and is left out (NaN): a log axis
// cannot draw it.
func ccdfPoints(sorted []float64) (x, y []float64) {
	n := len(sorted)
	thin := n > maxCCDFPoints
	for i := 0; i < n; {
		j := i
		for j < n && sorted[j] == sorted[i] {
			j++
		}
		p := float64(n-j) / float64(n)
		if p == 0 {
			p = math.NaN()
		}
		last := j == n
		if !thin || last || len(y) == 0 || math.Abs(p-y[len(y)-1]) > 0.01*y[len(y)-1] || math.IsNaN(y[len(y)-1]) {
			x = append(x, sorted[i])
			y = append(y, p)
		}
		i = j
	}
	return x, y
}
