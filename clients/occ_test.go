package clients

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var occTable = flag.Bool("occ", false, "run Brooker's full study (19 x 5 points, 100 runs each) and print the table")

// With no network variance the OCC runs can be followed by hand. Delays
// are 10 ms each way.
//
// One client: read reaches the store at 10 ms, its answer the client at
// 20, the write the store at 30, its answer at 40: 1 call, done at 40 ms.
//
// Two clients: both read version 0 at 10 ms and write at 30 ms; client 0's
// write, scheduled first, runs first and succeeds, client 1's fails. Its
// answer arrives at 40 ms; with no backoff it reads again at 40 + 10 = 50,
// writes at 70 (succeeds), and hears at 80 ms: 3 calls. With exponential
// backoff (base 5 ms) the first retry sleeps 5·2^1 = 10 ms: read at
// 40 + 10 + 10 = 60, write at 80, answer at 90 ms.
func TestRunOCCByHand(t *testing.T) {
	src := func(client int) rand.Source { return rand.NewPCG(1, uint64(client)) }
	exp := Exponential{Base: ms(5), Cap: ms(2000)}
	for _, tt := range []struct {
		n    int
		b    Backoff
		want OCCRun
	}{
		{1, NoBackoff{}, OCCRun{Calls: 1, End: ms(40)}},
		{2, NoBackoff{}, OCCRun{Calls: 3, End: ms(80)}},
		{2, exp, OCCRun{Calls: 3, End: ms(90)}},
	} {
		if got := RunOCC(tt.n, tt.b, 0.010, 0, src); got != tt.want {
			t.Errorf("%d clients, %T: %+v, want %+v", tt.n, tt.b, got, tt.want)
		}
	}
}

// At N = 50 (Brooker's set-up, 30 runs, seed 11) the orderings the blog
// reports: no backoff does the most work and finishes soonest;
// exponential backoff without jitter does less work than none but takes
// by far the longest; full and equal jitter do the least work;
// decorrelated does more work than full jitter but takes less time;
// equal jitter takes longer than full jitter.
func TestOCCOrderingAt50(t *testing.T) {
	p := DefaultOCC()
	p.Clients = []int{50}
	p.Runs = 30
	pts, err := OCCStudy(p)
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]OCCPoint{}
	for _, pt := range pts {
		by[pt.Strategy] = pt
		t.Logf("%-12s calls %7.1f ± %5.1f  time %8.1f ± %6.1f ms", pt.Strategy, pt.Calls, pt.CallsCI, pt.TimeMs, pt.TimeCI)
	}
	none, exp, full, equal, dec := by["none"], by["exponential"], by["full"], by["equal"], by["decorrelated"]
	check := func(ok bool, what string) {
		if !ok {
			t.Errorf("want %s", what)
		}
	}
	check(none.Calls > exp.Calls, "calls(none) > calls(exponential)")
	check(exp.Calls > dec.Calls && dec.Calls > max(full.Calls, equal.Calls), "calls(exponential) > calls(decorrelated) > calls(full), calls(equal)")
	for _, s := range []OCCPoint{none, full, equal, dec} {
		check(exp.TimeMs > 2*s.TimeMs, "time(exponential) more than twice time("+s.Strategy+")")
		if s.Strategy != "none" {
			check(none.TimeMs < s.TimeMs, "time(none) < time("+s.Strategy+")")
		}
	}
	check(equal.TimeMs > full.TimeMs && full.TimeMs > dec.TimeMs, "time(equal) > time(full) > time(decorrelated)")
}

// "In the case with 100 contending clients, we've reduced our call count
// by more than half" (the blog, full jitter against exponential backoff
// without jitter). At N = 50 the cut is a little under half; at 100 it is
// over (30 runs, seed 11).
func TestOCCHalfTheCallsAt100(t *testing.T) {
	p := DefaultOCC()
	p.Clients = []int{100}
	p.Strategies = []string{"exponential", "full"}
	p.Runs = 30
	pts, err := OCCStudy(p)
	if err != nil {
		t.Fatal(err)
	}
	exp, full := pts[0], pts[1]
	t.Logf("calls: exponential %.1f ± %.1f, full jitter %.1f ± %.1f", exp.Calls, exp.CallsCI, full.Calls, full.CallsCI)
	if full.Calls+full.CallsCI >= (exp.Calls-exp.CallsCI)/2 {
		t.Errorf("full jitter %.1f calls, exponential %.1f: want under half, confidence intervals apart", full.Calls, exp.Calls)
	}
}

// Results depend on the seed only: not on the number of workers, nor on
// which other points are swept with a point.
func TestOCCDeterministic(t *testing.T) {
	p := DefaultOCC()
	p.Clients = []int{10, 20}
	p.Runs = 6
	var results [][]OCCPoint
	for _, w := range []int{1, 3, 8} {
		p.Workers = w
		pts, err := OCCStudy(p)
		if err != nil {
			t.Fatal(err)
		}
		results = append(results, pts)
	}
	for i := 1; i < len(results); i++ {
		if diff := cmp.Diff(results[0], results[i]); diff != "" {
			t.Errorf("workers 1 and %d differ:\n%s", []int{1, 3, 8}[i], diff)
		}
	}
	// The point (full, 20) alone equals the same point in the sweep.
	q := p
	q.Strategies, q.Clients = []string{"full"}, []int{20}
	alone, err := OCCStudy(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, pt := range results[0] {
		if pt.Strategy == "full" && pt.Clients == 20 {
			if diff := cmp.Diff(pt, alone[0]); diff != "" {
				t.Errorf("point alone differs from the point in the sweep:\n%s", diff)
			}
		}
	}
	// Another seed gives other numbers.
	p.Seed++
	other, _ := OCCStudy(p)
	if cmp.Equal(results[0], other) {
		t.Errorf("seeds %d and %d gave the same results", p.Seed-1, p.Seed)
	}
}

func TestOCCValidate(t *testing.T) {
	for name, mod := range map[string]func(*OCCParams){
		"no clients":      func(p *OCCParams) { p.Clients = nil },
		"zero clients":    func(p *OCCParams) { p.Clients = []int{0} },
		"bad strategy":    func(p *OCCParams) { p.Strategies = []string{"linear"} },
		"one run":         func(p *OCCParams) { p.Runs = 1 },
		"negative sd":     func(p *OCCParams) { p.NetSD = -1 },
		"cap under base":  func(p *OCCParams) { p.Cap = p.Base - 1 },
		"no strategies":   func(p *OCCParams) { p.Strategies = nil },
		"too many client": func(p *OCCParams) { p.Clients = []int{1<<20 + 1} },
	} {
		p := DefaultOCC()
		mod(&p)
		if _, err := OCCStudy(p); err == nil {
			t.Errorf("%s: nil error", name)
		}
	}
}

// TestPrintOCC prints Brooker's full study (go test -run PrintOCC -occ).
func TestPrintOCC(t *testing.T) {
	if !*occTable {
		t.Skip("run with -occ")
	}
	pts, err := OCCStudy(DefaultOCC())
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println("strategy      clients     calls (95% CI)          time ms (95% CI)")
	for _, p := range pts {
		fmt.Printf("%-13s %4d  %9.1f ± %6.1f  %10.1f ± %7.1f\n", p.Strategy, p.Clients, p.Calls, p.CallsCI, p.TimeMs, p.TimeCI)
	}
}
