package drlstudy

import (
	"math"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// TestCaptionNamesParameters: two runs that differ in shaping/policing,
// the round trip, the outage or the sync period are captioned
// differently, each naming its value; a swept parameter is left to the
// axes.
func TestCaptionNamesParameters(t *testing.T) {
	base := drl.Spec{Bucket: buckets.Params{Rate: exact.Int(10), Burst: exact.Int(5)}, Nodes: 2, Dispatch: "rr", Seed: 1,
		Store: drl.StoreParams{RTT: drl.Delay{A: 2 * engine.Millisecond}, Outages: []drl.Interval{{From: 10 * engine.Second, To: 12 * engine.Second}}},
		Sync:  drl.SyncParams{Period: 100 * engine.Millisecond, Delay: drl.Delay{A: engine.Millisecond}},
	}
	designs := []string{"one", "store", "reconcile"}
	c := Caption(base, designs, "trace x")
	for _, want := range []string{"trace x", "R = 10 tokens/s, B = 5 tokens per key", "2 nodes", "shaping", "rr dispatch", "seed 1",
		"store: round trip 2ms", "store down [10s, 12s)", "failing open", "reconcile: sync period T = 100ms", "message delay 1ms", "loss 0"} {
		if !strings.Contains(c, want) {
			t.Errorf("caption %q lacks %q", c, want)
		}
	}
	police := base
	police.Police = true
	if pc := Caption(police, designs, "trace x"); !strings.Contains(pc, "policing") || pc == c {
		t.Errorf("policing caption %q", pc)
	}
	if sc := Caption(base, designs, "trace x", "sync-period"); strings.Contains(sc, "sync period") {
		t.Errorf("swept sync period still in the caption: %q", sc)
	}
	// A design that does not run adds nothing.
	if oc := Caption(base, []string{"one"}, "trace x"); strings.Contains(oc, "round trip") || strings.Contains(oc, "sync period") {
		t.Errorf("caption of one names another design's parameters: %q", oc)
	}
}

// TestFiguresDegenerateAndMarks: every admitted job waits exactly 1 ms
// (the round trip): the delay CCDF is one stated mark at (1 ms, 1), not
// a curve; the store's outage is shaded on the rate figure.
func TestFiguresDegenerateAndMarks(t *testing.T) {
	s := drl.Spec{Bucket: buckets.Params{Rate: exact.Int(10), Burst: exact.Int(5)}, Nodes: 2, Dispatch: "rr",
		Store: drl.StoreParams{Outages: []drl.Interval{{From: 1 * engine.Second, To: 2 * engine.Second}}},
	}
	r := &drl.Result{Design: "store", Jobs: 3, Admitted: 3, Delays: []float64{0.001, 0.001, 0.001},
		Departures: map[uint64][]engine.Time{0: {engine.Millisecond, 2 * engine.Second, 3 * engine.Second}}, First: 0, Last: 3 * engine.Second}
	figs := Figures(s, []*drl.Result{r}, []drl.Summary{{Keys: 1}}, "c")
	ccdf := figs[1].Figure.(*plots.LinePlot)
	if len(ccdf.Lines) != 1 || !ccdf.Lines[0].Marks || ccdf.Lines[0].X[0] != 0.001 || ccdf.Lines[0].Y[0] != 1 || !strings.Contains(ccdf.Lines[0].Label, "every delayed job waits 1 ms") {
		t.Errorf("CCDF of a single delay: %+v", ccdf.Lines)
	}
	rate := figs[0].Figure.(*plots.LinePlot)
	found := false
	for _, l := range rate.Lines {
		if l.Label == "store down (outage)" {
			found = l.X[0] == 1 && l.X[1] == 2 && l.Lo != nil
		}
	}
	if !found {
		t.Errorf("no shaded outage [1, 2) s on the rate figure: %+v", rate.Lines)
	}
}

// TestSweepBandsClipped: the one design's overshoot band stops at the
// promise, 1, and a mean delay's band at 0, however wide the interval.
func TestSweepBandsClipped(t *testing.T) {
	cols := append([]string{"point", "design", "sync_period_s"}, Metrics...)
	tb := &experiments.Table{Columns: append(cols, "worst_overshoot_ci95", "mean_delay_s_ci95")}
	for _, d := range []string{"one", "reconcile"} {
		for _, x := range []float64{0.1, 1} {
			row := []any{x, d, x}
			for _, m := range tb.Columns[3:] {
				v := 0.5
				switch m {
				case "worst_overshoot":
					v = 1
					if d == "reconcile" {
						v = 1.5
					}
				case "worst_overshoot_ci95", "mean_delay_s_ci95":
					v = 0.8
				}
				row = append(row, v)
			}
			tb.Rows = append(tb.Rows, row)
		}
	}
	bands := 0
	defer func() {
		if bands != 8 { // 2 designs × 2 points × 2 figures
			t.Errorf("%d band points, want 8", bands)
		}
	}()
	for _, f := range SweepFigures(tb, "c") {
		lp := f.Figure.(*plots.LinePlot)
		for _, l := range lp.Lines {
			for i := range l.Lo {
				bands++
				if l.Lo[i] < 0 {
					t.Errorf("%s %s: band below 0 (%v)", f.Name, l.Label, l.Lo[i])
				}
				if strings.HasPrefix(f.Name, "drl-sweep-overshoot") && l.Label == "one" && l.Hi[i] > 1 {
					t.Errorf("one's overshoot band reaches %v > 1", l.Hi[i])
				}
				if strings.HasPrefix(f.Name, "drl-sweep-overshoot") && l.Label == "reconcile" && l.Hi[i] != 2.3 && math.Abs(l.Hi[i]-2.3) > 1e-12 {
					t.Errorf("reconcile's band end %v, want 1.5 + 0.8 (not clipped)", l.Hi[i])
				}
			}
		}
	}
}
