package splitstudy

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// RunCaption describes a single run for figure captions: the input, both
// systems, the dispatch (with its traffic shares when weighted), the
// order, the jobs, the warm-up left out of the statistics and the seed.
func RunCaption(input string, spec RunSpec, jobs int64) string {
	disp := spec.Dispatch
	if spec.Dispatch == "weighted" && spec.Shares != nil {
		disp += " (traffic shares " + textShares(spec.Shares) + ")"
	}
	c := fmt.Sprintf("%s; one bucket r = %s tokens/s, b = %s tokens; split k = %d: %s; dispatch %s, order %s; %d jobs",
		input, spec.One.Rate, spec.One.Burst, len(spec.Subs), DescribeSubs(spec.Subs), disp, spec.Order, jobs)
	if spec.Warmup > 0 {
		c += fmt.Sprintf(" (the first %d left out of the delay statistics)", spec.Warmup)
	}
	return c + fmt.Sprintf("; seed %d", spec.Seed)
}

// DescribeSubs lists the sub-buckets as (rate, burst) pairs, compressing an
// equal split to "k × (r, b)" and eliding the middle of a long list.
func DescribeSubs(subs []buckets.Params) string {
	same := func(p buckets.Params) bool { return p.Rate.Cmp(subs[0].Rate) == 0 && p.Burst.Cmp(subs[0].Burst) == 0 }
	if len(subs) > 1 && !slices.ContainsFunc(subs, func(p buckets.Params) bool { return !same(p) }) {
		return fmt.Sprintf("%d × (%v, %v)", len(subs), subs[0].Rate, subs[0].Burst)
	}
	var parts []string
	for i, s := range subs {
		if len(subs) > 8 && i == 4 {
			parts = append(parts, fmt.Sprintf("... %d more ...", len(subs)-6))
		}
		if len(subs) > 8 && i >= 4 && i < len(subs)-2 {
			continue
		}
		parts = append(parts, fmt.Sprintf("(%v, %v)", s.Rate, s.Burst))
	}
	return strings.Join(parts, " ")
}

// RunFigures returns the single-run figures of ratesim run --plot: the
// delay CDF and CCDF of both systems, the accrued delays S(t) and
// S^(k)(t) with their gap, and the queue lengths N(t) and Σ N_l(t) as steps
// over the series' window.
func RunFigures(ser *Series, caption string) []experiments.NamedFigure {
	// The CDF draws the atom at 0 (the jobs that do not wait) as a jump
	// from 0 at x = 0.
	cdf := &plots.LinePlot{
		Title:   "Delay distribution (CDF)",
		Caption: caption,
		XLabel:  "delay (s)",
		YLabel:  "P(delay ≤ x)",
		YRange:  [2]float64{0, 1.02},
		Lines: []plots.Line{
			ser.One.CDFLine("one bucket", 0, false),
			ser.Split.CDFLine("split", 1, true),
		},
	}
	// The CCDF is drawn on log-log axes, where delay 0 has no place: the
	// jump at 0, P(delay > 0), is in each legend entry and the caption.
	// Each curve runs to its largest delay, marked.
	ccdf := &plots.LinePlot{
		Title:   "Delay tail (CCDF, log-log)",
		Caption: cdf.Caption + fmt.Sprintf("; P(delay > 0): one bucket %s, split %s; each curve ends at its largest delay (mark)", experiments.FormatProb(ser.One.Delayed()), experiments.FormatProb(ser.Split.Delayed())),
		XLabel:  "delay x (s, log scale)",
		YLabel:  "P(delay > x) (log scale)",
		LogX:    true,
		LogY:    true,
	}
	ccdf.Lines = append(ccdf.Lines, ser.One.TailLines("one bucket, P(delay > 0) = "+experiments.FormatProb(ser.One.Delayed()), 0, false)...)
	ccdf.Lines = append(ccdf.Lines, ser.Split.TailLines("split, P(delay > 0) = "+experiments.FormatProb(ser.Split.Delayed()), 1, true)...)
	ccdf.YRange = plots.TailRange(ccdf.Lines)
	gap := make([]float64, len(ser.T))
	for i := range gap {
		gap[i] = ser.SSplit[i] - ser.S[i]
	}
	accrued := &plots.Stack{
		Title:   "Accrued delay S(t) = ∫ N(u) du and its split counterpart",
		Caption: caption + "; Theorem 2: S(t) ≤ S^(k)(t)",
		Heights: []float64{1.6, 1},
		Panels: []*plots.LinePlot{
			{XLabel: "time t (s)", YLabel: "accrued delay (s)", Lines: []plots.Line{
				{Label: "S(t), one bucket", X: ser.T, Y: ser.S, Color: 0},
				{Label: "S^(k)(t), split", X: ser.T, Y: ser.SSplit, Color: 1},
			}},
			{XLabel: "time t (s)", YLabel: "gap (s)", Lines: []plots.Line{
				{Label: "S^(k)(t) − S(t)", X: ser.T, Y: gap, Color: 2},
			}},
		},
	}
	n, nk := make([]float64, len(ser.N)), make([]float64, len(ser.NSplit))
	for i := range n {
		n[i], nk[i] = float64(ser.N[i]), float64(ser.NSplit[i])
	}
	stepT := ser.StepT
	if len(stepT) > 0 && stepT[len(stepT)-1] < ser.To {
		// Hold the last value to the end of the window.
		stepT = append(slices.Clone(stepT), ser.To)
		n = append(n, n[len(n)-1])
		nk = append(nk, nk[len(nk)-1])
	}
	qc := caption + fmt.Sprintf("; window %s to %s s", strconv.FormatFloat(ser.From, 'g', 6, 64), strconv.FormatFloat(ser.To, 'g', 6, 64))
	if ser.Truncated {
		qc += " (truncated)"
	}
	queue := &plots.LinePlot{
		Title:   "Waiting jobs N(t) and Σ N_l(t)",
		Caption: qc,
		XLabel:  "time t (s)",
		YLabel:  "waiting jobs",
		Lines: []plots.Line{
			{Label: "N(t), one bucket", X: stepT, Y: n, Step: true, Color: 0},
			{Label: "Σ N_l(t), split", X: stepT, Y: nk, Step: true, Color: 1, Dashed: true},
		},
	}
	return []experiments.NamedFigure{{Name: "latency-cdf", Figure: cdf}, {Name: "latency-ccdf", Figure: ccdf}, {Name: "accrued-delay", Figure: accrued}, {Name: "queue", Figure: queue}}
}
