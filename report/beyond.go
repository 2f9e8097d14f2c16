package report

import (
	"context"
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/verify"
	"github.com/ratesim/ratesim/systems"
)

func sectionBeyond(ctx context.Context, d *doc) error {
	d.h(2, "6. Beyond the note")
	n := pick(d, 4000, 100000)
	cfg := verify.Config{Instances: n, Seed: d.cfg.Seed, MaxK: 8, MaxJobs: 40, Workers: d.cfg.Workers, Claims: verify.ClaimNames}
	d.logf("verify: %d instances", n)
	res, err := verify.Search(ctx, cfg)
	if err != nil {
		return err
	}
	if !res.Held() {
		return fmt.Errorf("report: verify found a violation of Theorem 2 or Lemma 1")
	}
	d.p("Theorem 2 is about sums. Is the split also never better per job, in the maximum, in quantiles, in the number of jobs delayed, in the sum of squares? `ratesim verify` draws %d random small instances (k = 2 to 8 sub-buckets with rational rates, 1 to 40 jobs on a 1 ms grid, every fourth up to 260, any dispatch, FCFS, LIFO or random order), runs each exactly, checks Theorem 2 and Lemma 1 (**%d** and **%d** violations over %d events) and tests each stronger claim, keeping the smallest counterexample found, shrunk.", n, res.Violations, res.LemmaViolations, res.Events)
	var rows [][]string
	for _, c := range res.Claims {
		out := "holds on every instance tried"
		if c.Counterexample != nil {
			out = fmt.Sprintf("**fails**: %d jobs, k = %d, %s order: %s", c.Counterexample.Jobs(), len(c.Counterexample.Subs), c.Counterexample.Order, c.Detail)
		}
		rows = append(rows, []string{"`" + c.Claim + "`", c.Orders, fmt.Sprint(c.Tested), fmt.Sprint(c.Discriminating), out})
	}
	d.table("The stronger-claims map: is the split never better than the one bucket in this measure? Claims: `job` every job's delay, `max` the maximum delay, `p50`/`p90`/`p99` nearest-rank quantiles, `delayed` the number of jobs delayed, `squares` the sum of squared delays, `topm` the sum of the m largest delays for every m. 'with delay' counts the instances on which the one bucket delays some job (only those can refute a claim). Counterexamples are exact.",
		[]string{"claim", "orders", "instances", "with delay", "result"}, rows)
	d.cmd(fmt.Sprintf("ratesim verify --instances %d --seed %d   # writes each counterexample as a replayable trace to ratesim-verify/", n, d.cfg.Seed))
	d.p("The per-job claim fails even in the note's setting: r = 1, b = 2, three jobs at t = 0 sent to sub-buckets 0, 0, 1 of 2 × (0.5, 1) wait 0, 0, 1 s in the one bucket and 0, 2, 0 s split: job 3 does better split, while the totals are 1 ≤ 2 s.")
	d.p("**The maximum delay under FCFS** held on every instance, and here is why. Under FCFS a token bucket's delay of job j is d_j = max(0, max over s ≤ a_j of (A[s, a_j] − b)/r − (a_j − s)), with A[s, a_j] the jobs arriving in [s, a_j] (the horizontal deviation from the arrival curve b + r·t). Take s attaining the maximum for the job j of largest one-bucket delay D > 0, so A − b > 0. The sub-buckets share those A jobs, A = Σ A_l, and b = Σ b_l, r = Σ r_l; so some l has A_l − b_l ≥ (r_l/r)(A − b) > 0 (otherwise summing gives A − b < A − b). Sub-bucket l therefore gets a job in [s, a_j]; its last one there, at a' ≤ a_j, waits at least (A_l − b_l)/r_l − (a' − s) ≥ (A − b)/r − (a_j − s) = D. So the split's maximum delay is at least D. The argument needs FCFS (the last job of l in the window is the one that waits that long); under LIFO or random order the map above shows the claim failing.")
	d.p("**The sum of the m largest delays, for every m** (weak majorization, which implies every convex increasing cost of the delays, the sum of squares among them) held under FCFS on every instance; this is evidence, not proof.")

	// Negative controls.
	var nrows [][]string
	for _, inf := range []string{"burst", "rate"} {
		nc := verify.Config{Instances: pick(d, 2000, 10000), Seed: d.cfg.Seed, MaxK: 8, MaxJobs: 40, Workers: d.cfg.Workers, Inflate: inf}
		r, err := verify.Search(ctx, nc)
		if err != nil {
			return err
		}
		if r.Violation == nil || r.ViolationEvent == nil {
			return fmt.Errorf("report: negative control inflating the sub-buckets' %s found no violation", inf)
		}
		which := "Theorem 2"
		if r.ViolationEvent.Lemma {
			which = "Lemma 1"
		}
		jobs := fmt.Sprintf("%d jobs", r.Violation.Jobs())
		if r.Violation.Jobs() == 1 {
			jobs = "1 job"
		}
		smallest := fmt.Sprintf("%s, k = %d: %s fails", jobs, len(r.Violation.Subs), which)
		nrows = append(nrows, []string{"Σ " + map[string]string{"burst": "b_l > b", "rate": "r_l > r"}[inf], fmt.Sprint(nc.Instances),
			fmt.Sprint(r.Violations), fmt.Sprint(r.LemmaViolations), smallest, fmt.Sprintf("`ratesim verify --inflate %s --instances %d --seed %d`", inf, nc.Instances, d.cfg.Seed)})
	}
	d.table("Negative controls: with the hypotheses broken (the sub-buckets' bursts or rates adding up to more than the one bucket's) the same search must find violations, and does; so the check can fail. Violations are counted at the instants evaluated; with rates inflated a single job is enough for Lemma 1 to fail (the sub-bucket's r_l·U_l drains at r_l > r, below r·U), while Theorem 2 needs a job that waits.",
		[]string{"broken hypothesis", "instances", "Theorem 2 violations", "Lemma 1 violations", "smallest counterexample (shrunk)", "command (exits 1)"}, nrows)
	return nil
}

func sectionDRL(ctx context.Context, d *doc) error {
	d.h(2, "7. What it means for distributed rate limiting")
	d.p("The static split studied above is the simplest distributed rate limiter: each node enforces its share alone. `ratesim drl` runs the designs deployed in practice on the same arrivals (package drl): `one`, the one bucket (the lower bound of Theorem 2); `static`, the split (R/N, B/N); `store`, every decision a round trip to one central bucket; and `sync`, nodes deciding from their own copy of the bucket and reconciling through an owner every T, in the way of Gubernator's global behaviour. Shaping (jobs wait for a token), N = 2 nodes, round-robin dispatch.")
	tr := &traces[0] // NASA-HTTP
	file, shown := d.traceFile(tr)
	// A rate above section 2's (0.7, where the daytime backlog lasts hours
	// in every design): at 1.5 tokens/s the designs' differences show.
	const rateText = "1.5"
	rate, err := exact.ParseRat(rateText)
	if err != nil {
		return err
	}
	limit := buckets.Params{Rate: rate, Burst: exact.Int(tr.Burst)}
	input, flags := "the NASA-HTTP trace", fmt.Sprintf("--trace %s --time-col ts_unix --rate %s --burst %d", shown, rateText, tr.Burst)
	jobs := int64(0) // the whole trace
	if file == "" {
		input, flags = "Poisson arrivals at load 0.9 (the NASA-HTTP trace is absent)", "--jobs 20000 --load 0.9 --rate 1 --burst 10"
		limit, jobs = buckets.Params{Rate: exact.Int(1), Burst: exact.Int(10)}, 20000
	}
	rtt, err := drl.ParseDelay("1ms")
	if err != nil {
		return err
	}
	type row struct {
		design, setting string
		spec            drl.Spec
	}
	base := drl.Spec{Bucket: limit, Nodes: 2, Dispatch: "rr", Seed: d.cfg.Seed, RTT: rtt, BatchLimit: 1000}
	rows := []row{{"one", "", base}, {"static", "", base}, {"store", "round trip 1 ms", base}}
	for _, T := range []string{"10ms", "100ms", "1s", "10s"} {
		sp := base
		p, err := engine.ParseDuration(T)
		if err != nil {
			return err
		}
		sp.SyncPeriod = p
		rows = append(rows, row{"sync", "T = " + T, sp})
	}
	var out [][]string
	for _, r := range rows {
		r.spec.Design = r.design
		var proc arrivals.Process
		var trace *arrivals.Trace
		if file != "" {
			if trace, err = arrivals.OpenContext(ctx, file, arrivals.TraceOptions{TimeCol: "ts_unix"}); err != nil {
				return err
			}
			proc = trace
		} else {
			p, err := arrivals.NewPoisson(0.9, experiments.Source(d.cfg.Seed, systems.StreamArrivals))
			if err != nil {
				return err
			}
			proc = p
		}
		res, err := drl.Run(ctx, r.spec, proc, jobs)
		if trace != nil {
			trace.Close()
		}
		if err != nil {
			return fmt.Errorf("report: drl %s: %w", r.design, err)
		}
		sum, err := drl.Summarize(res, limit, nil, 0)
		if err != nil {
			return err
		}
		cmd := fmt.Sprintf("`ratesim drl %s --nodes 2 --designs %s", flags, r.design)
		if r.design == "store" {
			cmd += " --rtt 1ms"
		}
		if r.design == "sync" {
			cmd += " --sync-period " + strings.TrimPrefix(r.setting, "T = ")
		}
		out = append(out, []string{r.design, r.setting, fmt.Sprint(sum.Admitted), fmt.Sprintf("%.4g", sum.Mean), fmt.Sprintf("%.4g", sum.P99), fmt.Sprintf("%.4g", sum.Total), fmt.Sprintf("%.3f", sum.Overshoot), cmd + "`"})
	}
	d.table(fmt.Sprintf("Distributed designs on %s, R = %v tokens/s, B = %v tokens; delays in seconds; overshoot is the worst α*(d)/(B + R·d) of the admitted stream over interval lengths d (above 1: the fleet let through more than the one bucket promises).", input, limit.Rate, limit.Burst),
		[]string{"design", "setting", "admitted", "mean delay", "p99 delay", "total delay", "overshoot", "command"}, out)
	d.p("What to see: the static split never does better than the one bucket (Theorem 2), and the central store matches the one bucket's decisions at the cost of a round trip per job. Reconciling copies (`sync`) buys back the split's delay only by spending tokens the fleet does not have: between reconciliations each node serves from a full copy of the bucket, so the admitted stream can exceed the promise B + R·d (overshoot above 1), the more the longer T. The theorem's comparison S(t) ≤ S^(k)(t) applies to designs whose shares always add up to (R, B), which `sync` with copies does not. `ratesim drl --help` lists the other designs (lease, global random drop, flow proportional share) and their parameters.")
	return nil
}

func sectionCaveats(_ context.Context, d *doc) error {
	d.h(2, "Caveats")
	d.p("- **Exact time, float statistics.** Arrival instants are integer nanoseconds (a trace's decimal timestamps are converted without rounding; generated gaps are rounded once to the nanosecond) and every decision, and the Theorem 2 and Lemma 1 check, is exact. Means, totals and ratios are float64, summed from exact totals and rounded once.")
	d.p("- **Warm-up.** The sweeps start each replication with full buckets and leave the first jobs of each replication out of the statistics (the warm-up in each spec); sample paths and traces keep every job.")
	d.p("- **Sketch error.** Quantiles are exact nearest-rank values up to 2^20 delayed jobs and come from a DDSketch of 1%% relative accuracy beyond; the distribution figures are drawn from the sketch.")
	d.p("- **Finite runs.** Confidence intervals are Student t over independent replications; at loads near 1 the replications are short compared with the relaxation time of the queue, and the intervals are wider.")
	d.p("Reference: R. Guérin, *When Two is Worse Than One*, 2019 (Washington University in St. Louis); C. D. Crommelin, *Delay probability formulae when the holding times are constant*, P.O.E.E.J. 25 (1932).")
	return nil
}
