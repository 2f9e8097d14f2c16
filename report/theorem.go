package report

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
)

// poissonRun is the sample path of sections 2, 3 and 5: Poisson arrivals
// at load 0.9 into (1 token/s, 10 tokens) and its split in two.
type poissonRun struct {
	load   float64
	one    buckets.Params
	k      int
	jobs   int64
	order  buckets.Order
	seed   uint64
	result splitstudy.Result
	series *splitstudy.Series
}

func (p *poissonRun) spec() (splitstudy.RunSpec, error) {
	subs, err := buckets.EqualSplit(p.one, p.k)
	if err != nil {
		return splitstudy.RunSpec{}, err
	}
	return splitstudy.RunSpec{One: p.one, Subs: subs, Dispatch: "rr", Order: p.order, Seed: p.seed, MaxJobs: p.jobs}, nil
}

// input is ratesim run's description of these arrivals.
func (p *poissonRun) input() string {
	return fmt.Sprintf("poisson arrivals, load %v (λ = %v jobs/s)", p.load, p.load*p.one.Rate.Float64())
}

// command is the ratesim run command of this run.
func (p *poissonRun) command(extra string) string {
	c := fmt.Sprintf("ratesim run --load %v --rate %v --burst %v --k %d --jobs %d --seed %d", p.load, p.one.Rate, p.one.Burst, p.k, p.jobs, p.seed)
	if p.order != buckets.FCFS {
		c += " --order " + p.order.String()
	}
	return c + extra
}

func (p *poissonRun) run(ctx context.Context) error {
	spec, err := p.spec()
	if err != nil {
		return err
	}
	arr, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Spec: "poisson", Load: p.load, Rate: p.one.Rate}, p.seed)
	if err != nil {
		return err
	}
	proc := arr.Process
	p.result, p.series, err = splitstudy.RunSeries(ctx, spec, proc, nil, splitstudy.SeriesOptions{})
	if err != nil {
		return err
	}
	if !p.result.Check.Held() {
		return fmt.Errorf("report: Theorem 2 or Lemma 1 failed on %s: %v", p.command(""), p.result.Check.First)
	}
	return nil
}

func (d *doc) samplePath(order buckets.Order) *poissonRun {
	return &poissonRun{load: 0.9, one: buckets.Params{Rate: exact.Int(1), Burst: exact.Int(10)}, k: 2,
		jobs: pick[int64](d, 20000, 200000), order: order, seed: d.cfg.Seed}
}

// traceSpec is a real trace and the bucket that fits it (the README's
// parameters: a token rate near the trace's mean arrival rate).
type traceSpec struct {
	Name, Path string
	Opt        arrivals.TraceOptions
	Flags      string // ratesim run's trace flags
	Rate       string
	Burst      int64
	K          int
	Dispatches []string // the first is section 2's
}

var traces = []traceSpec{
	{Name: "NASA-HTTP (1995 web server, 1 s)", Path: "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv",
		Opt: arrivals.TraceOptions{TimeCol: "ts_unix", KeyCol: "client"}, Flags: "--time-col ts_unix --key-col client",
		Rate: "0.7", Burst: 10, K: 2, Dispatches: []string{"hash", "rr", "least-loaded"}},
	{Name: "Azure LLM inference 2023 (code, 100 ns)", Path: "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv",
		Opt: arrivals.TraceOptions{TimeCol: "TIMESTAMP", TimeFormat: "datetime"}, Flags: "--time-col TIMESTAMP --time-format datetime",
		Rate: "3", Burst: 10, K: 3, Dispatches: []string{"rr", "least-loaded"}},
	{Name: "Alibaba GenTD26 (LoRA requests, 1 s, tenants)", Path: "alibaba-gentd26/lora_request_trace.csv",
		Opt: arrivals.TraceOptions{TimeCol: "gmt_create", TimeFormat: "datetime", KeyCol: "groupId"}, Flags: "--time-col gmt_create --time-format datetime --key-col groupId",
		Rate: "0.015", Burst: 10, K: 2, Dispatches: []string{"hash", "rr", "least-loaded"}},
}

// traceRun is one run of a trace under one dispatch.
type traceRun struct {
	tr       *traceSpec
	dispatch string
	path     string // as given in commands
	result   splitstudy.Result
	series   *splitstudy.Series
}

func (t *traceRun) command(extra string) string {
	return fmt.Sprintf("ratesim run --trace %s %s --rate %s --burst %d --k %d --dispatch %s%s", t.path, t.tr.Flags, t.tr.Rate, t.tr.Burst, t.tr.K, t.dispatch, extra)
}

func (t *traceRun) run(ctx context.Context, file string, withSeries bool) error {
	one, err := buckets.ParseParams(t.tr.Rate, fmt.Sprint(t.tr.Burst))
	if err != nil {
		return err
	}
	subs, err := buckets.EqualSplit(one, t.tr.K)
	if err != nil {
		return err
	}
	spec := splitstudy.RunSpec{One: one, Subs: subs, Dispatch: t.dispatch, Order: buckets.FCFS, Seed: 1}
	arr, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Trace: file, TraceOptions: t.tr.Opt}, spec.Seed)
	if err != nil {
		return err
	}
	defer arr.Close()
	proc := arr.Process
	if withSeries {
		t.result, t.series, err = splitstudy.RunSeries(ctx, spec, proc, nil, splitstudy.SeriesOptions{})
	} else {
		t.result, err = splitstudy.Run(ctx, spec, proc, nil)
	}
	if err != nil {
		return err
	}
	if !t.result.Check.Held() {
		return fmt.Errorf("report: Theorem 2 or Lemma 1 failed on %s", t.command(""))
	}
	return nil
}

// traceFile returns the trace's file and the path commands name it by, or
// "" when it is absent.
func (d *doc) traceFile(tr *traceSpec) (file, shown string) {
	if d.cfg.Traces == "" {
		return "", ""
	}
	file = filepath.Join(d.cfg.Traces, filepath.FromSlash(tr.Path))
	if _, err := os.Stat(file); err != nil {
		return "", ""
	}
	return file, filepath.ToSlash(filepath.Join(d.cfg.Traces, filepath.FromSlash(tr.Path)))
}

func sectionTheorem(ctx context.Context, d *doc) error {
	d.h(2, "2. Theorem 2 seen")
	d.p("Theorem 2: S(t) ≤ S^(k)(t) at every t, where S(t) = ∫₀ᵗ N(u) du is the delay accrued by time t and N(t) the number of jobs waiting for a token. The proof shows N(t) ≤ Σ N_l(t) at every t. ratesim checks both S(t) ≤ S^(k)(t) and Lemma 1 exactly at every instant where they can fail (the arrivals, the grants and the instants where a sub-queue empties), in integer arithmetic, with no tolerance; the intervals between are covered by a certificate.")
	p := d.samplePath(buckets.FCFS)
	d.logf("sample path: %s", p.command(""))
	if err := p.run(ctx); err != nil {
		return err
	}
	d.sample = p
	spec, _ := p.spec()
	caption := splitstudy.RunCaption(p.input(), spec, p.result.Jobs)
	figs := splitstudy.RunFigures(p.series, caption)
	c := p.result.Check
	subs, _ := p.spec()
	d.p("On Poisson arrivals at load %v into (%v token/s, %v tokens) and its split %s with round-robin dispatch (%d jobs): the split's mean delay is %.4f s against %.4f s, a ratio of %.4f; the check evaluated %d instants exactly over %d events and found **%d** violations of Theorem 2 and **%d** of Lemma 1; the smallest slack S^(k)(t) − S(t) where S(t) > 0 is %s.",
		p.load, p.one.Rate, p.one.Burst, splitstudy.DescribeSubs(subs.Subs), p.result.Jobs, p.result.Split.Mean, p.result.One.Mean, p.result.Split.Mean/p.result.One.Mean, c.Evaluated, c.Events, c.Violations, c.LemmaViolations, slack(c))
	for _, f := range figs {
		switch f.Name {
		case "accrued-delay":
			if err := d.figure("theorem2-accrued-delay", f.Figure, "S(t) and S^(k)(t) over the whole run (top) and their gap (bottom): "+gapText(d, "theorem2/sample-gap", p.series)+"."); err != nil {
				return err
			}
		case "queue":
			if err := d.figure("theorem2-queue", f.Figure, "N(t) and Σ N_l(t) around the busiest episode: "+queueText(d, p.series)+"."); err != nil {
				return err
			}
		}
	}
	d.cmd(p.command(" --plot figs"), "# figs/accrued-delay.png and figs/queue.png")

	// Real traces.
	d.h(3, "On real traces")
	var rows [][]string
	var missing []string
	for i := range traces {
		tr := &traces[i]
		file, shown := d.traceFile(tr)
		if file == "" {
			missing = append(missing, tr.Path)
			continue
		}
		t := &traceRun{tr: tr, dispatch: tr.Dispatches[0], path: shown}
		d.logf("trace: %s", t.command(""))
		if err := t.run(ctx, file, i == 0); err != nil {
			return err
		}
		d.traceRuns = append(d.traceRuns, t)
		r := t.result
		rows = append(rows, []string{tr.Name, fmt.Sprint(r.Jobs), fmt.Sprintf("(%s, %d), k = %d, %s", tr.Rate, tr.Burst, tr.K, t.dispatch),
			fmt.Sprintf("%.6g", r.One.Mean), fmt.Sprintf("%.6g", r.Split.Mean), fmt.Sprintf("%.5f", r.Split.Mean/r.One.Mean),
			fmt.Sprint(r.Check.Events), fmt.Sprint(r.Check.Evaluated), fmt.Sprint(r.Check.Violations), fmt.Sprint(r.Check.LemmaViolations), "`" + t.command("") + "`"})
	}
	if len(rows) > 0 {
		d.table("Theorem 2 and Lemma 1 checked on the real traces (../shared/traces, see its PROVENANCE.md), with a token rate near each trace's mean arrival rate; hash dispatch by the trace's key column where it has one (a keyed DRL), round-robin otherwise. Mean delays in seconds.",
			[]string{"trace", "jobs", "(r, b), split", "mean delay one (s)", "mean delay split (s)", "split/one", "events", "instants evaluated", "Theorem 2 violations", "Lemma 1 violations", "command"}, rows)
	}
	if len(missing) > 0 {
		d.p("*Not run:* %s: not found under `%s` (the traces are read in place from ../shared/traces and are not part of the repository).", strings.Join(missing, ", "), d.cfg.Traces)
	}
	d.p("The Azure Functions 2019 sample in the same folder holds per-minute counts, not requests; turning a count into arrivals needs a spreading choice (`ratesim run --format wide --spread even|random`), so it is left out here.")
	if len(d.traceRuns) > 0 && d.traceRuns[0].series != nil && d.traceRuns[0].tr == &traces[0] {
		t := d.traceRuns[0]
		one, _ := buckets.ParseParams(t.tr.Rate, fmt.Sprint(t.tr.Burst))
		subs, _ := buckets.EqualSplit(one, t.tr.K)
		spec := splitstudy.RunSpec{One: one, Subs: subs, Dispatch: t.dispatch, Order: buckets.FCFS, Seed: 1}
		figs := splitstudy.RunFigures(t.series, splitstudy.RunCaption("trace "+t.path, spec, t.result.Jobs))
		for _, f := range figs {
			if f.Name == "accrued-delay" {
				r := t.result
				see := fmt.Sprintf("The same on the NASA-HTTP trace with hash dispatch by client (Table %d): at a token rate near the mean arrival rate the one bucket's longest wait is %.3g h, and the split adds %.3g%% to the total delay (S^(k)(∞) − S(∞) = %.4g s of %.4g s); %s.",
					d.ntab, r.One.Max/3600, 100*(r.Split.Total-r.One.Total)/r.One.Total, r.Split.Total-r.One.Total, r.One.Total, gapText(d, "theorem2/nasa-gap", t.series))
				if err := d.figure("theorem2-nasa-accrued-delay", f.Figure, see); err != nil {
					return err
				}
			}
		}
		d.cmd(t.command(" --plot figs") + "   # figs/accrued-delay.png")
	}
	return nil
}

func slack(c splitstudy.CheckResult) string {
	if c.MinSlack == nil {
		return "undefined (the one bucket delays no job)"
	}
	return fmt.Sprintf("%.6g s at t = %.6g s", *c.MinSlack, *c.MinSlackAt)
}

var _ io.Closer = (*arrivals.Trace)(nil)

// gapText says whether the gap S^(k)(t) − S(t) of a series is negative at
// any sampling instant, its smallest value and its final one; it records
// the verdict as the conclusion id.
func gapText(d *doc, id string, ser *splitstudy.Series) string {
	lo, neg := math.Inf(1), 0
	for i := range ser.T {
		g := ser.SSplit[i] - ser.S[i]
		lo = math.Min(lo, g)
		if g < 0 {
			neg++
		}
	}
	final := ser.SSplit[len(ser.T)-1] - ser.S[len(ser.T)-1]
	if neg == 0 {
		d.conclude(id, "never negative")
		return fmt.Sprintf("the gap is never negative at the %d sampling instants (smallest %.4g s) and ends at %.4g s", len(ser.T), lo, final)
	}
	d.conclude(id, "negative")
	return fmt.Sprintf("**the gap is negative at %d of the %d sampling instants** (smallest %.4g s), which Theorem 2 forbids", neg, len(ser.T), lo)
}

// queueText says whether Σ N_l(t) is below N(t) at any step of the
// series' window.
func queueText(d *doc, ser *splitstudy.Series) string {
	below := 0
	for i := range ser.N {
		if ser.NSplit[i] < ser.N[i] {
			below++
		}
	}
	if below == 0 {
		d.conclude("theorem2/queue", "split never below")
		return fmt.Sprintf("the dashed split curve is below the solid one-bucket curve at none of the %d steps (N(t) ≤ Σ N_l(t), the inequality the proof of Theorem 2 rests on)", len(ser.N))
	}
	d.conclude("theorem2/queue", "split below")
	return fmt.Sprintf("**the dashed split curve is below the solid one-bucket curve at %d of the %d steps**, which the proof of Theorem 2 forbids", below, len(ser.N))
}
