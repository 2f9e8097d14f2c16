package report

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/ratesim/ratesim/plots"
)

func sectionCost(ctx context.Context, d *doc) error {
	d.h(2, "4. How much splitting costs")
	d.p("Theorem 2 says the split never helps; these sweeps say by how much it hurts: the split/one ratio of the mean delay (equivalently of the total delay, the jobs being the same), with 95%% confidence intervals from paired replications (common random numbers, delta method on the log ratio).")

	// Ratio against k.
	s := splitstudy.DefaultSpec()
	s.Name = "split-k"
	s.Rate, s.Burst, s.Dispatch = 1, 64, "rr"
	// The quick version keeps half the full one's jobs: at load 0.95 a
	// bucket of 64 tokens delays few jobs, and with 20000 the one bucket
	// delayed none in any replication (the ratio undefined at every k).
	s.Jobs = pick[int64](d, 100000, 200000)
	s.Warmup = pick[int64](d, 10000, 20000)
	s.Replications = pick(d, 4, 10)
	s.Seed = d.cfg.Seed
	grid, err := axes("load=0.95", pick(d, "k=1,2,8,64", "k=1,2,4,8,16,32,64"))
	if err != nil {
		return err
	}
	s.Sweep = splitstudy.Sweep{grid}
	if err := d.sweepFigures(ctx, &s, "ratio", "k equal sub-buckets of (1, 64), Poisson, rr", splitKText(d)); err != nil {
		return err
	}

	// Ratio against the split ratio (p, q): the built-in heat maps.
	// The built-in split-ratio study's design on a coarser grid (p and q
	// in steps of 0.1; grid 0 at two loads, grid 1 at one), so that the
	// full report runs in minutes.
	pq, err := splitstudy.Builtin("split-ratio")
	if err != nil {
		return err
	}
	pq.Seed = d.cfg.Seed
	pq.Name = pick(d, "split-ratio-quick", "split-ratio")
	pq.Jobs, pq.Warmup, pq.Replications = pick[int64](d, 10000, 20000), pick[int64](d, 1000, 2000), pick(d, 3, 8)
	var pqGrids []splitstudy.Grid
	for _, axs := range pick(d, [][]string{{"burst=10", "load=0.7", "q=0.2,0.5,0.8", "p=0.2,0.35,0.5,0.65,0.8"}},
		[][]string{
			{"burst=10", "load=0.7,0.9", "q=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "p=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"},
			{"burst=2", "load=0.7", "q_rate=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9", "p=0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9"},
		}) {
		g, err := axes(axs...)
		if err != nil {
			return err
		}
		pqGrids = append(pqGrids, g)
	}
	pq.Sweep = splitstudy.Sweep(pqGrids)
	if err := d.sweepFigures(ctx, pq, "heatmap", "k = 2, weighted dispatch", heatMapText(d)); err != nil {
		return err
	}

	// Load and burst.
	s = splitstudy.DefaultSpec()
	s.Name = "load-burst"
	s.Rate, s.K, s.Dispatch = 1, 2, "rr"
	s.Jobs = pick[int64](d, 20000, 200000)
	s.Warmup = pick[int64](d, 2000, 20000)
	s.Replications = pick(d, 4, 10)
	s.Seed = d.cfg.Seed
	grid, err = axes(pick(d, "burst=2,10", "burst=2,4,10,20"), pick(d, "load=0.5,0.8,0.95", "load=0.3,0.5,0.7,0.8,0.9,0.95"))
	if err != nil {
		return err
	}
	s.Sweep = splitstudy.Sweep{grid}
	if err := d.sweepFigures(ctx, &s, "ratio", "k = 2 equal sub-buckets, Poisson, rr", loadBurstText(d)); err != nil {
		return err
	}

	// Real traces under each dispatch.
	var rows [][]string
	type traceRow struct {
		trace, dispatch string
		r               splitstudy.Result
	}
	var all []traceRow
	for _, first := range d.traceRuns {
		tr := first.tr
		for _, disp := range tr.Dispatches {
			t := first
			if disp != first.dispatch {
				file, shown := d.traceFile(tr)
				t = &traceRun{tr: tr, dispatch: disp, path: shown}
				d.logf("trace: %s", t.command(""))
				if err := t.run(ctx, file, false); err != nil {
					return err
				}
			}
			r := t.result
			all = append(all, traceRow{tr.Name, disp, r})
			rows = append(rows, []string{tr.Name, disp, fmt.Sprintf("%.6g", r.One.Mean), fmt.Sprintf("%.6g", r.Split.Mean), fmt.Sprintf("%.5f", r.Split.Mean/r.One.Mean), fmt.Sprint(r.Split.Delayed - r.One.Delayed), fmt.Sprint(r.Check.Violations), "`" + t.command("") + "`"})
		}
	}
	if len(rows) > 0 {
		d.table("The real traces under round-robin, least-loaded and hash dispatch (hash only where the trace has a key column), with the buckets of section 2: mean delays in seconds, their ratio, the extra jobs delayed by the split, and the Theorem 2 violations.",
			[]string{"trace", "dispatch", "mean delay one (s)", "mean delay split (s)", "split/one", "extra delayed jobs", "violations", "command"}, rows)
		// Least-loaded against round-robin, trace by trace; the smallest
		// ratio of all.
		var same, differ []string
		for _, a := range all {
			if a.dispatch != "least-loaded" {
				continue
			}
			for _, b := range all {
				if b.trace == a.trace && b.dispatch == "rr" {
					if a.r.Split.Total == b.r.Split.Total && a.r.Split.Delayed == b.r.Split.Delayed {
						same = append(same, a.trace)
					} else {
						differ = append(differ, fmt.Sprintf("%s (split mean %.6g s against %.6g s)", a.trace, a.r.Split.Mean, b.r.Split.Mean))
					}
				}
			}
		}
		var cmp []string
		if len(same) > 0 {
			cmp = append(cmp, fmt.Sprintf("on %s it gives the split the same total delay and delayed jobs as round-robin", strings.Join(same, ", ")))
		}
		if len(differ) > 0 {
			cmp = append(cmp, fmt.Sprintf("on %s it differs from round-robin", strings.Join(differ, ", ")))
		}
		d.conclude("traces/least-loaded-vs-rr", fmt.Sprintf("same on %d of %d traces", len(same), len(same)+len(differ)))
		best := all[0]
		below := 0
		for _, a := range all {
			if a.r.Split.Mean/a.r.One.Mean < best.r.Split.Mean/best.r.One.Mean {
				best = a
			}
			if a.r.Split.Total < a.r.One.Total {
				below++
			}
		}
		verdict := "no ratio is below 1"
		if below > 0 {
			verdict = fmt.Sprintf("**%d ratios are below 1**, which Theorem 2 forbids", below)
		}
		d.conclude("traces/ratio-below-1", fmt.Sprint(below))
		d.p("Least-loaded dispatch sends each job to the sub-bucket with the fewest waiting jobs (ties to the one with the most tokens), information a real DRL rarely has; %s. Hash dispatch pins each key to one sub-bucket whatever its load, as a keyed DRL does. Over the %d runs %s: the smallest is %.5f (%s, %s).",
			strings.Join(cmp, "; "), len(all), verdict, best.r.Split.Mean/best.r.One.Mean, best.trace, best.dispatch)
	}
	return nil
}

// sweepText writes the text around a sweep's figures: see returns the
// caption of each figure (from the points it draws), and tables, when not
// nil, writes tables after the figures.
type sweepText struct {
	see    func(f splitstudy.SweepFigure) string
	after  func(f splitstudy.SweepFigure) // writes what follows each figure; nil: nothing
	tables func(res *splitstudy.Results, figs []splitstudy.SweepFigure)
}

// sweepFigures stages s, runs it and writes the figures of it whose names
// start with prefix, captioned by text, the tables of text, the least-bad
// table, and the command that regenerates them.
func (d *doc) sweepFigures(ctx context.Context, s *splitstudy.Spec, prefix, setting string, text sweepText) error {
	path, err := d.spec(s.Name, s)
	if err != nil {
		return err
	}
	res, err := d.sweep(ctx, s)
	if err != nil {
		return err
	}
	var names []string
	var drawn []splitstudy.SweepFigure
	for _, f := range splitstudy.SweepFigures(res) {
		if !strings.HasPrefix(f.Name, prefix) {
			continue
		}
		switch fig := f.Figure.(type) {
		case *plots.LinePlot:
			fig.Title += ": " + setting
		case *plots.HeatMap:
			fig.Title += ": " + setting
		}
		if err := d.figure(s.Name+"-"+f.Name, f.Figure, text.see(f)); err != nil {
			return err
		}
		if text.after != nil {
			text.after(f)
		}
		names = append(names, "figures/"+f.Name+".png")
		drawn = append(drawn, f)
	}
	if text.tables != nil {
		text.tables(res, drawn)
	}
	var rows [][]string
	for _, r := range splitstudy.LeastBad(res) {
		rows = append(rows, []string{r.Group, r.Point, fmt.Sprintf("%.4f [%.4f, %.4f]", r.Ratio, r.Lo, r.Hi), fmt.Sprintf("%d of %d", r.Stable, r.Points)})
	}
	d.table(fmt.Sprintf("Sweep %s: the smallest split/one ratio of each group of points, with its 95%% interval; %s.", s.Name, belowOne(d, s.Name, res)),
		[]string{"fixed", "at", "split/one [95% CI]", "stable points"}, rows)
	d.cmd(fmt.Sprintf("ratesim sweep %s -o ratesim-%s   # %s", path, s.Name, strings.Join(names, ", ")))
	return nil
}

// belowOne says how many of the split points of res (k > 1, stable) have
// a ratio whose 95% interval lies wholly below 1 (a split better than the
// one bucket beyond noise), and records it as the conclusion
// NAME/below-1.
func belowOne(d *doc, name string, res *splitstudy.Results) string {
	var below []string
	n := 0
	for i := range res.Points {
		pr := &res.Points[i]
		if pr.K < 2 || !pr.Stable() || !finite(float64(pr.RatioHi)) {
			continue
		}
		n++
		if float64(pr.RatioHi) < 1 {
			below = append(below, fmt.Sprintf("point %d (%.4g [%.4g, %.4g])", pr.Index, float64(pr.Ratio), float64(pr.RatioLo), float64(pr.RatioHi)))
		}
	}
	d.conclude(strings.TrimSuffix(name, "-quick")+"/below-1", fmt.Sprint(len(below)))
	if len(below) == 0 {
		return fmt.Sprintf("no interval of the %d stable split points lies wholly below 1", n)
	}
	return fmt.Sprintf("the intervals of %d of the %d stable split points lie wholly below 1: %s", len(below), n, strings.Join(below, ", "))
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// ratioCI writes a ratio and its 95% interval.
func ratioCI(pr *splitstudy.PointResult) string {
	return fmt.Sprintf("%.4g [%.4g, %.4g]", float64(pr.Ratio), float64(pr.RatioLo), float64(pr.RatioHi))
}

// meanCI writes a mean delay and its 95% half-width, seconds.
func meanCI(s splitstudy.SystemStats) string {
	return fmt.Sprintf("%.4g ± %.2g", float64(s.MeanDelay), float64(s.MeanDelayCI))
}

// f4 writes a ratio for prose.
func f4(x float64) string { return fmt.Sprintf("%.4g", x) }

// splitKText captions the split-k figure from its points and writes the
// table of every point.
func splitKText(d *doc) sweepText {
	return sweepText{
		see: func(f splitstudy.SweepFigure) string {
			pts := sortedBy(f.Points, func(p *splitstudy.PointResult) float64 { return float64(p.K) })
			var ks, ys []float64
			var undefined []string
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, p := range pts {
				lo, hi = math.Min(lo, float64(p.One.MeanDelay)), math.Max(hi, float64(p.One.MeanDelay))
				switch {
				case p.K > 1 && finite(float64(p.Ratio)):
					ks, ys = append(ks, float64(p.K)), append(ys, float64(p.Ratio))
				case p.K > 1:
					undefined = append(undefined, fmt.Sprint(p.K))
				}
			}
			if len(ks) == 0 {
				d.conclude("split-k/ratio-over-k", "undefined")
				return "The split/one mean delay ratio against the number k of equal sub-buckets: undefined at every k (the one bucket delayed no job)."
			}
			tr, value := trend("k", ks, ys, f4)
			d.conclude("split-k/ratio-over-k", value)
			if len(undefined) > 0 {
				tr += fmt.Sprintf(" (undefined at k = %s, where the one bucket delayed no job)", strings.Join(undefined, ", "))
			}
			one := fmt.Sprintf("the one-bucket mean delay, the same bucket at every k, is %.4g s at every point (the same arrivals for every k)", lo)
			if lo != hi {
				one = fmt.Sprintf("the one-bucket mean delay, the same bucket at every k, ranges from %.4g to %.4g s across the points (each k has its own arrivals), so the ratio's changes over k mix the effect of k with that noise", lo, hi)
				d.conclude("split-k/one-bucket-same-at-every-k", "no")
			} else {
				d.conclude("split-k/one-bucket-same-at-every-k", "yes")
			}
			return fmt.Sprintf("The split/one mean delay ratio against the number k of equal sub-buckets (r/k, b/k) of (1 token/s, 64 tokens), on a log k axis, round-robin dispatch, Poisson arrivals at load 0.95; k = 1 is the one bucket itself (ratio 1). Over k = 2 to %s the ratio %s (Table %d); %s. Under round-robin each sub-bucket receives every k-th job of the Poisson stream, a renewal stream with Erlang-k gaps: once its b/k tokens are spent it is an E_k/D/1 queue with service time k/r (b/k = %s token%s at k = %s).",
				fmtF(ks[len(ks)-1]), tr, d.ntab+1, one, fmtF(64/ks[len(ks)-1]), plural(64/ks[len(ks)-1]), fmtF(ks[len(ks)-1]))
		},
		tables: func(res *splitstudy.Results, figs []splitstudy.SweepFigure) {
			var rows [][]string
			for _, f := range figs {
				for _, p := range sortedBy(f.Points, func(p *splitstudy.PointResult) float64 { return float64(p.K) }) {
					rows = append(rows, []string{fmt.Sprint(p.K), meanCI(p.One), meanCI(p.Split), ratioCI(p)})
				}
			}
			d.table("Sweep split-k, every point: mean delays in seconds (± the 95% half-width) and the split/one ratio with its 95% interval.",
				[]string{"k", "mean delay one (s)", "mean delay split (s)", "split/one [95% CI]"}, rows)
		},
	}
}

func plural(x float64) string {
	if x == 1 {
		return ""
	}
	return "s"
}

// sortedBy returns pts sorted by key (stable).
func sortedBy(pts []*splitstudy.PointResult, key func(*splitstudy.PointResult) float64) []*splitstudy.PointResult {
	out := slices.Clone(pts)
	slices.SortStableFunc(out, func(a, b *splitstudy.PointResult) int { return cmp.Compare(key(a), key(b)) })
	return out
}

// shareWords says what the share q of a heat map's points is: of the
// rate and burst, or of the rate only (the burst shares fixed).
func shareWords(pts []*splitstudy.PointResult) string {
	both := true
	for _, p := range pts {
		both = both && p.RateShares[0] == p.BurstShares[0]
	}
	if both {
		return "its share q of the rate and of the burst (both vary together)"
	}
	return fmt.Sprintf("its share q of the rate (up; its burst share stays %s)", fmtF(pts[0].BurstShares[0]))
}

// heatMapText captions each heat map from its points and writes its
// cells as a table after it.
func heatMapText(d *doc) sweepText {
	return sweepText{
		see: func(f splitstudy.SweepFigure) string {
			pts := f.Points
			p0 := pts[0]
			var best, diag *splitstudy.PointResult
			stable, aboveOne := 0, 0
			for _, p := range pts {
				if !p.Stable() || !finite(float64(p.Ratio)) {
					continue
				}
				stable++
				if p.Ratio > 1 {
					aboveOne++
				}
				if best == nil || p.Ratio < best.Ratio {
					best = p
				}
				if onDiagonal(p) && (diag == nil || p.Ratio < diag.Ratio) {
					diag = p
				}
			}
			group := fmt.Sprintf("b = %s, ρ = %s", fmtF(p0.Burst), fmtF(p0.Load))
			id := fmt.Sprintf("split-ratio/b%s-load%s/", fmtF(p0.Burst), fmtF(p0.Load))
			text := fmt.Sprintf("The split/one ratio over the traffic share p of sub-bucket 1 (across) and %s, k = 2, weighted random dispatch, %s; masked cells overload a sub-bucket (no steady state). ", shareWords(pts), group)
			if best == nil {
				d.conclude(id+"least-bad", "no stable cell")
				return text + "No cell is stable."
			}
			where := "off the diagonal p = q"
			if onDiagonal(best) {
				where = "on the diagonal p = q"
			}
			d.conclude(id+"least-bad", where)
			text += fmt.Sprintf("Of the %d stable cells (Table %d) the ratio is smallest at q = %s, p = %s (%s), %s", stable, d.ntab+1, fmtF(best.RateShares[0]), fmtF(best.TrafficShares[0]), ratioCI(best), where)
			if diag != nil && diag != best {
				text += fmt.Sprintf("; on the diagonal its smallest is %s at p = q = %s", ratioCI(diag), fmtF(diag.RateShares[0]))
			} else if diag == nil {
				text += "; no cell of the diagonal is stable"
			}
			text += fmt.Sprintf(". The ratio is above 1 at %d of the %d stable cells.", aboveOne, stable)
			return text
		},
		after: func(f splitstudy.SweepFigure) { heatMapTable(d, f.Points) },
	}
}

// onDiagonal reports whether a point's traffic share equals its rate
// share (p = q).
func onDiagonal(p *splitstudy.PointResult) bool {
	return math.Abs(p.TrafficShares[0]-p.RateShares[0]) < 1e-9
}

// heatMapTable writes the cells of one heat map.
func heatMapTable(d *doc, pts []*splitstudy.PointResult) {
	var ps, qs []float64
	for _, p := range pts {
		if !slices.Contains(ps, p.TrafficShares[0]) {
			ps = append(ps, p.TrafficShares[0])
		}
		if !slices.Contains(qs, p.RateShares[0]) {
			qs = append(qs, p.RateShares[0])
		}
	}
	slices.Sort(ps)
	slices.Sort(qs)
	header := []string{"q \\ p"}
	for _, p := range ps {
		header = append(header, fmtF(p))
	}
	var rows [][]string
	for j := len(qs) - 1; j >= 0; j-- {
		row := []string{fmtF(qs[j])}
		for _, p := range ps {
			cell := ""
			for _, pr := range pts {
				if pr.TrafficShares[0] == p && pr.RateShares[0] == qs[j] {
					cell = "—"
					if pr.Stable() && finite(float64(pr.Ratio)) {
						cell = f4(float64(pr.Ratio))
					}
				}
			}
			row = append(row, cell)
		}
		rows = append(rows, row)
	}
	p0 := pts[0]
	d.table(fmt.Sprintf("The cells of the heat map above (b = %s, ρ = %s): the split/one ratio by q (rows) and p (columns); —: a sub-bucket overloaded (masked).", fmtF(p0.Burst), fmtF(p0.Load)), header, rows)
}

// loadBurstText captions the load-burst figure from its points and writes
// the table of every point.
func loadBurstText(d *doc) sweepText {
	return sweepText{
		see: func(f splitstudy.SweepFigure) string {
			var bursts []float64
			for _, p := range f.Points {
				if !slices.Contains(bursts, p.Burst) {
					bursts = append(bursts, p.Burst)
				}
			}
			slices.Sort(bursts)
			var parts []string
			for _, b := range bursts {
				var xs, ys []float64
				for _, p := range sortedBy(f.Points, func(p *splitstudy.PointResult) float64 { return p.Load }) {
					if p.Burst == b && p.Stable() && finite(float64(p.Ratio)) {
						xs, ys = append(xs, p.Load), append(ys, float64(p.Ratio))
					}
				}
				if len(xs) == 0 {
					continue
				}
				tr, value := trend("ρ", xs, ys, f4)
				d.conclude(fmt.Sprintf("load-burst/b%s/ratio-over-load", fmtF(b)), value)
				parts = append(parts, fmt.Sprintf("for b = %s the ratio %s", fmtF(b), tr))
			}
			return fmt.Sprintf("The split/one ratio against the load ρ for k = 2 equal sub-buckets and round-robin dispatch, Poisson arrivals, one curve per burst b (Table %d): %s.", d.ntab+1, strings.Join(parts, "; "))
		},
		tables: func(res *splitstudy.Results, figs []splitstudy.SweepFigure) {
			var rows [][]string
			for _, f := range figs {
				pts := sortedBy(sortedBy(f.Points, func(p *splitstudy.PointResult) float64 { return p.Load }), func(p *splitstudy.PointResult) float64 { return p.Burst })
				for _, p := range pts {
					rows = append(rows, []string{fmtF(p.Burst), fmtF(p.Load), meanCI(p.One), meanCI(p.Split), ratioCI(p)})
				}
			}
			d.table("Sweep load-burst, every point: mean delays in seconds (± the 95% half-width) and the split/one ratio with its 95% interval.",
				[]string{"burst b (tokens)", "load ρ", "mean delay one (s)", "mean delay split (s)", "split/one [95% CI]"}, rows)
		},
	}
}
