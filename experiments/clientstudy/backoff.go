package clientstudy

import (
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// BackoffStudyName is the name of Marc Brooker's backoff study among the
// built-in studies of ratesim sweep; unlike the others it is not a Spec
// of token-bucket runs but clients.OCCStudy (see [RunBackoffStudy]).
const BackoffStudyName = "backoff"

// BackoffColumns are the columns of the backoff study's results.csv, one
// row per (strategy, clients) point: means over the runs and the
// half-widths of their 95% confidence intervals (Student t).
var BackoffColumns = []string{
	"strategy", "clients", "runs",
	"calls_mean", "calls_ci95", "time_ms_mean", "time_ms_ci95",
	"min_time_ms", "max_calls", "calls_per_client", "time_ms_per_client",
}

// RunBackoffStudy runs Brooker's optimistic-concurrency study (see
// clients.OCCParams) and returns its points, strategies × clients.
func RunBackoffStudy(p clients.OCCParams) ([]clients.OCCPoint, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return clients.OCCStudy(p)
}

// WriteBackoffCSV writes the points as CSV with a header of
// [BackoffColumns], numbers in their shortest exact form.
func WriteBackoffCSV(w io.Writer, pts []clients.OCCPoint) error {
	cw := csv.NewWriter(w)
	cw.Write(BackoffColumns)
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	for _, p := range pts {
		cw.Write([]string{p.Strategy, strconv.Itoa(p.Clients), strconv.Itoa(p.Runs),
			f(p.Calls), f(p.CallsCI), f(p.TimeMs), f(p.TimeCI),
			f(p.MinTimeMs), f(p.MaxCalls), f(p.CallsPerClient), f(p.TimeMsPerClient)})
	}
	cw.Flush()
	return cw.Error()
}

// BackoffFigures draws the study as Brooker's blog does: writes
// ("backoff-calls") and completion time ("backoff-time") against the
// number of clients, one line per strategy with its 95% confidence band.
func BackoffFigures(p clients.OCCParams, pts []clients.OCCPoint) []experiments.NamedFigure {
	caption := fmt.Sprintf("%d runs per point; backoff base %v s, cap %v s; one-way delay |Normal(%g ms, %g ms)|; seed %d",
		p.Runs, p.Base, p.Cap, p.NetMean*1e3, p.NetSD*1e3, p.Seed)
	calls := &plots.LinePlot{Title: "Work: writes until every client has updated the row", Caption: caption,
		XLabel: "clients N", YLabel: "writes (calls) per run"}
	times := &plots.LinePlot{Title: "Completion time: until the last message is handled", Caption: caption,
		XLabel: "clients N", YLabel: "time (ms)"}
	var strategies []string
	for _, pt := range pts {
		if !slices.Contains(strategies, pt.Strategy) {
			strategies = append(strategies, pt.Strategy)
		}
	}
	for i, s := range strategies {
		var c, t plots.Line
		c.Label, t.Label, c.Color, t.Color = s, s, i, i
		for _, pt := range pts {
			if pt.Strategy != s {
				continue
			}
			x := float64(pt.Clients)
			c.X, c.Y = append(c.X, x), append(c.Y, pt.Calls)
			c.Lo, c.Hi = append(c.Lo, pt.Calls-pt.CallsCI), append(c.Hi, pt.Calls+pt.CallsCI)
			t.X, t.Y = append(t.X, x), append(t.Y, pt.TimeMs)
			t.Lo, t.Hi = append(t.Lo, pt.TimeMs-pt.TimeCI), append(t.Hi, pt.TimeMs+pt.TimeCI)
		}
		calls.Lines = append(calls.Lines, c)
		times.Lines = append(times.Lines, t)
	}
	return []experiments.NamedFigure{{Name: "backoff-calls", Figure: calls}, {Name: "backoff-time", Figure: times}}
}
