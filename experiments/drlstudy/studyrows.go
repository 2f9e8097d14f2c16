package drlstudy

import (
	"context"
	"math"
	"strconv"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
)

// Metrics are the columns a study reports of each design at each point,
// the mean over the replications (with a 95% confidence half-width in a
// column METRIC_ci95 when there are two or more), from the fields of
// [Summary] of the same JSON names.
var Metrics = []string{"admitted", "rejected", "mean_delay_s", "p99_delay_s", "worst_overshoot", "jobs_delayed_by_shaper", "over_rate_fraction", "messages", "promise_excess_jobs"}

func metric(s *drl.Summary, i int) float64 {
	switch i {
	case 0:
		return float64(s.Admitted)
	case 1:
		return float64(s.Rejected)
	case 2:
		return s.Mean
	case 3:
		return s.P99
	case 4:
		return s.Overshoot
	case 5:
		return float64(s.ShaperDelayed)
	case 6:
		return s.OverRate
	case 7:
		return float64(s.Messages)
	}
	return s.Excess
}

// durationParams are the parameters that are durations, reported in
// seconds; delayParams those that are delays, in seconds when fixed.
var (
	durationParams = map[string]bool{"sync_period": true, "lease_ttl": true, "estimate_interval": true, "rate_window": true}
	delayParams    = map[string]bool{"rtt": true, "sync_delay": true}
	numberParams   = map[string]bool{"nodes": true, "batch_limit": true, "loss": true, "smoothing": true, "fanout": true, "load": true, "jobs": true, "seed": true, "lease_size": true}
)

// axisColumn returns the column of axis name, with its unit, and the
// value of the column at each point: seconds for durations and fixed
// delays (+Inf for inf), numbers for the numeric parameters and the
// rate and burst, the text as written otherwise.
func (s *Study) axisColumn(name string) (string, []any) {
	vals := make([]any, len(s.points))
	texts := make([]string, len(s.points))
	for i := range s.points {
		texts[i] = s.Value(i, name)
	}
	num := func(col string, f func(string) (float64, bool)) (string, []any, bool) {
		for i, t := range texts {
			if t == "" {
				vals[i] = math.NaN()
				continue
			}
			x, ok := f(t)
			if !ok {
				return "", nil, false
			}
			vals[i] = x
		}
		return col, vals, true
	}
	seconds := func(t string) (float64, bool) {
		d, err := drl.ParseDuration(t)
		if err != nil {
			return 0, false
		}
		if d == engine.Forever {
			return math.Inf(1), true
		}
		return d.Seconds(), true
	}
	var col string
	var out []any
	ok := false
	switch {
	case durationParams[name]:
		col, out, ok = num(name+"_s", seconds)
	case delayParams[name]:
		col, out, ok = num(name+"_s", func(t string) (float64, bool) {
			d, err := drl.ParseDelay(t)
			if err != nil || !d.Fixed() {
				return 0, false
			}
			return d.A.Seconds(), true
		})
	case name == "rate" || name == "burst":
		col = map[string]string{"rate": "rate_tokens_per_s", "burst": "burst_tokens"}[name]
		col, out, ok = num(col, func(t string) (float64, bool) {
			r, err := exact.ParseRat(t)
			return r.Float64(), err == nil
		})
	case numberParams[name]:
		col, out, ok = num(name, func(t string) (float64, bool) {
			x, err := strconv.ParseFloat(t, 64)
			return x, err == nil
		})
	}
	if ok {
		return col, out
	}
	for i, t := range texts {
		vals[i] = t
	}
	return name, vals
}

// Columns returns the columns of the rows (experiments.Model): design,
// the axes (with units: sync_period_s), then each of [Metrics], followed
// by its METRIC_ci95 with two replications or more.
func (s *Study) Columns() []string {
	cols := []string{"design"}
	cols = append(cols, s.axisCols...)
	for _, m := range Metrics {
		cols = append(cols, m)
		if s.Replications > 1 {
			cols = append(cols, m+"_ci95")
		}
	}
	return cols
}

// replication is what a study keeps of one replication.
type replication struct {
	sums  []drl.Summary
	input string
}

// Replicate runs every design at point with root seed seed
// (experiments.Model); with FixedSeed, with the point's own seed.
func (s *Study) Replicate(ctx context.Context, point, rep int, seed uint64) (any, error) {
	p := s.points[point].params
	if !s.FixedSeed {
		p.Seed = seed
	}
	c, err := p.Run(ctx, false)
	if err != nil {
		return nil, err
	}
	return replication{sums: c.Summaries, input: c.Input}, nil
}

// Rows returns a row per design of point (experiments.Model).
func (s *Study) Rows(point int, reps []any) ([][]any, error) {
	var axisVals []any
	for _, vals := range s.axisVals {
		axisVals = append(axisVals, vals[point])
	}
	first := reps[0].(replication)
	var rows [][]any
	for d := range first.sums {
		row := []any{first.sums[d].Design}
		row = append(row, axisVals...)
		for m := range Metrics {
			xs := make([]float64, len(reps))
			for r, x := range reps {
				xs[r] = metric(&x.(replication).sums[d], m)
			}
			mean, half := experiments.MeanCI(xs, experiments.ConfidenceLevel)
			row = append(row, mean)
			if s.Replications > 1 {
				row = append(row, half)
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// ReplicationOf returns a replication's value for [Study.Rows] from the
// summaries of a run of its designs (Params.Run), for a caller that ran
// the point itself.
func ReplicationOf(sums []drl.Summary, input string) any {
	return replication{sums: sums, input: input}
}
