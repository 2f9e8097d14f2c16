package buckets

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
)

// Instance is a small, exactly representable comparison: a one bucket, its
// split, arrivals in whole ticks, the sub-bucket each job is sent to (any
// job to any sub-bucket: the theorem allows every dispatch), and a service
// order. It can run on the exact model ([RunInstance] with [Tick]) or, with
// a tick length in seconds, on the float64 model, which is how a
// counterexample is replayed by ratesim run.
type Instance struct {
	One   ExactParams   // the one bucket
	Subs  []ExactParams // the k sub-buckets, same quantum as One
	Times []int64       // arrival instants in ticks, non-decreasing
	Sub   []int         // sub-bucket of each job, in [0, k)
	Order Order         // service order, in every bucket
	Seed  uint64        // seed of the random-order streams (stream 2 + bucket, as ratesim run)
}

// Jobs returns the number of jobs.
func (in Instance) Jobs() int { return len(in.Times) }

// Delays are the per-job delays of one run of an instance, in the model's
// unit (ticks for the exact model, seconds for the float64 one).
type Delays[T Number] struct {
	One, Split []T
}

type delayObserver[T Number] struct{ d *Delays[T] }

func (o delayObserver[T]) Arrived(Arrival[T], int) {}
func (o delayObserver[T]) Served(id int64, sub int, d T) {
	if sub == OneBucket {
		o.d.One[id] = d
	} else {
		o.d.Split[id] = d
	}
}

// RunInstance runs in on the model T and returns the comparison (its
// checker holds the event counts and violations) and the per-job delays.
// For T = [Tick] the run is exact and tick is ignored; for a float model
// the instance is converted with [Instance.Floats]. allowUnequal lifts the
// split checks (negative controls).
func RunInstance[T Number](in Instance, tick float64, allowUnequal bool) (*Comparison[T], Delays[T], error) {
	n := len(in.Times)
	if len(in.Sub) != n {
		return nil, Delays[T]{}, fmt.Errorf("buckets: instance has %d times and %d sub-buckets", n, len(in.Sub))
	}
	opt := func(b int) Option { return WithOrder(in.Order, rand.NewPCG(in.Seed, uint64(2+b))) }
	d := Delays[T]{One: make([]T, n), Split: make([]T, n)}
	var c *Comparison[T]
	var err error
	disp, err := NewDispatch[T]("column", nil, nil)
	if err != nil {
		return nil, d, err
	}
	times := make([]T, n)
	if isFloat[T]() {
		oneP, subsP, secs := in.Floats(tick)
		for i, x := range secs {
			times[i] = T(x)
		}
		build := func(p Params, b int) (*Bucket[T], error) {
			if err := p.Validate(); err != nil {
				return nil, err
			}
			// As NewTokenBucket does, in T.
			return newBucket(p, T(1/p.Rate), T(p.Burst), 1, T(p.Rate), []Option{opt(b)})
		}
		one, err := build(oneP, 0)
		if err != nil {
			return nil, d, err
		}
		subs := make([]*Bucket[T], len(subsP))
		for l, p := range subsP {
			if subs[l], err = build(p, 1+l); err != nil {
				return nil, d, err
			}
		}
		if c, err = newComparison(one, subs, disp, Observer[T](delayObserver[T]{&d}), allowUnequal); err != nil {
			return nil, d, err
		}
	} else {
		for i, x := range in.Times {
			times[i] = T(x)
		}
		one, err := NewExactBucket(in.One, opt(0))
		if err != nil {
			return nil, d, err
		}
		subs := make([]*Bucket[Tick], len(in.Subs))
		for l, s := range in.Subs {
			if subs[l], err = NewExactBucket(s, opt(1+l)); err != nil {
				return nil, d, err
			}
		}
		dd := any(&d).(*Delays[Tick])
		ec, err := NewExactComparison(one, subs, any(disp).(Dispatch[Tick]), delayObserver[Tick]{dd}, allowUnequal)
		if err != nil {
			return nil, d, err
		}
		c = any(ec).(*Comparison[T])
	}
	for i, at := range times {
		if err := c.Arrive(Arrival[T]{T: at, Sub: in.Sub[i]}); err != nil {
			return nil, d, fmt.Errorf("buckets: instance job %d: %w", i, err)
		}
	}
	c.Finish()
	return c, d, nil
}

// GenConfig bounds the instances [GenInstance] draws.
type GenConfig struct {
	MaxK    int     // sub-buckets k in [2, MaxK]
	MaxJobs int     // jobs in [1, MaxJobs]
	Orders  []Order // the order is drawn from these
	// InflateBurst and InflateRate break the theorem's hypotheses for
	// negative controls: the sub-buckets' bursts (rates) add up to more
	// than the one bucket's.
	InflateBurst, InflateRate bool
}

// GenInstance draws an instance with draw(lo, hi), which must return an
// integer in [lo, hi]. Smaller draws give smaller instances (fewer jobs, k
// closer to 2, shorter gaps), so a property-testing library that shrinks
// draws towards lo shrinks counterexamples. Arrivals mix ties, bursts and
// long idle gaps; rates are split in integer weights 1..4, bursts in whole
// quanta with quantum 1, 2 or 4 (so b_l can be 2.25 tokens).
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
	p := lcm * int64(draw(1, 3)) // period of the one bucket
	in := Instance{One: ExactParams{Quantum: q, Period: p}, Subs: make([]ExactParams, k)}
	var burst int64
	for l := range in.Subs {
		b := q + int64(draw(0, int(3*q)))
		in.Subs[l] = ExactParams{Quantum: q, Period: p * W / w[l], Burst: b}
		burst += b
	}
	in.One.Burst = burst
	if cfg.InflateBurst {
		in.One.Burst = max(q, burst-int64(draw(1, int(2*q))))
	}
	if cfg.InflateRate {
		l := draw(0, k-1)
		in.Subs[l].Period = max(1, in.Subs[l].Period/2) // sub-bucket l twice as fast
	}
	token := q * p // ticks per token of the one bucket
	t := int64(0)
	in.Times = make([]int64, n)
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
		in.Times[i] = t
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

// Floats returns the instance's parameters on the float64 model with the
// given tick length in seconds: the one bucket and the sub-buckets in
// tokens/s and tokens, and the arrival instants in seconds. Instants are
// float64(ticks)/(1/tick), one correctly rounded division, which for
// tick = 1e-3 is what the trace reader makes of the decimal ticks/1000.
func (in Instance) Floats(tick float64) (one Params, subs []Params, times []engine.Time) {
	perSecond := 1 / tick
	fp := func(e ExactParams) Params {
		return Params{Rate: perSecond / (float64(e.Quantum) * float64(e.Period)), Burst: float64(e.Burst) / float64(e.Quantum)}
	}
	one = fp(in.One)
	for _, s := range in.Subs {
		subs = append(subs, fp(s))
	}
	for _, t := range in.Times {
		times = append(times, engine.Time(float64(t)/perSecond))
	}
	return
}
