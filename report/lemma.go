package report

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// workPath is the unfinished work of the one G/D/1 queue and of the k
// sub-queues on a sample path, in tokens (r·U and r_l·U_l), at the
// instants where a slope changes, with the two integrals that make up
// their gap (see lemmaPath).
type workPath struct {
	T, One, Split, Gap []float64 // seconds; tokens
	Lost, Regained     []float64 // tokens
	// LostTime is the time with a sub-queue empty (a full sub-bucket)
	// while the one queue is not (the one bucket not full), seconds;
	// Span is the whole path's.
	LostTime, Span float64
	MinGap         float64 // smallest Σ r_l·U_l − r·U, tokens (Lemma 1: >= 0)
}

// lemmaPath follows r·U(t) and Σ r_l·U_l(t) by the Lindley recursion, in
// float64, for the arrival times ts (seconds) sent round-robin to k equal
// sub-queues of a bucket of rate r: each arrival adds one token's work, r·U
// drains at r while positive, r_l·U_l at r_l. The gap G = Σ r_l·U_l − r·U
// changes only by drift:
//
//	dG/dt = Σ_{l: U_l = 0} r_l · 1{U > 0}  −  Σ_{l: U_l > 0} r_l · 1{U = 0}
//
// so G(t) = Lost(t) − Regained(t): service lost while a sub-bucket is full
// and the one bucket is not, less service regained while the one bucket is
// full and some sub-bucket is not. This is an independent re-derivation for
// the figure; the exact check is systems.Check's.
func lemmaPath(ts []float64, r float64, k int) *workPath {
	rl := r / float64(k)
	u := 0.0                 // r·U, tokens
	ul := make([]float64, k) // r_l·U_l, tokens
	w := &workPath{MinGap: math.Inf(1)}
	lost, regained, now := 0.0, 0.0, 0.0
	record := func() {
		s := 0.0
		for _, x := range ul {
			s += x
		}
		w.T = append(w.T, now)
		w.One = append(w.One, u)
		w.Split = append(w.Split, s)
		w.Gap = append(w.Gap, s-u)
		w.Lost = append(w.Lost, lost)
		w.Regained = append(w.Regained, regained)
		w.MinGap = math.Min(w.MinGap, s-u)
	}
	// advance moves every queue to time t, recording at each instant a
	// queue empties.
	advance := func(t float64) {
		for now < t {
			// next instant a positive queue empties
			next := t
			if u > 0 {
				next = math.Min(next, now+u/r)
			}
			for _, x := range ul {
				if x > 0 {
					next = math.Min(next, now+x/rl)
				}
			}
			dt := next - now
			idle, busy := 0, 0
			for _, x := range ul {
				if x > 0 {
					busy++
				} else {
					idle++
				}
			}
			if u > 0 {
				lost += float64(idle) * rl * dt
				if idle > 0 {
					w.LostTime += dt
				}
			} else {
				regained += float64(busy) * rl * dt
			}
			// A queue whose emptying instant is reached is set to 0
			// exactly (no float residue to loop on).
			if u > 0 && now+u/r <= next {
				u = 0
			} else {
				u = math.Max(0, u-r*dt)
			}
			for l := range ul {
				if ul[l] > 0 && now+ul[l]/rl <= next {
					ul[l] = 0
				} else {
					ul[l] = math.Max(0, ul[l]-rl*dt)
				}
			}
			now = next
			record()
		}
	}
	for i, t := range ts {
		advance(t)
		u++
		ul[i%k]++
		record()
	}
	w.Span = now
	return w
}

func sectionLemma(ctx context.Context, d *doc) error {
	d.h(2, "3. Lemma 1 seen")
	p := d.sample
	n := 150
	arr, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Spec: "poisson", Load: p.load, Rate: p.one.Rate}, p.seed)
	if err != nil {
		return err
	}
	proc := arr.Process
	var ts []float64
	for int64(len(ts)) < p.jobs {
		a, err := proc.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		ts = append(ts, float64(a.T)/1e9)
	}
	r := p.one.Rate.Float64()
	all := lemmaPath(ts, r, p.k)
	win := lemmaPath(ts[:n], r, p.k)
	b := p.one.Burst.Float64()
	fig := &plots.Stack{
		Title:   fmt.Sprintf("Lemma 1: unfinished work in tokens, one bucket against its split (first %d jobs)", n),
		Caption: fmt.Sprintf("%s; k = %d, round-robin; the first %d of the %d jobs of section 2", p.input(), p.k, n, p.jobs),
		Heights: []float64{1.6, 1},
		Panels: []*plots.LinePlot{
			{XLabel: "time t (s)", YLabel: "work (tokens)", Lines: []plots.Line{
				{Label: "r·U(t), one bucket", X: win.T, Y: win.One, Color: 0},
				{Label: "Σ r_l·U_l(t), split", X: win.T, Y: win.Split, Color: 1, Dashed: true},
				{Label: fmt.Sprintf("b = %v tokens: above it jobs wait", b), X: []float64{0, win.Span}, Y: []float64{b, b}, Color: -1, Dashed: true},
			}},
			{XLabel: "time t (s)", YLabel: "tokens", Lines: []plots.Line{
				{Label: "gap Σ r_l·U_l − r·U", X: win.T, Y: win.Gap, Color: 2},
				{Label: "service lost: a sub-bucket full, the one not", X: win.T, Y: win.Lost, Color: 3, Dashed: true},
				{Label: "service regained: the one full, a sub-bucket not", X: win.T, Y: win.Regained, Color: 4, Dashed: true},
			}},
		},
	}
	d.p("Lemma 1: the unfinished work U(t) of the one G/D/1 queue never exceeds the sum of the sub-queues' (weighted by their rates when they differ: r·U(t) ≤ Σ r_l·U_l(t), in tokens). Each arrival adds one token of work to both sides, so the gap G(t) = Σ r_l·U_l(t) − r·U(t) moves only by drift: it grows at rate Σ r_l over the sub-queues that are empty while the one queue is not (a sub-bucket full, its tokens going to waste, while the one bucket is not full and the other sub-bucket has the work), and shrinks only while the one queue is empty and some sub-queue is not. G(t) is the service lost minus the service regained, and it starts at 0.")
	gap := fmt.Sprintf("the gap is never negative (smallest %.3g tokens over the %d jobs shown)", win.MinGap, n)
	if win.MinGap < 0 {
		gap = fmt.Sprintf("**the float64 recursion's gap goes below zero, to %.3g tokens** (the exact check is section 2's)", win.MinGap)
	}
	if err := d.figure("lemma1-work", fig, "Top: r·U(t) and Σ r_l·U_l(t) in tokens; jobs wait when the work passes b (grey dashed). Bottom: their gap, equal to the service lost (a sub-bucket full while the one bucket is not) less the service regained; "+gap+"."); err != nil {
		return err
	}
	d.p("Over the whole sample path (%d jobs, %.0f s) a sub-bucket is full while the one bucket is not during %.1f%% of the time; the service lost there, %.1f tokens, less the %.1f tokens regained, is the final gap of %.2f tokens. The smallest gap, %.3g tokens, is the float64 recursion's; the exact check of section 2 found %d Lemma 1 violations on the same arrivals.",
		len(ts), all.Span, 100*all.LostTime/all.Span, all.Lost[len(all.Lost)-1], all.Regained[len(all.Regained)-1], all.Gap[len(all.Gap)-1], all.MinGap, p.result.Check.LemmaViolations)
	d.cmd(fmt.Sprintf("ratesim paper --out %s   # this figure; the exact Lemma 1 check of the same arrivals: %s", d.out, p.command("")))
	return nil
}
