package clientstudy

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/specfile"
)

// Three requests at 0 at a policing token bucket of rate 1 token/s and
// burst 1, constant backoff 0.5 s, no bound on attempts: the hand-worked
// case of clients.TestRetryHandWorked. A passes at 0; B at 1 s after 3
// attempts; C at 2 s after 5: 9 attempts for 3 requests, latencies 0, 1,
// 2 s (mean 1, p99 2), 3 successes over 2 s: goodput 1.5/s. With a
// server of 1 job/s and no waiting room, the admitted attempts (at 0, 1
// and 2 s) are served without loss (a departure at the instant of an
// arrival happens first, clients.Server's tie rule), each a second
// later: latencies 1, 2, 3 s (mean 2, p99 3), 3 served over 3 s.
func TestClientsStudyHandWorked(t *testing.T) {
	const spec = `
model: clients
clients:
  arrivals: cron:n=3,period=100
  jobs: 3
  rate: 1
  limit: 1
  backoff: constant
  base: 500ms
  max_attempts: 0
replications: 2
sweep:
  - {server_rate: [1], buffer: [0]}
  - {max_attempts: [0]}
`
	s, err := ParseClientsStudy(strings.NewReader(spec), "hand.yaml", nil)
	if err != nil {
		t.Fatal(err)
	}
	tab, err := experiments.RunModel(context.Background(), "", ClientsModel, s, experiments.SweepOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	wantCols := []string{"point", "server_rate_jobs_per_s", "buffer_jobs", "max_attempts"}
	for _, m := range ClientsMetrics {
		wantCols = append(wantCols, m, m+"_ci95")
	}
	if strings.Join(tab.Columns, ",") != strings.Join(wantCols, ",") {
		t.Fatalf("columns %v, want %v", tab.Columns, wantCols)
	}
	for i, want := range [][]float64{
		// requests, attempts per request, goodput, give-ups, mean, p99, overflows; each then its CI (0: the replications agree)
		{3, 0, 3, 0, 1, 0, 0, 0, 2, 0, 3, 0, 0, 0},
		{3, 0, 3, 0, 1.5, 0, 0, 0, 1, 0, 2, 0, 0, 0},
	} {
		got := tab.Rows[i][4:]
		for j, w := range want {
			if g, ok := got[j].(float64); !ok || g != w {
				t.Errorf("point %d %s: %v, want %v", i, tab.Columns[4+j], got[j], w)
			}
		}
	}
}

// An invalid parameter is a *ParamError naming it, in the words the
// caller gives (Name), that wraps ErrSpec.
func TestClientsParamsErrors(t *testing.T) {
	p := DefaultClientsParams()
	p.Backoff, p.Cap = "full", "10ms"
	p.Given = func(k string) bool { return k == "cap" } // a cap not given rises to the base
	_, err := p.Spec()
	var pe *ParamError
	if !errors.As(err, &pe) || pe.Param != "cap" || !errors.Is(err, specfile.ErrSpec) || err.Error() != "cap 10ms: want a cap >= base 0.1 s" {
		t.Errorf("err %v", err)
	}
	p = DefaultClientsParams()
	p.Buffer, p.Given = 3, func(k string) bool { return k == "buffer" }
	p.Name = func(k string) string { return "--" + strings.ReplaceAll(k, "_", "-") }
	if _, err := p.Spec(); err == nil || err.Error() != "--buffer applies with --server-rate only" {
		t.Errorf("err %v", err)
	}
}
