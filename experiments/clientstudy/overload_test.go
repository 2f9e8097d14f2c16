package clientstudy

import (
	"context"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
)

// A clients study over servers that can collapse reports the overload
// metrics, and the figures of a run mark its fault. Two points of 200
// requests at 10/s to one server of deterministic 50 ms service (no
// queueing: 50% utilised), a 10 s error fault of probability 1 from 5 s:
// every request arriving in the fault fails all its attempts.
func TestOverloadStudyAndFigures(t *testing.T) {
	const spec = `name: tiny
model: clients
clients:
  service: det:50ms
  arrivals: periodic:rate=10
  jobs: 200
  backoff: none
  max_attempts: 2
  fault: error:5s:15s:1
replications: 2
seed: 1
sweep:
  retry_budget: [none, aws]
`
	s, err := ParseClientsStudy(strings.NewReader(spec), "tiny", nil)
	if err != nil {
		t.Fatal(err)
	}
	cols := strings.Join(s.Columns(), ",")
	for _, m := range OverloadMetrics {
		if !strings.Contains(cols, m) {
			t.Errorf("columns %s lack %s", cols, m)
		}
	}
	tab, err := experiments.RunModel(context.Background(), "tiny", ClientsModel, s, experiments.SweepOptions{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	wa := tab.Column("work_amplification")
	// Periodic arrivals at 10/s from 0: the 100 requests of [5 s, 15 s)
	// fail their first attempt (answered in the fault) and retry once, the
	// other 100 succeed at once: 300 attempts at the server over 200
	// requests, 1.5, with no budget; the AWS quota (500 tokens, 5 per retry)
	// grants all 100 retries: 1.5 too.
	for i, r := range tab.Rows {
		if got := r[wa].(float64); got != 1.5 {
			t.Errorf("row %d: work amplification %v, want 1.5", i, got)
		}
	}

	p := DefaultClientsParams()
	// The same with 300 requests (30 s), so that a 10 s hold fits after the
	// fault: requests at 0, 0.1, ... s, answered 50 ms later; the answers
	// ending in [5 s, 15 s) fail: the 100 first attempts of 5.0 to 14.9 s
	// and the 99 retries of 5.0 to 14.8 s (the retry of 14.9 s ends at 15
	// s, after the fault's end, an event scheduled first): 199 errors, 100
	// retries, 400 attempts at the server. Goodput: 50 successes in [0, 5
	// s) (10/s); 11 in the bin of 15 s and 10 in each later one, so the
	// average over [15 s, 25 s) is 10.1/s, within 5%: recovered at 15 s.
	p.Service, p.Arrivals, p.Jobs, p.Backoff, p.MaxAttempts, p.Fault, p.Bin = "det:50ms", "periodic:rate=10", 300, "none", 2, []string{"error:5s:15s:1"}, "1s"
	p.Given = func(k string) bool {
		return k == "service" || k == "fault" || k == "arrivals" || k == "jobs" || k == "backoff" || k == "max_attempts"
	}
	sp, err := p.Spec()
	if err != nil {
		t.Fatal(err)
	}
	a, err := p.OpenArrivals(context.Background(), &sp)
	if err != nil {
		t.Fatal(err)
	}
	res, err := RunClients(context.Background(), sp, a.Process)
	if err != nil {
		t.Fatal(err)
	}
	o := res.Foreground.OverloadSummary
	if o == nil || o.BackendRequests != 400 || o.Retries != 100 || o.Errors != 199 {
		t.Fatalf("overload summary %+v; want 400 backend requests, 100 retries, 199 errors", o)
	}
	if o.RecoveredAt == nil || *o.RecoveredAt != 15 {
		t.Errorf("recovered at %v, want 15 s (the first bin after the fault, every request succeeding again)", o.RecoveredAt)
	}
	figs := ClientsFigures(res, "tiny")
	if len(figs) == 0 || figs[0].Name != "overload-series" {
		t.Fatalf("figures %v, want overload-series first", figs)
	}
}
