package splitstudy

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
)

// TestSweepSamePointRunsOnce: grids load [0.5, 0.9] and [0.9, 0.95] list
// load 0.9 twice; the union has 4 listings of 3 points. With 2
// replications the sweep runs 3 · 2 = 6 replications (the progress total
// counts them), and the second listing (point 2) has the first's (point
// 1) statistics under its own index and grid (compared as text: PK is NaN).
func TestSweepSamePointRunsOnce(t *testing.T) {
	spec, err := ParseSpec(strings.NewReader("replications: 2\njobs: 500\nwarmup: 50\nsweep:\n  - load: [0.5, 0.9]\n  - load: [0.9, 0.95]\n"), "two.yaml")
	if err != nil {
		t.Fatal(err)
	}
	total := 0
	res, err := RunSweep(context.Background(), spec, experiments.SweepOptions{Workers: 2, Progress: func(p experiments.SweepProgress) { total = p.ReplicationsTotal }}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if total != 6 || len(res.Points) != 4 {
		t.Fatalf("%d replications run, %d points; want 6 and 4", total, len(res.Points))
	}
	a, b := res.Points[1], res.Points[2]
	if b.Index != 2 || b.Grid != 1 || a.Grid != 0 || fmt.Sprint(a.One, a.Split, a.Ratio) != fmt.Sprint(b.One, b.Split, b.Ratio) {
		t.Errorf("point 2 (grid %d) = %+v, want point 1's statistics %+v", b.Grid, b, a)
	}
}
