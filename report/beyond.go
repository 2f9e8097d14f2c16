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
	cfg := verify.Config{Instances: n, Seed: d.cfg.Seed, MaxK: 8, MaxJobs: 40, Workers: d.cfg.Workers, Claims: verify.ClaimNames, Known: verify.BuiltinKnown()}
	d.logf("verify: %d instances", n)
	res, err := verify.Search(ctx, cfg)
	if err != nil {
		return err
	}
	if !res.Held() {
		return fmt.Errorf("report: verify found a violation of Theorem 2 or Lemma 1")
	}
	d.p("Theorem 2 is about sums. Is the split also never better per job, in the maximum, in quantiles, in the number of jobs delayed, in the sum of squares? `ratesim verify` first runs the %d known counterexamples of its library (%s: every counterexample found so far, the 201-job p99 case of the test suite among them), then draws %d random small instances (k = 2 to 8 sub-buckets with rational rates, 1 to 40 jobs on a 1 ms grid, every eighth up to 260, every eighth a burst followed by a sparse tail, any dispatch, FCFS, LIFO or random order), runs each exactly, checks Theorem 2 and Lemma 1 (**%d** and **%d** violations over %d events) and tests each stronger claim, keeping the smallest counterexample (a random one shrunk).", res.Known, verify.KnownDir, n, res.Violations, res.LemmaViolations, res.Events)
	var rows [][]string
	for _, c := range res.Claims {
		out := "holds on every instance tried"
		if c.Counterexample != nil {
			how := "**fails** (found)"
			if c.Known != "" {
				how = "**fails** (known `" + c.Known + "`)"
			}
			out = fmt.Sprintf("%s: %d jobs, k = %d, %s order: %s", how, c.Counterexample.Jobs(), len(c.Counterexample.Subs), c.Counterexample.Order, c.Detail)
		}
		rows = append(rows, []string{"`" + c.Claim + "`", c.Orders, fmt.Sprint(c.Tested), fmt.Sprint(c.Discriminating), out})
	}
	d.table("The stronger-claims map: is the split never better than the one bucket in this measure? Claims: `job` every job's delay, `max` the maximum delay, `p50`/`p90`/`p99` nearest-rank quantiles, `delayed` the number of jobs delayed, `squares` the sum of squared delays, `topm` the sum of the m largest delays for every m. 'instances' counts the known ones and the random ones; 'with delay' the instances on which the one bucket delays some job (only those can refute a claim). 'known' names the library instance that refutes the claim, 'found' a counterexample of the random search. Counterexamples are exact.",
		[]string{"claim", "orders", "instances", "with delay", "result"}, rows)
	d.cmd(fmt.Sprintf("ratesim verify --instances %d --seed %d   # writes each counterexample as a replayable trace to ratesim-verify/", n, d.cfg.Seed))
	status := map[string]*verify.ClaimResult{}
	for i := range res.Claims {
		c := &res.Claims[i]
		status[c.Claim+"/"+c.Orders] = c
		v := "holds"
		if c.Counterexample != nil {
			v = "fails"
		}
		d.conclude("claims/"+c.Claim+"/"+c.Orders, v)
	}
	fails := func(key string) bool { c := status[key]; return c != nil && c.Counterexample != nil }
	text, err := perJobExample()
	if err != nil {
		return err
	}
	d.p("%s", text)
	switch {
	case status["max/fcfs"] == nil:
	case !fails("max/fcfs"):
		other := fmt.Sprintf("under LIFO or random order the argument does not apply, and the map above found no counterexample there either, on %d instances", status["max/any"].Tested)
		if fails("max/any") {
			other = fmt.Sprintf("under LIFO or random order the map above shows the claim failing (a %s-order instance)", status["max/any"].Counterexample.Order)
		}
		d.p("**The maximum delay under FCFS** held on every instance (%d), and here is why. Under FCFS a token bucket's delay of job j is d_j = max(0, max over s ≤ a_j of (A[s, a_j] − b)/r − (a_j − s)), with A[s, a_j] the jobs arriving in [s, a_j] (the horizontal deviation from the arrival curve b + r·t). Take s attaining the maximum for the job j of largest one-bucket delay D > 0, so A − b > 0. The sub-buckets share those A jobs, A = Σ A_l, and b = Σ b_l, r = Σ r_l; so some l has A_l − b_l ≥ (r_l/r)(A − b) > 0 (otherwise summing gives A − b < A − b). Sub-bucket l therefore gets a job in [s, a_j]; its last one there, at a' ≤ a_j, waits at least (A_l − b_l)/r_l − (a' − s) ≥ (A − b)/r − (a_j − s) = D. So the split's maximum delay is at least D. The argument needs FCFS (the last job of l in the window is the one that waits that long); %s.", status["max/fcfs"].Tested, other)
	default:
		d.p("**The maximum delay under FCFS failed** on an instance (Table %d), which contradicts the argument that it cannot (a split's sub-bucket that gets more than its share of a window's jobs waits at least as long): a defect to investigate.", d.ntab)
	}
	if c := status["topm/fcfs"]; c != nil {
		if fails("topm/fcfs") {
			d.p("**The sum of the m largest delays, for every m** (weak majorization) failed under FCFS (Table %d), and with it the claim that every convex increasing cost of the delays is larger split.", d.ntab)
		} else {
			sq := "the sum of squares among them"
			if fails("squares/fcfs") {
				sq = "although the sum of squares failed, which a weak majorization forbids: a defect to investigate"
			}
			d.p("**The sum of the m largest delays, for every m** (weak majorization, which implies every convex increasing cost of the delays, %s) held under FCFS on every instance tried (%d); this is evidence, not proof.", sq, c.Tested)
		}
	}

	// Negative controls.
	var nrows [][]string
	oneJobLemma := false
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
			oneJobLemma = oneJobLemma || (inf == "rate" && r.ViolationEvent.Lemma)
		}
		smallest := fmt.Sprintf("%s, k = %d: %s fails", jobs, len(r.Violation.Subs), which)
		nrows = append(nrows, []string{"Σ " + map[string]string{"burst": "b_l > b", "rate": "r_l > r"}[inf], fmt.Sprint(nc.Instances),
			fmt.Sprint(r.Violations), fmt.Sprint(r.LemmaViolations), smallest, fmt.Sprintf("`ratesim verify --inflate %s --instances %d --seed %d`", inf, nc.Instances, d.cfg.Seed)})
	}
	why := ""
	if oneJobLemma {
		why = "; with rates inflated a single job is enough for Lemma 1 to fail (the sub-bucket's r_l·U_l drains at r_l > r, below r·U), while Theorem 2 needs a job that waits"
	}
	d.table("Negative controls: with the hypotheses broken (the sub-buckets' bursts or rates adding up to more than the one bucket's) the same search must find violations, and does; so the check can fail. Violations are counted at the instants evaluated"+why+".",
		[]string{"broken hypothesis", "instances", "Theorem 2 violations", "Lemma 1 violations", "smallest counterexample (shrunk)", "command (exits 1)"}, nrows)
	return nil
}

func sectionDRL(ctx context.Context, d *doc) error {
	d.h(2, "7. What it means for distributed rate limiting")
	d.p("The static split studied above is the simplest distributed rate limiter: each node enforces its share alone. `ratesim drl` runs the designs deployed in practice on the same arrivals (package drl): `one`, the one bucket (the lower bound of Theorem 2); `static`, the split (R/N, B/N); `store`, every decision a round trip to one central bucket; and `reconcile`, nodes deciding from their own copy of the bucket and reconciling through an owner every T (local buckets with periodic reconciliation: Gubernator's global behaviour idealized, exact states copied; `sync`, Gubernator's own, only polices). Shaping (jobs wait for a token), N = 2 nodes, round-robin dispatch.")
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
	base := drl.Spec{Bucket: limit, Nodes: 2, Dispatch: "rr", Seed: d.cfg.Seed, Store: drl.StoreParams{RTT: rtt}, Sync: drl.SyncParams{BatchLimit: 1000}}
	rows := []row{{"one", "", base}, {"static", "", base}, {"store", "round trip 1 ms", base}}
	for _, T := range []string{"10ms", "100ms", "1s", "10s"} {
		sp := base
		p, err := engine.ParseDuration(T)
		if err != nil {
			return err
		}
		sp.Sync.Period = p
		rows = append(rows, row{"reconcile", "T = " + T, sp})
	}
	var out [][]string
	sums := make([]drl.Summary, len(rows))
	for ri, r := range rows {
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
		sums[ri] = sum
		cmd := fmt.Sprintf("`ratesim drl %s --nodes 2 --designs %s", flags, r.design)
		if r.design == "store" {
			cmd += " --rtt 1ms"
		}
		if r.design == "reconcile" {
			cmd += " --sync-period " + strings.TrimPrefix(r.setting, "T = ")
		}
		out = append(out, []string{r.design, r.setting, fmt.Sprint(sum.Admitted), fmt.Sprintf("%.4g", sum.Mean), fmt.Sprintf("%.4g", sum.P99), fmt.Sprintf("%.4g", sum.Total), fmt.Sprintf("%.4f", sum.Overshoot), fmt.Sprintf("%.4g", sum.Excess), cmd + "`"})
	}
	d.table(fmt.Sprintf("Distributed designs on %s, R = %v tokens/s, B = %v tokens; delays in seconds; overshoot is the supremum over every interval length d of α*(d)/(B + R·d), α*(d) the most admitted jobs in a closed interval of length d (exact, over every pair of admitted instants; above 1: the fleet let through more than the one bucket promises), and excess the supremum of α*(d) − (B + R·d) in jobs.", input, limit.Rate, limit.Burst),
		[]string{"design", "setting", "admitted", "mean delay", "p99 delay", "total delay", "overshoot", "excess", "command"}, out)
	d.p("%s", drlText(d, map[bool]string{true: "policing", false: "shaping"}[base.Police]+fmt.Sprintf(", N = %d nodes, %s dispatch", base.Nodes, base.Dispatch), func(i int) (string, string, drl.Summary) { return rows[i].design, rows[i].setting, sums[i] }, len(rows)))
	return nil
}

// drlText says what Table 11 shows, from its rows: the static split's
// total delay against the one bucket's (Theorem 2), the store's decisions
// against the one bucket's, and how the reconcile design's overshoot and mean
// delay move with T.
func drlText(d *doc, mode string, row func(int) (design, setting string, s drl.Summary), n int) string {
	var one, static, store *drl.Summary
	var syncT []string
	var syncs []drl.Summary
	for i := range n {
		design, setting, s := row(i)
		switch design {
		case "one":
			one = &s
		case "static":
			static = &s
		case "store":
			store = &s
		case "reconcile":
			syncT, syncs = append(syncT, strings.TrimPrefix(setting, "T = ")), append(syncs, s)
		}
	}
	var parts []string
	if one != nil && static != nil {
		v := "at least"
		if static.Total < one.Total {
			v = "**below**"
		}
		d.conclude("drl/static-total-vs-one", map[bool]string{true: "at least", false: "below"}[static.Total >= one.Total])
		parts = append(parts, fmt.Sprintf("the static split's total delay, %.4g s, is %s the one bucket's, %.4g s (Theorem 2 requires at least)", static.Total, v, one.Total))
	}
	if one != nil && store != nil {
		same := "the same number of jobs as"
		if store.Admitted != one.Admitted {
			same = "a different number of jobs from"
		}
		d.conclude("drl/store-admitted-vs-one", map[bool]string{true: "same", false: "different"}[store.Admitted == one.Admitted])
		parts = append(parts, fmt.Sprintf("the central store admits %s the one bucket (%d against %d), its mean delay %.4g s against %.4g s (a round trip per job)", same, store.Admitted, one.Admitted, store.Mean, one.Mean))
	}
	if len(syncs) > 0 {
		over, lessDelay, nondecr := 0, 0, true
		for i, s := range syncs {
			if s.Overshoot > 1 {
				over++
			}
			if static != nil && s.Mean < static.Mean {
				lessDelay++
			}
			if i > 0 && s.Overshoot < syncs[i-1].Overshoot {
				nondecr = false
			}
		}
		dir := "never falls as T grows"
		if !nondecr {
			dir = "is not monotone in T"
		}
		d.conclude("drl/reconcile-overshoot-over-T", dir)
		d.conclude("drl/reconcile-over-promise", fmt.Sprintf("%d of %d", over, len(syncs)))
		text := fmt.Sprintf("reconciling copies (`reconcile`) overshoot the promise B + R·d at %d of the %d periods T tried (from %.3f at T = %s to %.3f at T = %s; the overshoot %s)", over, len(syncs), syncs[0].Overshoot, syncT[0], syncs[len(syncs)-1].Overshoot, syncT[len(syncT)-1], dir)
		if static != nil {
			text += fmt.Sprintf(", and their mean delay is below the static split's at %d of them", lessDelay)
		}
		parts = append(parts, text)
	}
	return fmt.Sprintf("What the table shows (%s, computed from its rows): %s. Between reconciliations each `reconcile` node serves from its own copy of the bucket, so the admitted stream can exceed what the one bucket allows; the theorem's comparison S(t) ≤ S^(k)(t) applies to designs whose shares always add up to (R, B), which `reconcile` with copies does not. `ratesim drl --help` lists the other designs (lease, global random drop, flow proportional share) and their parameters.", mode, strings.Join(parts, "; "))
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

// perJobExample runs the note's setting with three jobs at t = 0 sent to
// sub-buckets 0, 0, 1 of 2 × (0.5, 1) and says whether a job does better
// split, from the delays computed.
func perJobExample() (string, error) {
	in := systems.Instance{
		One:   buckets.Params{Rate: exact.Int(1), Burst: exact.Int(2)},
		Subs:  []buckets.Params{{Rate: exact.NewRat(1, 2), Burst: exact.Int(1)}, {Rate: exact.NewRat(1, 2), Burst: exact.Int(1)}},
		Times: []engine.Time{0, 0, 0},
		Sub:   []int{0, 0, 1},
		Order: buckets.FCFS,
	}
	dl, _, err := systems.RunInstance(in, false)
	if err != nil {
		return "", err
	}
	var one, split []string
	var totOne, totSplit float64
	better := -1
	for i := range in.Times {
		o, s := dl.One[i].QuoFloat64(1e9), dl.Split[i].QuoFloat64(1e9)
		one, split = append(one, fmtS(o)), append(split, fmtS(s))
		totOne, totSplit = totOne+o, totSplit+s
		if s < o && better < 0 {
			better = i
		}
	}
	head := fmt.Sprintf("In the note's setting, r = 1, b = 2, three jobs at t = 0 sent to sub-buckets 0, 0, 1 of 2 × (0.5, 1) wait %s s in the one bucket and %s s split (totals %s ≤ %s s)", strings.Join(one, ", "), strings.Join(split, ", "), fmtS(totOne), fmtS(totSplit))
	if better < 0 {
		return head + ": no job does better split here.", nil
	}
	return fmt.Sprintf("%s: job %d does better split, so the per-job claim fails even there.", head, better+1), nil
}
