package report

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
)

// metastableSpec is the issue 25 scenario as a clients study, one point
// per mechanism; %d is the replications.
const metastableSpec = `# metastable: written by ratesim paper; run with ratesim sweep %s/specs/metastable.yaml
name: metastable
model: clients
clients:
  service: exp:100ms
  servers: 2
  server_concurrency: 5
  timeout: 1s
  arrivals: poisson:rate=70
  jobs: 4200
  backoff: full
  base: 100ms
  cap: 10s
  max_attempts: 4
  fault: crash:5s:15s
replications: %d
seed: %d
sweep:
  - retry_budget: [none, aws, grpc, finagle, bucket, breaker]
  - client_throttle: [sre]
  - server_order: [lifo]
  - concurrency: [aimd, gradient2, vegas]
`

// sectionOverload is "When the limit is not enough": the metastable
// scenario over replications, each mechanism, and the recovery map of
// ratesim sweep --builtin metastability.
func sectionOverload(ctx context.Context, d *doc) error {
	d.h(2, "8. When the limit is not enough: overload and recovery")
	d.p("A rate limit is a contract declared beforehand; when the servers behind it slow down or fail, what keeps the service up is how clients react. `ratesim clients --service` runs open-loop clients against servers that can collapse (package clients): a fixed concurrency, a waiting room, a service-time distribution, a client timeout after which the server still serves the attempt (wasted work), and faults in time. A failed attempt is retried unless a retry budget (the AWS SDK for Go v2's retry quota, gRPC's retry throttling of gRFC A6, Finagle's RetryBudget, Brooker's retry token bucket, a breaker on retries) or client-side throttling (the SRE book's p = max(0, (requests − K·accepts)/(requests + 1))) refuses it.")
	reps := pick(d, 5, 30)
	text := fmt.Sprintf(metastableSpec, d.out, reps, d.cfg.Seed)
	path, err := d.file("specs/metastable.yaml", []byte(text))
	if err != nil {
		return err
	}
	d.logf("metastable: 11 mechanisms × %d replications", reps)
	study, err := clientstudy.ParseClientsStudy(strings.NewReader(text), "metastable", nil)
	if err != nil {
		return err
	}
	t, err := experiments.RunModel(ctx, "metastable", clientstudy.ClientsModel, study, experiments.SweepOptions{Workers: d.cfg.Workers})
	if err != nil {
		return err
	}
	col := func(name string) int {
		c := t.Column(name)
		if c < 0 {
			panic("report: no column " + name)
		}
		return c
	}
	num := func(r []any, name string) float64 {
		x, _ := r[col(name)].(float64)
		return x
	}
	pm := func(r []any, name, format string) string {
		m, h := num(r, name), num(r, name+"_ci95")
		if math.IsNaN(m) {
			return "–"
		}
		return fmt.Sprintf(format+" ± "+format, m, h)
	}
	var rows [][]string
	var held, lost []string // mechanisms that recovered in at least half the replications, and the others
	noneRec := -1.0
	for _, r := range t.Rows {
		mech := "none (3 retries)"
		for _, c := range []string{"retry_budget", "client_throttle", "server_order", "concurrency"} {
			if s, ok := r[col(c)].(string); ok && s != "" && s != "none" {
				mech = map[string]string{"retry_budget": "budget ", "client_throttle": "throttle ", "server_order": "queue ", "concurrency": "limit "}[c] + s
			}
		}
		if mech == "none (3 retries)" {
			noneRec = num(r, "recovered")
		} else if num(r, "recovered") >= 0.5 {
			held = append(held, "`"+mech+"`")
		} else {
			lost = append(lost, "`"+mech+"`")
		}
		rows = append(rows, []string{mech, fmt.Sprintf("%.0f of %d", num(r, "recovered")*float64(reps), reps), pm(r, "recovery_s", "%.3g"),
			pm(r, "goodput_per_s", "%.3g"), pm(r, "work_amplification", "%.3g"), pm(r, "timeouts_per_request", "%.3g")})
	}
	d.table(fmt.Sprintf("The metastable scenario (after Stability Sim's `metastable-retry`), per mechanism (a retry budget, a client throttle, a LIFO queue, or an adaptive concurrency limit in front of each server, with Netflix concurrency-limits' defaults): Poisson 70 requests/s to 2 servers in round robin, each of concurrency 5 with exponential service of mean 0.1 s (100 jobs/s in all: 70%% utilised), an unbounded FIFO queue, a 1 s timeout, 3 retries with full-jitter backoff (base 100 ms, cap 10 s); server 1 crashes at 5 s and is back at 15 s; 4200 requests (60 s). Means ± 95%% half-widths over %d replications. Recovered: goodput averaged over 10 s within 5%% of its level over the 5 s before the crash, at a bin start after 15 s; recovery time counts from 15 s, and a run that did not recover counts to the end of its series (a lower bound). Work amplification: attempts that reached a server per request.", reps),
		[]string{"mechanism", "recovered", "recovery time (s)", "goodput (requests/s)", "work amplification", "timeouts per request"}, rows)
	d.cmd("ratesim sweep "+path+" -o ratesim-metastable",
		"ratesim clients --service exp:100ms --servers 2 --server-concurrency 5 --timeout 1s --arrivals poisson:rate=70 --jobs 4200 --backoff full --max-attempts 4 --fault crash:5s:15s   # one run; add --retry-budget aws, --client-throttle sre, --server-order lifo ...")
	if noneRec < 0.5 {
		d.p("Without a budget the service recovered in %.0f of %d replications: ten seconds of a crash leave it collapsed long after the crashed server is back. The surviving server's queue grows past the 1 s timeout, every attempt then times out while the servers keep serving attempts their clients have given up, and each request sends 3 more. That is a metastable failure in the sense of Bronson et al. (HotOS 2021): the trigger is gone and the retries sustain the overload.", noneRec*float64(reps), reps)
	} else {
		d.p("Without a budget the service recovered in %.0f of %d replications of this run: the crash did not leave it in a metastable state.", noneRec*float64(reps), reps)
	}
	d.p("Recovered in at least half the replications: %s. In fewer: %s. A budget caps retries as a share of successes or of requests; gRPC's throttle stops retrying once over 1/11 of attempts fail; SRE throttling caps what reaches the servers at K = 2 times the accepts, but its two-minute window still holds the failures of the collapse, and its own rejections count as requests, which keeps p high until accepts fill the window again; a LIFO queue serves the freshest attempts, those whose clients still wait; Gradient2's limit (at least 20 in flight at a server of concurrency 5) bounds the queue to well under the timeout, while AIMD counts a sample as a drop only past its own 5 s timeout or on an error, and grows its limit meanwhile.", listOrNone(held), listOrNone(lost))

	// The map.
	spec, model, ok := clientstudy.BuiltinSpec("metastability")
	if !ok || model != clientstudy.ClientsModel {
		return fmt.Errorf("report: no built-in metastability study")
	}
	mreps := pick(d, 1, 10)
	mspec := strings.Replace(spec, "replications: 10", fmt.Sprintf("replications: %d", mreps), 1)
	mspec = strings.Replace(mspec, "seed: 1\n", fmt.Sprintf("seed: %d\n", d.cfg.Seed), 1)
	ms, err := clientstudy.ParseClientsStudy(strings.NewReader(mspec), "metastability", nil)
	if err != nil {
		return err
	}
	d.logf("metastability map: %d points × %d replications", ms.NumPoints(), mreps)
	mt, err := experiments.RunModel(ctx, "metastability", clientstudy.ClientsModel, ms, experiments.SweepOptions{Workers: d.cfg.Workers})
	if err != nil {
		return err
	}
	figs := clientstudy.MetastabilityFigures(mt, fmt.Sprintf("ratesim sweep --builtin metastability (%d replications per point)", mreps))
	if len(figs) == 0 {
		return fmt.Errorf("report: the metastability map has no figure")
	}
	d.p("Which mechanism keeps the service out of the metastable state, at which load and after how long a crash? `ratesim sweep --builtin metastability` runs the scenario (server 1 crashing at 20 s, so that the level to return to is measured over 20 s) for each mechanism on a grid of load (the offered rate over the servers' 100 jobs/s) × crash length (2, 5, 10 s), %s per point.", countOf(mreps, "replication"))
	for _, f := range figs {
		name := f.Name
		if !strings.HasSuffix(name, "-none") && !strings.HasSuffix(name, "-aws") && !strings.HasSuffix(name, "-sre") && !strings.HasSuffix(name, "-lifo") && !strings.HasSuffix(name, "-gradient2") {
			continue
		}
		if err := d.figure(name, f.Figure, "Time to recover after the crash ends (colour and label, mean over the replications), grey where fewer than half the replications recovered. "+
			map[string]string{"metastability-none": "Without a budget.",
				"metastability-aws": "With the AWS SDK's retry quota.", "metastability-sre": "With SRE client-side throttling (K = 2, two-minute window).",
				"metastability-lifo": "With a LIFO queue and no budget.", "metastability-gradient2": "With Netflix's Gradient2 concurrency limit in front of each server and no budget."}[name]); err != nil {
			return err
		}
	}
	d.cmd(fmt.Sprintf("ratesim sweep --builtin metastability -o ratesim-metastability   # %d replications per point in the built-in spec; the figures above used %d", 10, mreps))
	return nil
}

// listOrNone joins names with commas, or says none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// countOf writes n and the noun, with an s unless n is 1.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
