package limiterstudy

import (
	"context"
	"errors"
	"io"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
	"github.com/ratesim/ratesim/profiles"
)

// instants is an arrival process of fixed instants.
type instants struct {
	ts []engine.Time
	i  int
}

func (p *instants) Next() (arrivals.Arrival, error) {
	if p.i == len(p.ts) {
		return arrivals.Arrival{}, io.EOF
	}
	p.i++
	return arrivals.Arrival{T: p.ts[p.i-1]}, nil
}

func baseSpec() LimitersSpec {
	return LimitersSpec{Params: Params{Rate: exact.Int(1), Limit: 4, Window: exact.Int(4), Hard: exact.Int(3), Soft: exact.Int(1), Queue: 4}}
}

// TestRunLimitersLeakyDownstream: the leaky bucket (R = 1) releases the
// greedy stream of γ(1, 4) (4 jobs at 0, then 1, 2, 3 s) at 0, 1, 2, 3,
// 4, 5, 6 s: it keeps its promise γ(1, 1). Into β(R = 2, T = 1) each job
// waits 1 + 1/2 s, the bound h = T + b/R = 3/2 s. The job released at 0
// is in the server over [0, 1.5) s and the next arrives at 1 s: a backlog
// of 2 = b + r·T = 1 + 1·1, the bound.
func TestRunLimitersLeakyDownstream(t *testing.T) {
	s := baseSpec()
	s.Names = []string{"leaky-queue"}
	s.Durations = []engine.Time{0}
	s.Queue = 0
	s.Service = &netcalc.RateLatency{Rate: exact.Int(2), Latency: exact.Int(1)}
	proc := &instants{ts: []engine.Time{0, 0, 0, 0, engine.Second, 2 * engine.Second, 3 * engine.Second}}
	res, err := RunLimiters(context.Background(), s, proc)
	if err != nil {
		t.Fatal(err)
	}
	d := res.Limiters[0].Downstream
	if d == nil || d.ArrivalCurve != "γ(r=1, b=1)" || !d.Conforms || d.MaxDelayExact != "1.5" || d.DelayBoundExact != "1.5" || d.MaxBacklog != 2 || d.BacklogBound != 2 {
		t.Errorf("downstream %+v, want γ(1, 1) kept, delay 3/2 s = bound, backlog 2 = bound", d)
	}
	if l := res.Limiters[0]; l.Delayed != 6 || l.Admitted != 7 {
		t.Errorf("leaky-queue admitted %d delayed %d, want 7 and 6 (all but the first wait)", l.Admitted, l.Delayed)
	}
}

func TestLimitersSpecValidateProfilesService(t *testing.T) {
	s := baseSpec()
	s.Names = []string{}
	if err := s.Validate(); !errors.Is(err, buckets.ErrParam) {
		t.Errorf("no limiter and no profile: %v, want an error", err)
	}
	s.Profiles = []profiles.Profile{profiles.MustParse("xrate")}
	if err := s.Validate(); err != nil {
		t.Errorf("one profile: %v", err)
	}
	s.Service = &netcalc.RateLatency{Rate: exact.Int(1)}
	s.Keyed = true
	if err := s.Validate(); err == nil {
		t.Errorf("service with a keyed run: no error")
	}
	s.Keyed = false
	s.Service = &netcalc.RateLatency{Rate: exact.Int(0)}
	if err := s.Validate(); err == nil {
		t.Errorf("service rate 0: no error")
	}
}

func TestPromiseCurve(t *testing.T) {
	s := baseSpec()
	for name, want := range map[string]string{
		"token-police": "γ(r=1, b=4)", "gcra": "γ(r=1, b=4)", "xrate": "γ(r=1, b=4)",
		"leaky-queue": "γ(r=1, b=1)", "sliding-log": "stair(L=4, W=4)",
	} {
		if got := s.PromiseCurve(name).String(); got != want {
			t.Errorf("%s: %s, want %s", name, got, want)
		}
	}
}
