package drl

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/tailsketch"
)

// TestDelaysSketched: a run without its departures keeps at most
// tailsketch.ExactValues delays (lowered to 64 here) and sketches the
// rest; its summary has the exact total, mean and maximum of the same run
// with every delay kept (KeepDepartures), a P99 within the sketch's 1%
// relative accuracy of the exact nearest rank, and says so (P99Method).
func TestDelaysSketched(t *testing.T) {
	defer func(n int) { tailsketch.ExactValues = n }(tailsketch.ExactValues)
	tailsketch.ExactValues = 64
	run := func(keep bool) (*Result, Summary) {
		p, _ := arrivals.NewPoisson(900, rand.NewPCG(1, 1))
		s := Spec{Design: "store", Bucket: params("1000", "160"), Nodes: 4, Dispatch: "rr", Seed: 1, Police: true, KeepDepartures: keep,
			Store: StoreParams{RTT: Delay{Kind: "uniform", A: engine.Millisecond, B: 20 * engine.Millisecond}},
		}
		r, err := Run(context.Background(), s, p, 5000)
		if err != nil {
			t.Fatal(err)
		}
		sum, err := Summarize(r, s.Bucket, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		return r, sum
	}
	kr, kept := run(true)
	sr, sk := run(false)
	if len(kr.Delays) < 1000 || sr.Delays != nil || sr.delaySk == nil || sr.delaySk.Len() != int64(len(kr.Delays)) {
		t.Fatalf("kept %d delays; streamed %d exact and a sketch %v, want every delay kept, then none and a sketch of all", len(kr.Delays), len(sr.Delays), sr.delaySk)
	}
	if kept.P99Method != "" || sk.P99Method != tailsketch.Method {
		t.Errorf("P99 methods %q and %q, want \"\" and %q", kept.P99Method, sk.P99Method, tailsketch.Method)
	}
	if sk.Total != kept.Total || sk.Mean != kept.Mean || sk.Max != kept.Max {
		t.Errorf("sketched total %v mean %v max %v, kept %v %v %v: want equal", sk.Total, sk.Mean, sk.Max, kept.Total, kept.Mean, kept.Max)
	}
	if math.Abs(sk.P99-kept.P99) > 0.01*kept.P99 || kept.P99 <= 0 {
		t.Errorf("sketched P99 %v, exact %v: want within 1%%", sk.P99, kept.P99)
	}
}
