package clientstudy

import "github.com/ratesim/ratesim/experiments"

// ClientsSweepFigures returns the figures of a clients study's results
// table t (a [ClientsStudy]'s): the attempts per request (the retry
// amplification) and the p99 latency users see against the first axis
// whose values are all numbers, one line per value of the first axis
// whose values are text (a backoff strategy, say), with 95% confidence
// bands when the table has them. The points of each combination of the
// other axes get their own pair of figures, named after it
// (clients-sweep-attempts-max_attempts-5). It returns none when no axis
// is numeric. A study of servers that can collapse swept over load and a
// fault gets its recovery maps instead ([MetastabilityFigures]).
func ClientsSweepFigures(t *experiments.Table, caption string) []experiments.NamedFigure {
	if maps := MetastabilityFigures(t, caption); len(maps) > 0 {
		return maps
	}
	first := t.Column(ClientsMetrics[0])
	if first < 2 { // "point", then at least one axis
		return nil
	}
	lc := -1
	for c := 1; c < first && lc < 0; c++ {
		text := len(t.Rows) > 0
		for _, r := range t.Rows {
			if _, ok := r[c].(string); !ok {
				text = false
				break
			}
		}
		if text {
			lc = c
		}
	}
	return experiments.TableFigures(t, 1, first, lc, true, []experiments.TablePanel{
		{Name: "clients-sweep-attempts", Metric: "attempts_per_request", Title: "Attempts per request", YLabel: "attempts per request (retry amplification)"},
		{Name: "clients-sweep-p99", Metric: "p99_latency_s", Title: "p99 latency", YLabel: "p99 latency, first attempt to success (s)"},
	}, caption)
}
