package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

func sectionCost(ctx context.Context, d *doc) error {
	d.h(2, "4. How much splitting costs")
	d.p("Theorem 2 says the split never helps; these sweeps say by how much it hurts: the split/one ratio of the mean delay (equivalently of the total delay, the jobs being the same), with 95%% confidence intervals from paired replications (common random numbers, delta method on the log ratio).")

	// Ratio against k.
	s := experiments.DefaultSpec()
	s.Name = "split-k"
	s.Rate, s.Burst, s.Dispatch = 1, 64, "rr"
	s.Jobs = pick[int64](d, 20000, 200000)
	s.Warmup = pick[int64](d, 2000, 20000)
	s.Replications = pick(d, 4, 10)
	s.Seed = d.cfg.Seed
	grid, err := axes("load=0.95", pick(d, "k=1,2,8,64", "k=1,2,4,8,16,32,64"))
	if err != nil {
		return err
	}
	s.Sweep = experiments.Sweep{grid}
	if err := d.sweepFigures(ctx, &s, "ratio", "k equal sub-buckets of (1, 64), Poisson, rr", "The split/one mean delay ratio against the number k of equal sub-buckets (r/k, b/k) of (1 token/s, 64 tokens), round-robin dispatch, load 0.95 (at lower loads the one bucket with b = 64 almost never delays a job): k = 1 is the one bucket itself (ratio 1); the cost grows with k, as each sub-bucket's burst b/k shrinks toward one token and its queue toward an M/D/1 queue of rate r/k."); err != nil {
		return err
	}

	// Ratio against the split ratio (p, q): the built-in heat maps.
	// The built-in split-ratio study's design on a coarser grid (p and q
	// in steps of 0.1; grid 0 at two loads, grid 1 at one), so that the
	// full report runs in minutes.
	pq, err := experiments.Builtin("split-ratio")
	if err != nil {
		return err
	}
	pq.Seed = d.cfg.Seed
	pq.Name = pick(d, "split-ratio-quick", "split-ratio")
	pq.Jobs, pq.Warmup, pq.Replications = pick[int64](d, 10000, 20000), pick[int64](d, 1000, 2000), pick(d, 3, 8)
	var pqGrids []experiments.Grid
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
	pq.Sweep = experiments.Sweep(pqGrids)
	if err := d.sweepFigures(ctx, pq, "heatmap", "k = 2, weighted dispatch", "The split/one ratio over the traffic share p of sub-bucket 1 (across) and its share q of the rate and burst (up), k = 2, weighted random dispatch: the ratio is smallest near the diagonal p = q, where each sub-bucket gets the traffic its rate is sized for, and never below 1; masked cells overload a sub-bucket (no steady state)."); err != nil {
		return err
	}

	// Load and burst.
	s = experiments.DefaultSpec()
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
	s.Sweep = experiments.Sweep{grid}
	if err := d.sweepFigures(ctx, &s, "ratio", "k = 2 equal sub-buckets, Poisson, rr", "The split/one ratio against the load ρ for k = 2 equal sub-buckets and round-robin dispatch, one curve per burst b: the relative cost is largest at low load, where the one bucket rarely delays anyone and the sub-buckets, with half the burst each, do; at high load both queues are long and the ratio falls toward 1."); err != nil {
		return err
	}

	// Real traces under each dispatch.
	var rows [][]string
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
			rows = append(rows, []string{tr.Name, disp, fmt.Sprintf("%.6g", r.One.Mean), fmt.Sprintf("%.6g", r.Split.Mean), fmt.Sprintf("%.5f", r.Split.Mean/r.One.Mean), fmt.Sprint(r.Split.Delayed - r.One.Delayed), fmt.Sprint(r.Check.Violations), "`" + t.command("") + "`"})
		}
	}
	if len(rows) > 0 {
		d.table("The real traces under round-robin, least-loaded and hash dispatch (hash only where the trace has a key column), with the buckets of section 2: mean delays in seconds, their ratio, the extra jobs delayed by the split, and the Theorem 2 violations (none).",
			[]string{"trace", "dispatch", "mean delay one (s)", "mean delay split (s)", "split/one", "extra delayed jobs", "violations", "command"}, rows)
		d.p("Least-loaded dispatch sends each job to the sub-bucket with the fewest waiting jobs (ties to the one with the most tokens), information a real DRL rarely has; on these traces it makes the same choices as round-robin; hash dispatch pins each key to one sub-bucket whatever its load, as a keyed DRL does. Whatever the dispatch, no ratio is below 1.")
	}
	return nil
}

// sweepFigures stages s, runs it and writes the figures of it whose names
// start with prefix, with the command that regenerates them.
func (d *doc) sweepFigures(ctx context.Context, s *experiments.Spec, prefix, setting, see string) error {
	path, err := d.spec(s.Name, s)
	if err != nil {
		return err
	}
	res, err := d.sweep(ctx, s)
	if err != nil {
		return err
	}
	var names []string
	for _, f := range experiments.SweepFigures(res) {
		if !strings.HasPrefix(f.Name, prefix) {
			continue
		}
		switch fig := f.Figure.(type) {
		case *plots.LinePlot:
			fig.Title += ": " + setting
		case *plots.HeatMap:
			fig.Title += ": " + setting
		}
		if err := d.figure(s.Name+"-"+f.Name, f.Figure, see); err != nil {
			return err
		}
		names = append(names, "figures/"+f.Name+".png")
	}
	var rows [][]string
	for _, r := range experiments.LeastBad(res) {
		rows = append(rows, []string{r.Group, r.Point, fmt.Sprintf("%.4f [%.4f, %.4f]", r.Ratio, r.Lo, r.Hi), fmt.Sprintf("%d of %d", r.Stable, r.Points)})
	}
	d.table(fmt.Sprintf("Sweep %s: the smallest split/one ratio of each group of points, with its 95%% interval; never below 1 beyond noise.", s.Name),
		[]string{"fixed", "at", "split/one [95% CI]", "stable points"}, rows)
	d.cmd(fmt.Sprintf("ratesim sweep %s -o ratesim-%s   # %s", path, s.Name, strings.Join(names, ", ")))
	return nil
}
