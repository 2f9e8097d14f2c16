package clientstudy

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
)

// overloadParams are the parameters of servers that can collapse; they
// apply with service only.
var overloadParams = []string{"servers", "server_concurrency", "server_queue", "server_order", "contention", "timeout", "fault",
	"retry_budget", "client_throttle", "recovery_hold", "concurrency"}

// overload reads the overload parameters into s.Overload: servers that
// can collapse (service, servers, server_concurrency, server_queue,
// server_order, contention), the client's timeout, faults, a retry
// budget and a client throttle (issue 25). Errors are *ParamError.
func (p *ClientsParams) overload(s *ClientsSpec) error {
	if !p.given("service") && p.Service == "" {
		for _, name := range overloadParams {
			if p.given(name) {
				return p.misplaced(name, "%s applies with %s only", name, "service")
			}
		}
		return nil
	}
	// The servers are not behind a limiter: the limiter's and the
	// downstream's parameters do not apply.
	for _, name := range []string{"limiter", "profile", "limit", "window", "queue", "server_rate", "pace", "users", "retry_after"} {
		if p.given(name) {
			return p.misplaced(name, "%s does not apply with %s: the servers are not behind a limiter", name, "service")
		}
	}
	if p.Design != "" {
		return p.misplaced("design", "%s does not apply with %s: the servers are not behind a limiter", "design", "service")
	}
	if p.Users > 0 {
		return p.misplaced("users", "%s does not apply with %s: its clients are open loop", "users", "service")
	}
	o := &clients.Overload{Servers: 1, Seed: p.Seed}
	if err := p.backend(o); err != nil {
		return err
	}
	var err error
	if p.Timeout != "" {
		if o.Timeout, err = p.span("timeout", p.Timeout, false); err != nil {
			return err
		}
	}
	for _, f := range p.Fault {
		ft, err := p.fault(f, o.Servers)
		if err != nil {
			return err
		}
		o.Faults = append(o.Faults, ft)
	}
	o.Retry = s.Scenario.Retry
	if err := p.budget(o); err != nil {
		return err
	}
	if p.ClientThrottle != "" {
		if o.Throttle, err = p.throttle(); err != nil {
			return err
		}
	}
	if p.Concurrency != "" {
		if o.Concurrency, err = p.concurrency(); err != nil {
			return err
		}
	}
	hold := "10s"
	if p.RecoveryHold != "" {
		hold = p.RecoveryHold
	}
	rc := clients.Recovery{ToleranceNum: 1, ToleranceDen: 20}
	if rc.Hold, err = p.span("recovery_hold", hold, true); err != nil {
		return err
	}
	for i, f := range o.Faults {
		if i == 0 || f.From < rc.TriggerFrom {
			rc.TriggerFrom = f.From
		}
		rc.TriggerTo = max(rc.TriggerTo, f.To)
	}
	s.Overload, s.Recovery = o, rc
	return nil
}

// backend reads the servers of o: their number, service times,
// concurrency, waiting room, order and contention.
func (p *ClientsParams) backend(o *clients.Overload) error {
	b := &o.Backend
	var err error
	if b.Service, err = p.service(); err != nil {
		return err
	}
	if p.Servers != 0 {
		o.Servers = p.Servers
	}
	if o.Servers < 1 || o.Servers > 1<<20 {
		return p.bad("servers", p.Servers, "a number of servers between 1 and 2^20")
	}
	b.Concurrency = 1
	if p.ServerConcurrency != 0 {
		b.Concurrency = p.ServerConcurrency
	}
	if b.Concurrency < 1 || b.Concurrency > 1<<20 {
		return p.bad("server_concurrency", p.ServerConcurrency, "a concurrency between 1 and 2^20 jobs")
	}
	b.Queue = -1
	if q := strings.TrimSpace(p.ServerQueue); q != "" && q != "unbounded" {
		n, err := strconv.Atoi(q)
		if err != nil || n < 0 {
			return p.bad("server_queue", p.ServerQueue, "a waiting room >= 0 jobs, or unbounded")
		}
		b.Queue = n
	}
	switch p.ServerOrder {
	case "", "fifo":
	case "lifo":
		b.LIFO = true
	default:
		return p.bad("server_order", p.ServerOrder, "fifo or lifo")
	}
	if !(p.Contention >= 0 && p.Contention <= 1e6) {
		return p.bad("contention", p.Contention, "a contention factor in [0, 1e6] (service stretched by 1 + factor·(jobs in service − 1))")
	}
	b.Contention = p.Contention
	return nil
}

// OverloadSummary is what a run against servers that can collapse adds to
// the foreground's summary (JSON keys inline in "foreground").
type OverloadSummary struct {
	Retries         int64 `json:"retries"`              // attempts beyond the first
	RetriesDenied   int64 `json:"retries_denied"`       // refused by the budget or the throttle
	Throttled       int64 `json:"throttled"`            // attempts the client throttle rejected, first ones included
	BackendRequests int64 `json:"backend_requests"`     // attempts that reached a server
	Limited         int64 `json:"concurrency_rejected"` // attempts a server's concurrency limit rejected
	Timeouts        int64 `json:"timeouts"`
	Errors          int64 `json:"errors"` // attempts answered with an error (faults, full queue, refused while down)
	Wasted          int64 `json:"wasted"` // timed-out attempts a server served anyway
	// WorkAmplification is backend_requests per original request (1 + N
	// at 100% failure with N retries); BackendPerSuccess the same per
	// successful request (null when none succeeded).
	WorkAmplification experiments.Num `json:"work_amplification"`
	BackendPerSuccess experiments.Num `json:"backend_requests_per_success"`
	ServerBusy        float64         `json:"server_busy_s"` // total service time the servers gave
	// PreTrigger is the goodput before the first fault, requests/s (null
	// without a fault); RecoveredAt the recovery instant by the rule of
	// clients.Recovery (null when it did not recover by the end, or there
	// is no fault); RecoveryHold its hold.
	PreTrigger   *float64 `json:"pre_trigger_goodput_per_s"`
	RecoveredAt  *float64 `json:"recovered_at_s"`
	RecoveryHold float64  `json:"recovery_hold_s"`
	// RecoveryTime is RecoveredAt minus the end of the last fault, s; when
	// the run did not recover, the time from that end to the end of the
	// run's series (a lower bound: censored). NaN without a fault.
	RecoveryTime experiments.Num `json:"recovery_s"`
	Budget       string          `json:"retry_budget,omitempty"`
	Throttle     string          `json:"client_throttle,omitempty"`
	Concurrency  string          `json:"concurrency,omitempty"`
}

// OverloadBinJSON is what a run against servers that can collapse adds to
// each bin of the series.
type OverloadBinJSON struct {
	Offered   float64 `json:"offered_per_s"` // first attempts per second
	Retries   int64   `json:"retries"`
	Backend   int64   `json:"backend_requests"`
	Timeouts  int64   `json:"timeouts"`
	Denied    int64   `json:"retries_denied"`
	Goodput   float64 `json:"goodput_per_s"` // successes per second
	MaxQueue  int     `json:"max_queue_jobs"`
	MaxBusy   int     `json:"max_busy_jobs"`
	Servers   int     `json:"-"`
	Recovered bool    `json:"-"`
}

// runOverload runs spec's clients against its servers that can collapse.
func runOverload(spec ClientsSpec, proc arrivals.Process) (*ClientsResult, error) {
	sc := *spec.Overload
	sc.Retry.Backoff = spec.Overload.Retry.Backoff
	sc.Bin, sc.Seed = spec.Scenario.Bin, spec.Scenario.Seed
	if sc.Bin <= 0 && len(sc.Faults) > 0 {
		sc.Bin = 1e9 // for the recovery rule only: no series is written
	}
	var perr error
	var n int64
	var first, last engine.Time
	if proc == nil {
		return nil, fmt.Errorf("experiments: servers that can collapse need open-loop requests")
	}
	sc.Arrivals = arrivalSeq(proc, spec.MaxJobs, &perr, &n, &first, &last)
	res, err := clients.RunOverload(sc)
	if perr != nil {
		return nil, perr
	}
	if err != nil {
		return nil, err
	}
	out := &ClientsResult{Spec: spec, Limiter: "none", Params: describeServers(sc), Foreground: clientSummary(res.Summary), End: res.End.Seconds(), Latencies: res.Latencies}
	if spec.Offered > 0 && n > 0 {
		out.Offered = spec.Offered
	} else if n > 1 && last > first {
		out.Offered = float64(n-1) / (last - first).Seconds()
	}
	os := &OverloadSummary{RecoveryTime: experiments.Num(math.NaN()), Limited: res.Limited, Retries: res.Retries, RetriesDenied: res.RetriesDenied, Throttled: res.Throttled, BackendRequests: res.Backend,
		Timeouts: res.Timeouts, Errors: res.Errors, Wasted: res.Wasted, WorkAmplification: experiments.Num(res.WorkAmplification()),
		BackendPerSuccess: experiments.Num(ratioOrNaN(res.Backend, res.Summary.Successes)), ServerBusy: res.Busy}
	if sc.Budget != nil {
		os.Budget = sc.Budget.String()
		if sc.Adaptive != nil {
			os.Budget = "aws-adaptive: " + os.Budget + " and " + sc.Adaptive.String()
		}
	}
	if sc.Throttle != nil {
		os.Throttle = sc.Throttle.String()
	}
	if sc.Concurrency != nil {
		os.Concurrency = sc.Concurrency(rand.New(rand.NewPCG(0, 0))).String()
	}
	rc := spec.Recovery
	rc.Bin = sc.Bin
	os.RecoveryHold = rc.Hold.Seconds()
	succ := make([]int64, len(res.Series))
	for i, b := range res.Series {
		succ[i] = b.Successes
	}
	if len(sc.Faults) > 0 && rc.Bin > 0 {
		if k0 := int(rc.TriggerFrom / rc.Bin); k0 >= 1 && k0 <= len(succ) {
			var pre int64
			for _, s := range succ[:k0] {
				pre += s
			}
			g := float64(pre) / (engine.Time(k0) * rc.Bin).Seconds()
			os.PreTrigger = &g
		}
		if at, ok := rc.RecoveredAt(succ); ok {
			s := at.Seconds()
			os.RecoveredAt = &s
			os.RecoveryTime = experiments.Num((at - rc.TriggerTo).Seconds())
		} else {
			os.RecoveryTime = experiments.Num(max(0, (engine.Time(len(succ))*rc.Bin - rc.TriggerTo).Seconds()))
		}
	}
	out.Foreground.OverloadSummary = os
	if spec.Scenario.Bin <= 0 {
		return out, nil
	}
	w := sc.Bin.Seconds()
	for i, b := range res.Series {
		cb := ClientBin{Start: (engine.Time(i) * sc.Bin).Seconds(), Requests: b.Requests, Attempts: b.Requests + b.Retries, Successes: b.Successes, GiveUps: b.GiveUps,
			Amplification: finiteOrNaN(float64(b.Requests+b.Retries) / float64(b.Requests)), Goodput: float64(b.Successes) / w,
			OverloadBinJSON: &OverloadBinJSON{Offered: float64(b.Requests) / w, Retries: b.Retries, Backend: b.Backend, Timeouts: b.Timeouts,
				Denied: b.Denied, Goodput: float64(b.Successes) / w, MaxQueue: b.MaxQueue, MaxBusy: b.MaxBusy}}
		out.ForegroundSeries = append(out.ForegroundSeries, cb)
	}
	return out, nil
}

func ratioOrNaN(a, b int64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// describeServers describes the servers of sc for humans.
func describeServers(sc clients.Overload) string {
	b := sc.Backend
	q := "unbounded"
	if b.Queue >= 0 {
		q = strconv.Itoa(b.Queue)
	}
	order := "fifo"
	if b.LIFO {
		order = "lifo"
	}
	d := fmt.Sprintf("%d servers round robin, each concurrency %d, service %v, queue %s %s", sc.Servers, b.Concurrency, b.Service, q, order)
	if b.Contention > 0 {
		d += fmt.Sprintf(", contention %g", b.Contention)
	}
	if sc.Timeout > 0 {
		d += fmt.Sprintf("; timeout %v s", sc.Timeout)
	}
	for _, f := range sc.Faults {
		d += fmt.Sprintf("; %v of server %d from %v s to %v s", f.Kind, f.Server+1, f.From, f.To)
		if f.Kind != clients.FaultCrash {
			d += fmt.Sprintf(" (x %g)", f.X)
		}
	}
	return d
}

// OverloadMetrics are the columns a clients study adds when its clients
// run against servers that can collapse (service given): the work
// amplification (backend requests per original request), the retries
// denied and timeouts per original request, the fraction of replications
// that recovered by the rule of clients.Recovery, and recovery_s, the
// time from the end of the last fault to the recovery (a run that did not
// recover counts the time to the end of its series: a lower bound).
var OverloadMetrics = []string{"work_amplification", "retries_denied_per_request", "timeouts_per_request", "recovered", "recovery_s"}

func overloadMetrics(r *ClientsResult) []float64 {
	o := r.Foreground.OverloadSummary
	if o == nil {
		return []float64{math.NaN(), math.NaN(), math.NaN(), math.NaN(), math.NaN()}
	}
	n := float64(r.Foreground.Requests)
	rec := math.NaN()
	if o.PreTrigger != nil {
		rec = 0
		if o.RecoveredAt != nil {
			rec = 1
		}
	}
	return []float64{float64(o.WorkAmplification), float64(o.RetriesDenied) / n, float64(o.Timeouts) / n, rec, float64(o.RecoveryTime)}
}

// overloadStudy reports whether any point of s runs against servers that
// can collapse.
func (s *ClientsStudy) overloadStudy() bool {
	for _, p := range s.points {
		if p.params.Service != "" {
			return true
		}
	}
	return false
}

// metrics returns the metric columns of s.
func (s *ClientsStudy) metrics() []string {
	if s.overloadStudy() {
		return append(slices.Clone(ClientsMetrics), OverloadMetrics...)
	}
	return ClientsMetrics
}
