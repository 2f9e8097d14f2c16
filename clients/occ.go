package clients

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/internal/crash"
	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// OCCParams describes the contention study of Marc Brooker, [Exponential
// Backoff And Jitter] (AWS Architecture Blog, 2015): N clients each update one row of an
// optimistic-concurrency store once. A client reads the row's version,
// then writes with that version; the write succeeds only if the version is
// unchanged (and bumps it), otherwise the client backs off (attempt
// n = 1, 2, ...) and reads again. Every message takes |Normal(NetMean,
// NetSD)| one way, and a client's backoff is added to the delay of the
// read it sends after a failed write, as in Brooker's simulator
// (github.com/aws-samples/aws-arch-backoff-simulator). 'Calls' counts
// writes; 'time' is the instant the last message is handled.
//
// [Exponential Backoff And Jitter]: https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/
type OCCParams struct {
	// Clients are the values of N, each >= 1.
	Clients []int
	// Strategies are backoff names (see [NewBackoff]); Brooker's are
	// none, exponential, full, equal and decorrelated.
	Strategies []string
	// Runs is the number of replications per point, >= 2 (for a
	// confidence interval).
	Runs int
	// Base and Cap parameterize every strategy, ns.
	Base, Cap engine.Time
	// NetMean and NetSD are the one-way delay's normal mean and standard
	// deviation, seconds (the delay is the absolute value of the draw).
	NetMean, NetSD float64
	// Seed is the study's seed (see [OCCStream]).
	Seed uint64
	// Workers is the number of goroutines running replications; <= 0
	// means runtime.GOMAXPROCS(0). Results do not depend on it.
	Workers int
}

// DefaultOCC returns Brooker's set-up with N = 10, 20, ..., 190: base 5
// ms, cap 2000 ms, one-way delay |Normal(10 ms, 2 ms)|, 100 runs per point,
// seed 11.
func DefaultOCC() OCCParams {
	var ns []int
	for n := 10; n <= 190; n += 10 {
		ns = append(ns, n)
	}
	return OCCParams{
		Clients:    ns,
		Strategies: []string{"none", "exponential", "full", "equal", "decorrelated"},
		Runs:       100,
		Base:       5 * engine.Millisecond,
		Cap:        2000 * engine.Millisecond,
		NetMean:    0.010,
		NetSD:      0.002,
		Seed:       11,
	}
}

// Validate returns an error naming the first invalid field, or nil.
func (p OCCParams) Validate() error {
	if len(p.Clients) == 0 {
		return fmt.Errorf("clients: OCC study without client counts")
	}
	for _, n := range p.Clients {
		if n < 1 || n > 1<<20 {
			return fmt.Errorf("clients: OCC study with %d clients, want 1 to 2^20", n)
		}
	}
	if len(p.Strategies) == 0 {
		return fmt.Errorf("clients: OCC study without strategies")
	}
	for _, s := range p.Strategies {
		if _, err := NewBackoff(s, p.Base, p.Cap); err != nil {
			return err
		}
	}
	if p.Runs < 2 {
		return fmt.Errorf("clients: OCC study with %d runs per point, want >= 2", p.Runs)
	}
	if !(p.NetMean >= 0) || !(p.NetSD >= 0) || math.IsInf(p.NetMean, 0) || math.IsInf(p.NetSD, 0) {
		return fmt.Errorf("clients: OCC network delay Normal(%v s, %v s), want finite and >= 0", p.NetMean, p.NetSD)
	}
	return nil
}

// OCCPoint is the result of one (strategy, clients) point: the mean of the
// runs and the half-width of its two-sided 95% confidence interval
// (Student t on the independent runs), for calls and for time.
type OCCPoint struct {
	Strategy        string
	Clients         int
	Runs            int
	Calls, CallsCI  float64 // writes per run
	TimeMs, TimeCI  float64 // completion time, ms
	MinTimeMs       float64 // fastest run, ms
	MaxCalls        float64 // most writes in one run
	CallsPerClient  float64 // Calls / Clients
	TimeMsPerClient float64 // TimeMs / Clients
}

// OCCRun is one replication's outcome.
type OCCRun struct {
	Calls int64       // writes handled by the store
	End   engine.Time // instant the last message was handled, ns
}

// OCCStream returns the random source of one client in one run of the
// study: [Stream](seed, point, replication, client), where point is
// OCCPointKey(strategy, clients). Each client draws its own messages'
// delays (both ways) and its backoffs from it, so that a run does not
// depend on which points are swept with it or how many workers run them.
func OCCStream(seed uint64, strategy string, clients, replication, client int) *rand.PCG {
	return Stream(seed, OCCPointKey(strategy, clients), uint64(replication), uint64(client))
}

// OCCPointKey identifies a point of the study by its strategy's index in
// [BackoffNames] and its number of clients: clients·256 + index.
func OCCPointKey(strategy string, clients int) uint64 {
	i := slices.Index(BackoffNames(), strategy)
	if i < 0 {
		panic("clients: OCCPointKey of unknown strategy " + strategy)
	}
	return uint64(clients)<<8 | uint64(i)
}

// OCCStudy runs every (strategy, clients) point of p, Runs times each, in
// parallel over p.Workers goroutines, and returns the points in the order
// strategies × clients. Results are identical for any number of workers.
func OCCStudy(p OCCParams) ([]OCCPoint, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	type job struct{ point, rep int }
	npts := len(p.Strategies) * len(p.Clients)
	runs := make([][]OCCRun, npts)
	for i := range runs {
		runs[i] = make([]OCCRun, p.Runs)
	}
	workers := p.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	total := int64(npts * p.Runs)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make([]error, min(int64(workers), total))
	for w := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer crash.Recover(&errs[w]) // a bug is an error, not a dead process
			for {
				k := next.Add(1) - 1
				if k >= total {
					return
				}
				pt, rep := int(k)/p.Runs, int(k)%p.Runs
				strategy := p.Strategies[pt/len(p.Clients)]
				n := p.Clients[pt%len(p.Clients)]
				b, _ := NewBackoff(strategy, p.Base, p.Cap) // validated
				runs[pt][rep] = RunOCC(n, b, p.NetMean, p.NetSD, func(client int) rand.Source {
					return OCCStream(p.Seed, strategy, n, rep, client)
				})
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}

	out := make([]OCCPoint, 0, npts)
	for pt := range npts {
		calls := make([]float64, p.Runs)
		times := make([]float64, p.Runs)
		for i, r := range runs[pt] {
			calls[i] = float64(r.Calls)
			times[i] = r.End.Seconds() * 1e3
		}
		o := OCCPoint{Strategy: p.Strategies[pt/len(p.Clients)], Clients: p.Clients[pt%len(p.Clients)], Runs: p.Runs}
		o.Calls, o.CallsCI = meanCI(calls)
		o.TimeMs, o.TimeCI = meanCI(times)
		o.MinTimeMs = slices.Min(times)
		o.MaxCalls = slices.Max(calls)
		o.CallsPerClient = o.Calls / float64(o.Clients)
		o.TimeMsPerClient = o.TimeMs / float64(o.Clients)
		out = append(out, o)
	}
	return out, nil
}

// meanCI returns the mean of xs (len >= 2) and the half-width of its
// two-sided 95% confidence interval, t_{0.975, n-1}·s/√n.
func meanCI(xs []float64) (mean, half float64) {
	m, v := stat.MeanVariance(xs, nil)
	t := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975)
	return m, t * math.Sqrt(v/float64(len(xs)))
}

// RunOCC runs one replication of the OCC study with n clients backing off
// by b, one-way delays |Normal(netMean, netSD)| seconds, and client i
// drawing from src(i). It returns the number of writes and the instant
// the last message was handled.
func RunOCC(n int, b Backoff, netMean, netSD float64, src func(client int) rand.Source) OCCRun {
	o := &occ{b: b, mean: netMean, sd: netSD, clients: make([]occClient, n)}
	s := engine.NewSim()
	for i := range o.clients {
		o.clients[i].rng = rand.New(src(i))
	}
	// Every client sends its first read at 0.
	for i := range o.clients {
		s.Schedule(o.delay(i), o, i*occKinds+occRead)
	}
	s.Run()
	return OCCRun{Calls: o.calls, End: s.Now()}
}

// occ is the store and its clients, as one event handler.
type occ struct {
	b        Backoff
	mean, sd float64
	version  int64
	calls    int64
	clients  []occClient
}

type occClient struct {
	rng      *rand.Rand
	read     int64       // version read
	ok       bool        // outcome of the last write
	attempts int         // failed writes so far
	prev     engine.Time // previous sleep
}

// Message kinds: what happens when the message arrives.
const (
	occRead     = iota // a read reaches the store
	occReadRsp         // its answer reaches the client
	occWrite           // a write reaches the store
	occWriteRsp        // its answer reaches the client
	occKinds
)

// delay draws a one-way delay for client i's message: |Normal(mean, sd)|
// seconds, converted to ns once.
func (o *occ) delay(i int) engine.Time {
	x := math.Abs(o.mean + o.sd*o.clients[i].rng.NormFloat64())
	d, _ := engine.FromSeconds(x)
	return d
}

func (o *occ) Handle(s *engine.Sim, now engine.Time, arg int) {
	i := arg / occKinds
	c := &o.clients[i]
	switch arg % occKinds {
	case occRead:
		c.read = o.version
		s.Schedule(now+o.delay(i), o, i*occKinds+occReadRsp)
	case occReadRsp:
		s.Schedule(now+o.delay(i), o, i*occKinds+occWrite)
	case occWrite:
		o.calls++
		c.ok = c.read == o.version
		if c.ok {
			o.version++
		}
		s.Schedule(now+o.delay(i), o, i*occKinds+occWriteRsp)
	case occWriteRsp:
		if c.ok {
			return
		}
		c.attempts++
		d := o.delay(i)
		sleep := o.b.Sleep(Failure{N: c.attempts, Prev: c.prev}, c.rng)
		c.prev = sleep
		s.Schedule(now+d+sleep, o, i*occKinds+occRead)
	}
}
