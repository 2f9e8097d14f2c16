package report

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

func sectionOrder(ctx context.Context, d *doc) error {
	d.h(2, "5. Order independence")
	d.p("The note closes by remarking that Lemma 1 and Theorem 2 hold for any work-conserving service order among waiting jobs: a token goes to some waiting job as soon as it is whole. The order changes who waits, not how many wait, so N(t), and hence S(t), are the same under every order. The same arrivals as in section 2, served first-come first-served, last-come first-served and in random order:")
	runs := []*poissonRun{d.sample}
	for _, o := range []buckets.Order{buckets.LIFO, buckets.Random} {
		p := d.samplePath(o)
		d.logf("order: %s", p.command(""))
		if err := p.run(ctx); err != nil {
			return err
		}
		runs = append(runs, p)
	}
	var rows [][]string
	var cmds []string
	base := runs[0]
	worst, stepsAgree := 0.0, true
	for _, p := range runs {
		r := p.result
		// S(t) and S^(k)(t) at the sampling instants both runs share.
		diff, common := 0.0, 0
		for i, j := 0, 0; i < len(p.series.T) && j < len(base.series.T); {
			switch a, b := p.series.T[i], base.series.T[j]; {
			case a < b:
				i++
			case a > b:
				j++
			default:
				diff = math.Max(diff, math.Abs(p.series.S[i]-base.series.S[j]))
				diff = math.Max(diff, math.Abs(p.series.SSplit[i]-base.series.SSplit[j]))
				common++
				i++
				j++
			}
		}
		worst = max(worst, diff)
		stepsAgree = stepsAgree && slices.Equal(p.series.StepT, base.series.StepT) &&
			slices.Equal(p.series.N, base.series.N) && slices.Equal(p.series.NSplit, base.series.NSplit)
		d.logf("order %s: %d sampling instants shared with fcfs (%d, %d)", p.order, common, len(p.series.T), len(base.series.T))
		rows = append(rows, []string{p.order.String(), fmt.Sprintf("%.6f", r.One.Total), fmt.Sprintf("%.6f", r.Split.Total), fmt.Sprintf("%.3g (%d instants)", diff, common),
			fmt.Sprintf("%.4g", r.One.P99), fmt.Sprintf("%.4g", r.One.Max), fmt.Sprintf("%.4g", r.Split.P99), fmt.Sprintf("%.4g", r.Split.Max)})
		cmds = append(cmds, p.command(" --plot figs-"+p.order.String()))
	}
	d.table("One sample path under three service orders: total delays S(∞) and S^(k)(∞) in seconds (equal under every order), the largest difference from FCFS of the sampled S(t) and S^(k)(t) of `ratesim run --plot` at the sampling instants both runs share, and the tails of the per-job delays (seconds), which the order does change.",
		[]string{"order", "S(∞) one (s)", "S^(k)(∞) split (s)", "max |ΔS(t)| vs fcfs (s)", "p99 one (s)", "max one (s)", "p99 split (s)", "max split (s)"}, rows)
	if worst == 0 && stepsAgree {
		d.p("The totals agree to every digit, as they must, and so do the series of `ratesim run --plot` (the column above): S(t) and S^(k)(t) at every sampling instant, and the steps of N(t) and Σ N_l(t) in the busiest window, are the same numbers under the three orders, as N(t), and so S(t) = ∫N, are the same under every work-conserving order.")
	} else {
		d.p("The totals agree to every digit, as they must. The series of `ratesim run --plot` do not (S(t) and S^(k)(t) differ from FCFS by up to %.3g s; the N(t) steps of the busiest window %s), although N(t), and so S(t) = ∫N, are the same under every work-conserving order: a defect of the figure data (experiments/splitstudy/series.go), not of the check, whose totals and verdicts agree under every order.",
			worst, map[bool]string{true: "agree", false: "differ"}[stepsAgree])
	}
	var lines []plots.Line
	for i, p := range runs {
		lines = append(lines, p.series.One.TailLines(fmt.Sprintf("%s, one bucket (P(delay > 0) = %s)", p.order, experiments.FormatProb(p.series.One.Delayed())), i, i > 0)...)
	}
	fig := &plots.LinePlot{
		Title:   "Per-job delay tail of the one bucket under three service orders (CCDF, log-log)",
		Caption: fmt.Sprintf("%s; (r, b) = (%v, %v); %d jobs; seed %d; the same total delay under each order; each curve ends at its largest delay (mark)", base.input(), base.one.Rate, base.one.Burst, base.jobs, base.seed),
		XLabel:  "delay x (s, log scale)",
		YLabel:  "P(delay > x) (log scale)",
		LogX:    true,
		LogY:    true,
		Lines:   lines,
		YRange:  plots.TailRange(lines),
	}
	if err := d.figure("order-ccdf", fig, orderTailText(d, runs)); err != nil {
		return err
	}
	d.cmd(cmds...)
	return nil
}

// orderTailText captions the order figure from the tails of Table 8: which
// order has the smallest and the largest maximum and p99 of the one
// bucket's delays, and whether the totals agree.
func orderTailText(d *doc, runs []*poissonRun) string {
	lowMax, highMax, lowP99, highP99 := runs[0], runs[0], runs[0], runs[0]
	sameTotal := true
	var maxes []string
	for _, p := range runs {
		r := p.result.One
		if r.Max < lowMax.result.One.Max {
			lowMax = p
		}
		if r.Max > highMax.result.One.Max {
			highMax = p
		}
		if r.P99 < lowP99.result.One.P99 {
			lowP99 = p
		}
		if r.P99 > highP99.result.One.P99 {
			highP99 = p
		}
		sameTotal = sameTotal && r.Total == runs[0].result.One.Total
		maxes = append(maxes, fmt.Sprintf("%s %.4g s", p.order, r.Max))
	}
	d.conclude("order/smallest-max", lowMax.order.String())
	d.conclude("order/largest-max", highMax.order.String())
	d.conclude("order/smallest-p99", lowP99.order.String())
	means := "while their totals, and so their means, are equal"
	if !sameTotal {
		means = "and **their totals differ**, which the theorem's order independence forbids"
	}
	return fmt.Sprintf("The one bucket's delay distributions under the three orders differ %s (Table %d). The largest delays are %s: %s has the smallest maximum and %s the largest; the p99 is smallest under %s and largest under %s. The fraction delayed, P(delay > 0), is in the legend; each curve ends at its largest delay.",
		means, d.ntab, strings.Join(maxes, ", "), lowMax.order, highMax.order, lowP99.order, highP99.order)
}
