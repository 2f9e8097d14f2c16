package clients

import (
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// bfParams is a backfill against a server of capacity 10 jobs/s, starting
// at half of it (one send every 0.2 s), deciding every second.
func bfParams(target engine.Time, increase float64) BackfillParams {
	return BackfillParams{
		Capacity: exact.Int(10), Initial: 0.5, Min: 0.1, Max: 1,
		Increase: increase, Decrease: 0.5, Target: target,
		Interval: engine.Second, Live: 0, Class: 1,
	}
}

// runBackfill runs a backfill of items requests next to foreground
// requests arriving at fg, all admitted, into a server at 10 jobs/s with
// room enough; it returns the backfill.
func runBackfill(t *testing.T, p BackfillParams, items int64, fg ...engine.Time) *Backfill {
	t.Helper()
	s := engine.NewSim()
	g := NewGate(s, admitAll{})
	srv, err := NewServer(ServerParams{Rate: exact.Int(10), Buffer: 100})
	if err != nil {
		t.Fatal(err)
	}
	g.Connect(srv)
	if len(fg) > 0 {
		c, _ := NewRetrying(s, g, RetryPolicy{Backoff: NoBackoff{}}, 0, rand.NewPCG(1, 1))
		c.OpenLoop(times(fg...))
	}
	b, err := NewBackfill(s, g, srv, p, 0, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	b.RecordSends()
	b.Start(items)
	s.Run()
	return b
}

// Five foreground jobs and five backfill jobs, the backfill sending every
// 0.2 s from 0, into a server of 0.1 s per job. At 0 the server receives,
// in event order, foreground 1, backfill 1, then foreground 2 to 5, and
// serves them back to back: foreground queueing delays 0, 0.2, 0.3, 0.4,
// 0.5 s (backfill 1 waits 0.1 s in between). The backfill's later jobs,
// at 0.2 to 0.8 s, queue behind them. At the control instant 1 s the
// five foreground jobs have departed with a mean queueing delay of
// (0 + 0.2 + 0.3 + 0.4 + 0.5)/5 = 0.28 s:
//
//	target 0.1 s: over, fraction 0.5·0.5 = 0.25
//	target 0.3 s: under, fraction 0.5 + 0.1 = 0.6
//
// and the backfill, done, makes no further decision.
func TestBackfillDecision(t *testing.T) {
	for _, tt := range []struct {
		target engine.Time
		want   Control
	}{
		{ms(100), Control{At: engine.Second, Latency: 0.28, Over: true, Fraction: 0.25}},
		{ms(300), Control{At: engine.Second, Latency: 0.28, Over: false, Fraction: 0.6}},
	} {
		b := runBackfill(t, bfParams(tt.target, 0.1), 5, 0, 0, 0, 0, 0)
		if diff := cmp.Diff([]Control{tt.want}, b.Controls()); diff != "" {
			t.Errorf("target %v s: controls (-want +got):\n%s", tt.target, diff)
		}
		want := []engine.Time{0, ms(200), ms(400), ms(600), ms(800)}
		if diff := cmp.Diff(want, b.Sends()); diff != "" {
			t.Errorf("target %v s: sends (-want +got):\n%s", tt.target, diff)
		}
	}
}

// Alone, the backfill sees no live latency and increases: 0.5 → 0.75 at
// 1 s → 1.0 at 2 s. At 0.5 it sends every 0.2 s (0 to 1 s); at 0.75 every
// 1/7.5 s = 133333333.3 ns, rounded to 133333333 ns, from the send at 1 s
// on. Ten items: 0, 0.2, 0.4, 0.6, 0.8, 1, then 1 s + k·133333333 ns for
// k = 1..4. The decision at 2 s finds nothing left and is the last.
func TestBackfillIncreasesAlone(t *testing.T) {
	b := runBackfill(t, bfParams(ms(100), 0.25), 10)
	wantControls := []Control{
		{At: engine.Second, Fraction: 0.75},
		{At: 2 * engine.Second, Fraction: 1},
	}
	if diff := cmp.Diff(wantControls, b.Controls()); diff != "" {
		t.Errorf("controls (-want +got):\n%s", diff)
	}
	wantSends := []engine.Time{0, ms(200), ms(400), ms(600), ms(800), ms(1000),
		1133333333, 1266666666, 1399999999, 1533333332}
	if diff := cmp.Diff(wantSends, b.Sends()); diff != "" {
		t.Errorf("sends (-want +got):\n%s", diff)
	}
}

// The fraction stays within [Min, Max]: decreases stop at Min.
func TestBackfillFloor(t *testing.T) {
	p := bfParams(0, 0) // any queueing is over target; never increases
	p.Initial, p.Min = 0.5, 0.3
	// 20 foreground jobs at 0 queue behind one another, so the mean
	// delay of those departed by 1 s is over the target 0: the fraction
	// would fall to 0.5·0.5 = 0.25 and stops at Min = 0.3.
	fg := make([]engine.Time, 20)
	b := runBackfill(t, p, 5, fg...)
	c := b.Controls()
	if len(c) == 0 || !c[0].Over || c[0].Fraction != 0.3 {
		t.Errorf("controls %+v, want the first over target at fraction 0.3", c)
	}
}

func TestBackfillValidate(t *testing.T) {
	ok := bfParams(ms(100), 0.1)
	if err := ok.Validate(); err != nil {
		t.Fatal(err)
	}
	for name, mod := range map[string]func(*BackfillParams){
		"capacity 0":      func(p *BackfillParams) { p.Capacity = exact.Int(0) },
		"min 0":           func(p *BackfillParams) { p.Min = 0 },
		"initial > max":   func(p *BackfillParams) { p.Initial = 1.5 },
		"decrease 0":      func(p *BackfillParams) { p.Decrease = 0 },
		"increase < 0":    func(p *BackfillParams) { p.Increase = -1 },
		"interval 0":      func(p *BackfillParams) { p.Interval = 0 },
		"same classes":    func(p *BackfillParams) { p.Class = p.Live },
		"negative target": func(p *BackfillParams) { p.Target = -1 },
	} {
		p := ok
		mod(&p)
		if err := p.Validate(); err == nil {
			t.Errorf("%s: nil error", name)
		}
	}
}
