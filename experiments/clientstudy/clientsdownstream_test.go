package clientstudy

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/plots"
)

// The downstream series and figure of a hand case: 3 requests at 0
// through a token bucket loose enough to admit them all (burst 10), never
// retried (max attempts 1), into a server of 1 job/s with room for 1,
// bins of 1 s. A is served [0, 1], B waits and is served [1, 2], C finds
// A in service and B waiting and is lost at 0. Bins [0, 1): 2 jobs at
// the server, 1 lost; [1, 2): 1 (A left at 1, at the start of the bin);
// [2, 3): 0 (B left at 2). The capacity line is at buffer + 1 = 2.
func TestClientsDownstreamSeries(t *testing.T) {
	spec := ClientsSpec{
		Limiter: "token-police",
		Limits:  limiterstudy.Params{Rate: exact.Int(1), Limit: 10, Window: exact.Int(1)},
		Scenario: clients.Scenario{
			Arrivals: func(yield func(engine.Time) bool) {
				for range 3 {
					if !yield(0) {
						return
					}
				}
			},
			Retry:  clients.RetryPolicy{Backoff: clients.NoBackoff{}, MaxAttempts: 1},
			Server: &clients.ServerParams{Rate: exact.Int(1), Buffer: 1},
			Bin:    engine.Second,
		},
	}
	res, err := RunClients(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got [][2]int64
	for _, b := range res.ForegroundSeries {
		if b.DownstreamMaxJobs == nil || b.DownstreamOverflows == nil {
			t.Fatalf("bin at %v s without the downstream series", b.Start)
		}
		got = append(got, [2]int64{int64(*b.DownstreamMaxJobs), *b.DownstreamOverflows})
	}
	if want := [][2]int64{{2, 1}, {1, 0}, {0, 0}}; !slices.Equal(got, want) {
		t.Errorf("(max jobs, overflows) per bin %v, want %v", got, want)
	}
	js, err := json.Marshal(res.ForegroundSeries[0])
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(js), `"downstream_overflows":1,"downstream_max_jobs":2`) {
		t.Errorf("JSON %s", js)
	}

	figs := ClientsFigures(res, "hand case")
	var st *plots.Stack
	for _, f := range figs {
		if f.Name == "downstream" {
			st = f.Figure.(*plots.Stack)
		}
	}
	if st == nil {
		t.Fatalf("no downstream figure among %v", figs)
	}
	jobs, capLine := st.Panels[0].Lines[0], st.Panels[0].Lines[1]
	if !slices.Equal(jobs.X, []float64{0, 1, 2, 3}) || !slices.Equal(jobs.Y, []float64{2, 1, 0, 0}) || !jobs.Step {
		t.Errorf("jobs at the server: x %v y %v", jobs.X, jobs.Y)
	}
	if !slices.Equal(capLine.Y, []float64{2, 2}) || !capLine.Dashed {
		t.Errorf("capacity line %+v, want dashed at 2", capLine)
	}
	lost := st.Panels[1].Lines[0]
	if !slices.Equal(lost.Y, []float64{1, 0, 0, 0}) {
		t.Errorf("jobs lost per bin %v, want 1, 0, 0", lost.Y)
	}
	if !strings.HasSuffix(st.Caption, "; jobs lost to the full buffer in all: 1") {
		t.Errorf("caption %q", st.Caption)
	}

	// Without a server: no downstream keys, no figure.
	spec.Scenario.Server = nil
	res, err = RunClients(context.Background(), spec, nil)
	if err != nil {
		t.Fatal(err)
	}
	js, _ = json.Marshal(res.ForegroundSeries)
	if strings.Contains(string(js), "downstream") {
		t.Errorf("JSON without a server: %s", js)
	}
	for _, f := range ClientsFigures(res, "") {
		if f.Name == "downstream" {
			t.Errorf("a downstream figure without a server")
		}
	}
}
