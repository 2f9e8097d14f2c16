package netcalc_test

import (
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/netcalc"
)

// TestServeSteps runs hand-computed streams job by job.
func TestServeSteps(t *testing.T) {
	const ms = engine.Millisecond
	tests := []struct {
		name       string
		s          netcalc.RateLatency
		ts         []engine.Time
		dep        []string // seconds
		maxDelay   string   // seconds
		delayJob   int
		maxBacklog int
		backlogAt  string // seconds
	}{
		{
			// R = 2 (0.5 s a job), T = 0.25 s. D = max(a + T, D_prev) + 0.5:
			// 0.25+0.5, 0.75+0.5, max(0.35, 1.25)+0.5, then idle until
			// 2.25: 2.75, 3.25, and max(4.15, 3.25)+0.5 = 4.65.
			// Delays 0.75, 1.25, 1.65, 0.75, 1.25, 0.75.
			// Backlog: 2 at 0, 3 at 0.1, 5 − 3 = 2 at 2, 6 − 5 = 1 at 3.9.
			name:     "busy, idle, busy",
			s:        rl("2", "0.25"),
			ts:       []engine.Time{0, 0, 100 * ms, 2000 * ms, 2000 * ms, 3900 * ms},
			dep:      []string{"0.75", "1.25", "1.75", "2.75", "3.25", "4.65"},
			maxDelay: "1.65", delayJob: 2, maxBacklog: 3, backlogAt: "0.1",
		},
		{
			// A departure at the instant of an arrival is counted as gone:
			// at 1 s, 2 arrived and 1 departed (D_0 = 1), so the backlog is
			// 1 there as at 0.
			name:     "departure at an arrival",
			s:        rl("1", "0"),
			ts:       []engine.Time{0, engine.Second},
			dep:      []string{"1", "2"},
			maxDelay: "1", delayJob: 0, maxBacklog: 1, backlogAt: "0",
		},
		{
			// 1/R = 1/3 s is not a whole nanosecond; T = 1 ns.
			// D = 1e-9 + 1/3, + 1/3, then max(1 + 1e-9, 2/3 + 1e-9) + 1/3.
			name:     "thirds",
			s:        rl("3", "0.000000001"),
			ts:       []engine.Time{0, 0, engine.Second},
			dep:      []string{"1000000003/3000000000", "2000000003/3000000000", "4000000003/3000000000"},
			maxDelay: "2000000003/3000000000", delayJob: 1, maxBacklog: 2, backlogAt: "0",
		},
		{
			// Negative instants are allowed (an origin after the first job).
			name:     "negative",
			s:        rl("1", "1"),
			ts:       []engine.Time{-engine.Second},
			dep:      []string{"1"},
			maxDelay: "2", delayJob: 0, maxBacklog: 1, backlogAt: "-1",
		},
	}
	for _, tt := range tests {
		res, err := tt.s.Serve(tt.ts)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		for i, d := range tt.dep {
			if res.Departures[i].Cmp(q(d)) != 0 {
				t.Errorf("%s: step %d: departure %v, want %s", tt.name, i, res.Departures[i], d)
			}
		}
		if res.MaxDelay.Cmp(q(tt.maxDelay)) != 0 || res.MaxDelayJob != tt.delayJob {
			t.Errorf("%s: max delay %v at job %d, want %s at %d", tt.name, res.MaxDelay, res.MaxDelayJob, tt.maxDelay, tt.delayJob)
		}
		if res.MaxBacklog != tt.maxBacklog || res.MaxBacklogAt.Cmp(q(tt.backlogAt)) != 0 {
			t.Errorf("%s: max backlog %d at %v, want %d at %s", tt.name, res.MaxBacklog, res.MaxBacklogAt, tt.maxBacklog, tt.backlogAt)
		}
	}
}

func TestServeEmpty(t *testing.T) {
	res, err := rl("1", "1").Serve(nil)
	if err != nil || len(res.Departures) != 0 || res.MaxDelayJob != -1 || res.MaxBacklog != 0 || res.MaxDelay.Sign() != 0 {
		t.Errorf("Serve(nil) = %+v, %v", res, err)
	}
}

func TestServeErrors(t *testing.T) {
	if _, err := rl("1", "1").Serve([]engine.Time{0, 5, 4}); err == nil || !strings.Contains(err.Error(), "instant 2") {
		t.Errorf("out of order: error %v, want one naming instant 2", err)
	}
	if _, err := rl("1", "1").ServeSeconds([]exact.Rat{q("1/2"), q("1/3")}); err == nil || !strings.Contains(err.Error(), "instant 1") {
		t.Errorf("out of order: error %v, want one naming instant 1", err)
	}
	if _, err := rl("0", "1").Serve([]engine.Time{0}); err == nil || !strings.Contains(err.Error(), "rate 0") {
		t.Errorf("rate 0: error %v", err)
	}
}

// TestServeSecondsMatchesServe: the two entry points agree on the same
// instants.
func TestServeSecondsMatchesServe(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 2))
	for range 100 {
		ts := randStream(src, 50, engine.Time(1+src.IntN(1e8)))
		secs := make([]exact.Rat, len(ts))
		for i, x := range ts {
			secs[i] = exact.NewRat(int64(x), int64(engine.Second))
		}
		s := netcalc.RateLatency{Rate: randRat(src, 1, 30, 7), Latency: randRat(src, 0, 2, 9)}
		a, err1 := s.Serve(ts)
		b, err2 := s.ServeSeconds(secs)
		if err1 != nil || err2 != nil {
			t.Fatal(err1, err2)
		}
		for i := range a.Departures {
			if a.Departures[i].Cmp(b.Departures[i]) != 0 {
				t.Fatalf("job %d: %v vs %v", i, a.Departures[i], b.Departures[i])
			}
		}
		if a.MaxDelay.Cmp(b.MaxDelay) != 0 || a.MaxDelayJob != b.MaxDelayJob || a.MaxBacklog != b.MaxBacklog || a.MaxBacklogAt.Cmp(b.MaxBacklogAt) != 0 {
			t.Fatalf("results differ: %+v vs %+v", a, b)
		}
	}
}

// TestGreedyAttainsBounds: the greedy token-bucket source with an integer
// burst attains h exactly (job b−1, the last of the burst), and the
// backlog reaches v exactly at the instant T when r·T is an integer. When
// it is not, the whole-job backlog lies between b + floor(r·T) (arrived by
// T, none departed) and ceil(v) (the package documentation's bound), and
// both ends occur.
func TestGreedyAttainsBounds(t *testing.T) {
	tests := []struct {
		a       netcalc.TokenBucket
		s       netcalc.RateLatency
		backlog int // measured maximum
	}{
		{tb("1", "4"), rl("3", "3"), 7},   // docs/commands.md: v = 4 + 3
		{tb("2", "1"), rl("2", "1.5"), 4}, // r = R: v = 1 + 3
		{tb("1/3", "2"), rl("1", "0"), 2}, // T = 0: v = b
		{tb("3", "5"), rl("7", "2/3"), 7}, // v = 5 + 2
		{tb("1000", "10"), rl("1000", "0.001"), 11},
		// r·T = 1/2: v = 3/2. At 1 s job 1 arrives while job 0 is half
		// served (departs at 1.5): 2 jobs = ceil(v).
		{tb("1", "1"), rl("1", "0.5"), 2},
		// r·T = 1/5: v = 6/5 but each job leaves (at 0.7, 1.7, ...) before
		// the next arrives: 1 job = b + floor(r·T).
		{tb("1", "1"), rl("2", "0.2"), 1},
	}
	for _, tt := range tests {
		ts, err := netcalc.Greedy(tt.a, 60)
		if err != nil {
			t.Fatal(err)
		}
		res, err := tt.s.ServeSeconds(ts)
		if err != nil {
			t.Fatal(err)
		}
		h, _ := netcalc.Delay(tt.a, tt.s)
		v, _ := netcalc.Backlog(tt.a, tt.s)
		b := int(tt.a.Burst.Floor().Int64())
		if res.MaxDelay.Cmp(h) != 0 || res.MaxDelayJob != b-1 {
			t.Errorf("%v into %v: max delay %v at job %d, want h = %v at job %d", tt.a, tt.s, res.MaxDelay, res.MaxDelayJob, h, b-1)
		}
		if res.MaxBacklog != tt.backlog {
			t.Errorf("%v into %v: max backlog %d, want %d (v = %v)", tt.a, tt.s, res.MaxBacklog, tt.backlog, v)
		}
		rT, _ := tt.a.Rate.Mul(tt.s.Latency)
		if rT.IsInt() && (big.NewRat(int64(res.MaxBacklog), 1).Cmp(v.Big()) != 0 || res.MaxBacklogAt.Cmp(tt.s.Latency) != 0) {
			t.Errorf("%v into %v: r·T = %v is an integer but the backlog %d at %v is not v = %v at T", tt.a, tt.s, rT, res.MaxBacklog, res.MaxBacklogAt, v)
		}
	}
}

// TestGreedyStaircaseAttainsDelay: L jobs at 0 take T + L/R.
func TestGreedyStaircaseAttainsDelay(t *testing.T) {
	a := netcalc.Staircase{Jobs: 3, Window: q("1")}
	s := rl("4", "0.5")
	ts, err := netcalc.Greedy(a, 30)
	if err != nil {
		t.Fatal(err)
	}
	res, _ := s.ServeSeconds(ts)
	h, _ := netcalc.Delay(a, s) // 0.5 + 3/4
	if res.MaxDelay.Cmp(h) != 0 || h.Cmp(q("1.25")) != 0 {
		t.Errorf("max delay %v, h %v, want 1.25", res.MaxDelay, h)
	}
	// v: k = floor(0.5/1) = 0, max(3, 6 − 4·0.5) = 4. Measured: at 1 s, 6
	// arrived and floor(4·(1 − 0.5)) = 2 departed (at 0.75 and 1).
	v, _ := netcalc.Backlog(a, s)
	if v.Cmp(q("4")) != 0 || res.MaxBacklog != 4 {
		t.Errorf("backlog bound %v, measured %d, want 4 and 4", v, res.MaxBacklog)
	}
}

func TestGreedyErrors(t *testing.T) {
	for _, c := range []struct {
		a    netcalc.Arrival
		n    int
		want string
	}{
		{tb("1", "1/2"), 1, "no unit job conforms"},
		{netcalc.Concave{tb("5", "3"), tb("0", "2")}, 3, "at most 2 jobs"},
		{tb("1", "1"), -1, "-1 jobs"},
		{nil, 1, "nil"},
		{tb("-1", "1"), 1, "rate -1"},
	} {
		if _, err := netcalc.Greedy(c.a, c.n); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Greedy(%v, %d) error %v, want one containing %q", c.a, c.n, err, c.want)
		}
	}
	// A rate of 0 is fine while the burst lasts.
	if ts, err := netcalc.Greedy(tb("0", "2"), 2); err != nil || len(ts) != 2 {
		t.Errorf("Greedy(γ(0, 2), 2) = %v, %v", ts, err)
	}
}

// TestGreedyIsMaximal: the greedy stream conforms, and moving any job that
// is first at its instant earlier by 1e-12 s (staying in order) breaks
// conformance: the window [0, t_j − ε] then holds j+1 jobs, more than
// α((t_j − ε)+).
func TestGreedyIsMaximal(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 3))
	eps := q("1/1000000000000")
	for range 200 {
		a := randArrival(src)
		ts, err := netcalc.Greedy(a, 40)
		if err != nil && strings.Contains(err.Error(), "in all") {
			continue // a bucket of rate 0 and a burst below 40
		}
		if err != nil {
			t.Fatalf("Greedy(%v): %v", a, err)
		}
		if v, ok, err := netcalc.ConformsSeconds(ts, a); !ok || err != nil {
			t.Fatalf("greedy stream of %v does not conform: %+v, %v", a, v, err)
		}
		for j := 1; j < len(ts); j++ {
			if ts[j].Cmp(ts[j-1]) == 0 {
				continue
			}
			moved := append([]exact.Rat(nil), ts...)
			moved[j], _ = ts[j].Sub(eps)
			if moved[j].Cmp(ts[j-1]) < 0 {
				continue
			}
			if _, ok, _ := netcalc.ConformsSeconds(moved, a); ok {
				t.Fatalf("%v: job %d moved from %v to %v still conforms", a, j, ts[j], moved[j])
			}
		}
	}
}

// TestServeWithinBounds: random streams policed to conform to random
// curves, through random servers: every delay is at most h, the whole-job
// backlog at most ceil(v), and (for concave curves) the departures conform
// to α ⊘ β_{R, T+1/R}, the output bound of the server with its packetizer
// (Le Boudec and Thiran §1.7: service curve (β − 1)^+).
func TestServeWithinBounds(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 4))
	runs := 200
	if testing.Short() {
		runs = 50
	}
	checked := 0
	for range runs {
		a := randArrival(src)
		ts := police(randStream(src, 80, engine.Time(1+src.IntN(200))*engine.Millisecond), a)
		s := netcalc.RateLatency{Rate: randRat(src, 1, 25, 4), Latency: randRat(src, 0, 2, 5)}
		h, err := netcalc.Delay(a, s)
		if err != nil {
			continue // unbounded
		}
		v, _ := netcalc.Backlog(a, s)
		res, err := s.Serve(ts)
		if err != nil {
			t.Fatal(err)
		}
		if res.MaxDelay.Cmp(h) > 0 {
			t.Fatalf("%v into %v: delay %v > h = %v", a, s, res.MaxDelay, h)
		}
		if ceil := v.Ceil(); exact.I128(int64(res.MaxBacklog)).Cmp(ceil) > 0 {
			t.Fatalf("%v into %v: backlog %d > ceil(v) = %v", a, s, res.MaxBacklog, ceil)
		}
		if _, stair := a.(netcalc.Staircase); !stair {
			slower := s
			inv, _ := exact.Int(1).Quo(s.Rate)
			slower.Latency, _ = s.Latency.Add(inv)
			out, err := netcalc.Output(a, slower)
			if err != nil {
				t.Fatal(err)
			}
			if viol, ok, err := netcalc.ConformsSeconds(res.Departures, out); !ok || err != nil {
				t.Fatalf("%v into %v: departures violate %v: %+v, %v", a, s, out, viol, err)
			}
		}
		checked++
	}
	if checked < runs/3 {
		t.Errorf("only %d of %d random cases were bounded", checked, runs)
	}
}

// TestTandemWithinBounds: through two or three servers, each job's
// end-to-end delay is at most h(α, Tandem(servers)).
func TestTandemWithinBounds(t *testing.T) {
	src := rand.New(rand.NewPCG(1, 5))
	runs := 200
	if testing.Short() {
		runs = 50
	}
	for range runs {
		a := randArrival(src)
		ts := police(randStream(src, 60, engine.Time(1+src.IntN(200))*engine.Millisecond), a)
		servers := make([]netcalc.RateLatency, 2+src.IntN(2))
		for i := range servers {
			servers[i] = netcalc.RateLatency{Rate: randRat(src, 10, 30, 3), Latency: randRat(src, 0, 1, 5)}
		}
		tandem, err := netcalc.Tandem(servers...)
		if err != nil {
			t.Fatal(err)
		}
		h, err := netcalc.Delay(a, tandem)
		if err != nil {
			continue
		}
		res, err := servers[0].Serve(ts)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range servers[1:] {
			if res, err = s.ServeSeconds(res.Departures); err != nil {
				t.Fatal(err)
			}
		}
		for i, d := range res.Departures {
			delay, _ := d.Sub(exact.NewRat(int64(ts[i]), int64(engine.Second)))
			if delay.Cmp(h) > 0 {
				t.Fatalf("%v through %v: job %d delay %v > h = %v", a, servers, i, delay, h)
			}
		}
	}
}
