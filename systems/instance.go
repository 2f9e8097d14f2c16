package systems

import (
	"context"
	"fmt"
	"io"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Instance is a small comparison instance: a one bucket, its split,
// arrival instants, the sub-bucket each job is sent to (any job to any
// sub-bucket: the theorem allows every dispatch), and a service order. It
// is what `ratesim verify` draws, runs exactly and, when it finds a
// counterexample, writes as a trace that `ratesim run` replays exactly.
type Instance struct {
	One   buckets.Params   // the one bucket
	Subs  []buckets.Params // the k sub-buckets
	Times []engine.Time    // arrival instants, non-decreasing
	Sub   []int            // sub-bucket of each job, in [0, k)
	Order buckets.Order    // service order, in every bucket
	Seed  uint64           // seed of the random-order streams (as ratesim run)
}

// Jobs returns the number of jobs.
func (in Instance) Jobs() int { return len(in.Times) }

// Delays are the exact per-job waits (ns) of one run of an instance, in
// job order.
type Delays struct {
	One, Split []exact.Rat
}

// RunInstance runs in on the fast path with column dispatch and returns
// the per-job waits and the check's result. allowUnequal lifts the split
// checks (negative controls).
func RunInstance(in Instance, allowUnequal bool) (Delays, Result, error) {
	n := len(in.Times)
	if len(in.Sub) != n {
		return Delays{}, Result{}, fmt.Errorf("systems: instance has %d times and %d sub-buckets", n, len(in.Sub))
	}
	p, err := NewSplit(SplitSpec{One: in.One, Subs: in.Subs, AllowUnequal: allowUnequal, Dispatch: "column", Order: in.Order, Seed: in.Seed})
	if err != nil {
		return Delays{}, Result{}, err
	}
	rec := &delayRecorder{d: Delays{One: make([]exact.Rat, n), Split: make([]exact.Rat, n)}}
	if _, err := Run(context.Background(), p, &instanceSource{in: in}, 0, rec); err != nil {
		return Delays{}, Result{}, err
	}
	return rec.d, p.Check().Result(), nil
}

type instanceSource struct {
	in Instance
	i  int
}

func (s *instanceSource) Next() (Job, error) {
	if s.i == len(s.in.Times) {
		return Job{}, io.EOF
	}
	j := Job{T: s.in.Times[s.i], Sub: s.in.Sub[s.i]}
	s.i++
	return j, nil
}

// delayRecorder keeps every job's exact wait in each system.
type delayRecorder struct{ d Delays }

func (r *delayRecorder) Decided(j Job, side, _ int, d buckets.Decision) error {
	if d.Verdict == buckets.Queue {
		return nil
	}
	if side == 0 {
		r.d.One[j.ID] = d.Wait
	} else {
		r.d.Split[j.ID] = d.Wait
	}
	return nil
}

func (r *delayRecorder) Released(side, _ int, _ engine.Time, rel buckets.Released) error {
	if side == 0 {
		r.d.One[rel.ID] = rel.Wait
	} else {
		r.d.Split[rel.ID] = rel.Wait
	}
	return nil
}

// GenConfig bounds the instances [GenInstance] draws.
type GenConfig struct {
	MaxK    int             // sub-buckets k in [2, MaxK]
	MaxJobs int             // jobs in [1, MaxJobs]
	Orders  []buckets.Order // the order is drawn from these
	// InflateBurst and InflateRate break the theorem's hypotheses for
	// negative controls: the sub-buckets' bursts (rates) add up to more
	// than the one bucket's.
	InflateBurst, InflateRate bool
}

// GenInstance draws an instance with draw(lo, hi), which must return an
// integer in [lo, hi]. Smaller draws give smaller instances (fewer jobs, k
// closer to 2, shorter gaps), so a property-testing library that shrinks
// draws towards lo shrinks counterexamples. Instants are whole
// milliseconds and mix ties, bursts and long idle gaps; the one bucket's
// token time is q·p ms (q in {1, 2, 4} quanta per token, p a period), its
// rate split among the sub-buckets in integer weights 1..4, so rates such
// as 1000/3 or 125/7 tokens/s occur, and bursts are whole quanta (b_l can
// be 2.25 tokens).
func GenInstance(draw func(lo, hi int) int, cfg GenConfig) Instance {
	k := draw(2, max(2, cfg.MaxK))
	n := draw(1, max(1, cfg.MaxJobs))
	q := []int64{1, 2, 4}[draw(0, 2)]
	w := make([]int64, k)
	lcm, W := int64(1), int64(0)
	for l := range w {
		w[l] = int64(draw(1, 4))
		W += w[l]
		lcm = lcm / gcd(lcm, w[l]) * w[l]
	}
	p := lcm * int64(draw(1, 3)) // ms per quantum of the one bucket
	token := q * p               // ms per token of the one bucket
	in := Instance{Subs: make([]buckets.Params, k)}
	rate := exact.NewRat(1000, token) // tokens/s
	var burst int64
	for l := range in.Subs {
		b := q + int64(draw(0, int(3*q)))
		r, _ := rate.Mul(exact.NewRat(w[l], W))
		if cfg.InflateRate && l == 0 {
			r, _ = r.Mul(exact.Int(2)) // sub-bucket 0 twice as fast
		}
		in.Subs[l] = buckets.Params{Rate: r, Burst: exact.NewRat(b, q)}
		burst += b
	}
	if cfg.InflateBurst {
		burst = max(q, burst-int64(draw(1, int(2*q))))
	}
	in.One = buckets.Params{Rate: rate, Burst: exact.NewRat(burst, q)}
	t := int64(0)
	in.Times = make([]engine.Time, n)
	in.Sub = make([]int, n)
	for i := range in.Times {
		switch draw(0, 3) {
		case 0: // a tie
		case 1: // a burst: within half a token time
			t += int64(draw(1, int(token/2+1)))
		case 2:
			t += int64(draw(1, int(2*token)))
		case 3: // an idle gap
			t += int64(draw(1, int(20*token)))
		}
		in.Times[i] = engine.Time(t) * engine.Millisecond
		in.Sub[i] = draw(0, k-1)
	}
	if len(cfg.Orders) > 0 {
		in.Order = cfg.Orders[draw(0, len(cfg.Orders)-1)]
	}
	in.Seed = uint64(draw(0, 1<<30))
	return in
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
