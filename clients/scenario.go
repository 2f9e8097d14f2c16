package clients

import (
	"context"
	"fmt"
	"iter"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// Components of a [Scenario], the last argument of [Stream].
const (
	StreamForeground uint64 = 1 // the foreground clients' backoff or pacing jitter
	StreamBackfill   uint64 = 2 // the backfill's pacing jitter
	StreamThink      uint64 = 3 // for a caller's think-time distribution
	StreamLimiter    uint64 = 4 // for a caller's random limiter (a throttle)
	StreamArrivals   uint64 = 5 // for a caller's arrival process
)

// Stream returns the random source of one component of one run:
//
//	rand.NewPCG(seed, mix(point, replication, component))
//
// where mix is a chain of SplitMix64 finalizers (S. Vigna, "Further
// scramblings of Marsaglia's xorshift generators", 2017; the splitmix64
// of java.util.SplittableRandom), so that every (point, replication,
// component) has its own stream of the run's seed, whatever order or
// number of workers the runs are made with.
func Stream(seed, point, replication, component uint64) *rand.PCG {
	return rand.NewPCG(seed, mix(mix(mix(point)^replication)^component))
}

// mix is the SplitMix64 output function.
func mix(z uint64) uint64 {
	z += 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// Scenario is one run of client populations against a limiter: foreground requests (open loop, closed loop or
// both), retried by a policy or paced in front of the limiter; optionally
// a downstream server fed by everything that passes, and an adaptive
// backfill sharing the limiter.
type Scenario struct {
	// Arrivals, if not nil, is the open-loop foreground stream of request
	// instants (non-decreasing, >= 0).
	Arrivals iter.Seq[engine.Time]
	// Users > 0 adds closed-loop foreground users, each thinking Think
	// seconds (nil: no think time) between a request's end and the next,
	// starting requests until Horizon (ns).
	Users   int
	Think   Rander
	Horizon engine.Time
	// Retry is how the foreground retries (its Class is the live class).
	Retry RetryPolicy
	// Pace, if not nil, paces the open-loop foreground in front of the
	// limiter instead (then Retry's backoff is not used; closed-loop
	// users still retry by it).
	Pace *PaceParams
	// Server, if not nil, is the downstream every passing job goes to;
	// a request then succeeds when it is served there, and one the
	// server's full buffer loses is retried (see [Gate.Serve]).
	Server *ServerParams
	// Backfill, if not nil, is an adaptive backfill of BackfillItems
	// requests started at 0; it needs Server.
	Backfill      *BackfillParams
	BackfillItems int64
	// Bin is the width of the series bins in ns (0 for none).
	Bin engine.Time
	// Seed, Point and Replication name the run's random streams (see
	// [Stream]).
	Seed, Point, Replication uint64
	// Until, if > 0, stops the run after the events at or before it;
	// otherwise the run goes on until no event is pending.
	Until engine.Time
}

// Result is what a [Scenario] measured.
type Result struct {
	Foreground       Summary
	ForegroundSeries []Bin
	// ForegroundLatencies holds the latency of every foreground success,
	// seconds, in the order the requests succeeded (see [Stats.Latencies]).
	ForegroundLatencies []float64
	// Backfill is the backfill's summary, with its series and control
	// decisions; zero without a backfill.
	Backfill       Summary
	BackfillSeries []Bin
	Controls       []Control
	// Server holds the downstream counts per class (index = class), after
	// every job has been served; nil without a server. With a server and
	// a series, each bin of ForegroundSeries and BackfillSeries holds the
	// server's series (see [Bin]), the series then reaching the server's
	// last event.
	Server []ServerStats
	// End is the instant of the last event run, ns, or of the downstream
	// server's last departure when later (rounded up to the nanosecond).
	End engine.Time
}

// Run runs sc against l, which must be fresh (no job offered yet), and
// returns what it measured, or an error if sc is invalid, or an
// [*ErrTooManyBins] if the run's span needs more than [MaxBins] bins of
// sc.Bin (found when the run ends).
func Run(sc Scenario, l buckets.Limiter) (Result, error) { return RunRemote(sc, FromLimiter(l)) }

// RunRemote is [Run] against a [Remote] limiter, which must be fresh: one
// whose answers may come late (a distributed design whose nodes ask a
// store). A request's latency then includes the wait for the answer, and
// a late refusal is backed off from the instant the client learns it.
func RunRemote(sc Scenario, l Remote) (Result, error) {
	return RunRemoteContext(context.Background(), sc, l)
}

// checkEvery is how many events a run handles between two looks at its
// context: a few thousand events take well under a millisecond.
const checkEvery = 4096

// RunRemoteContext is [RunRemote] that stops, returning ctx.Err(), when
// ctx is cancelled (checked every 4096 events), so that a signal stops a
// long run at once.
func RunRemoteContext(ctx context.Context, sc Scenario, l Remote) (Result, error) {
	if sc.Arrivals == nil && sc.Users <= 0 {
		return Result{}, fmt.Errorf("clients: scenario without arrivals or users")
	}
	if sc.Users > 0 && sc.Horizon <= 0 {
		return Result{}, fmt.Errorf("clients: closed-loop users with horizon %v s <= 0", sc.Horizon)
	}
	if sc.Backfill != nil && sc.Server == nil {
		return Result{}, fmt.Errorf("clients: backfill without a downstream server")
	}
	s := engine.NewSim()
	g := NewRemoteGate(s, l)
	var srv *Server
	if sc.Server != nil {
		var err error
		if srv, err = NewServer(*sc.Server); err != nil {
			return Result{}, err
		}
		srv.SetBin(sc.Bin)
		g.Serve(srv)
	}
	fg := Stream(sc.Seed, sc.Point, sc.Replication, StreamForeground)
	var (
		ret   *Retrying
		paced *Paced
		bf    *Backfill
		err   error
	)
	if sc.Pace == nil || sc.Users > 0 {
		if ret, err = NewRetrying(s, g, sc.Retry, sc.Bin, fg); err != nil {
			return Result{}, err
		}
	}
	if sc.Arrivals != nil {
		if sc.Pace != nil {
			if paced, err = NewPaced(s, g, *sc.Pace, sc.Bin, fg); err != nil {
				return Result{}, err
			}
			paced.OpenLoop(sc.Arrivals)
			defer paced.Stop()
		} else {
			ret.OpenLoop(sc.Arrivals)
		}
	}
	if ret != nil {
		defer ret.Stop()
		if sc.Users > 0 {
			if err := ret.ClosedLoopContext(ctx, sc.Users, sc.Think, sc.Horizon); err != nil {
				return Result{}, err
			}
		}
	}
	if sc.Backfill != nil {
		if bf, err = NewBackfill(s, g, srv, *sc.Backfill, sc.Bin, Stream(sc.Seed, sc.Point, sc.Replication, StreamBackfill)); err != nil {
			return Result{}, err
		}
		bf.Start(sc.BackfillItems)
	}
	until := engine.Forever
	if sc.Until > 0 {
		until = sc.Until
	}
	for n := 1; s.Peek() <= until && s.Step(); n++ {
		if n%checkEvery == 0 && ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
	}

	var res Result
	res.End = s.Now()
	fgStats := foreground(ret, paced)
	for _, st := range []*Stats{ret.statsOrNil(), paced.statsOrNil(), bf.statsOrNil()} {
		if err := st.errOrNil(); err != nil {
			return Result{}, err
		}
	}
	res.Foreground = fgStats.Summary()
	res.ForegroundSeries = fgStats.Series()
	res.ForegroundLatencies = fgStats.Latencies()
	if bf != nil {
		res.Backfill = bf.Stats().Summary()
		res.BackfillSeries = bf.Stats().Series()
		res.Controls = bf.Controls()
	}
	if srv != nil {
		srv.Flush()
		res.End = max(res.End, srv.LastDeparture())
		for c := range srv.Classes() {
			res.Server = append(res.Server, srv.Final(c))
		}
		if sc.Bin > 0 {
			res.ForegroundSeries = withServer(res.ForegroundSeries, srv.Series(sc.Retry.Class), sc.Bin)
			if bf != nil {
				res.BackfillSeries = withServer(res.BackfillSeries, srv.Series(sc.Backfill.Class), sc.Bin)
			}
		}
	}
	return res, nil
}

// withServer returns bins with the server's series of their class
// attached, extended with empty bins to the server's last bin.
func withServer(bins []Bin, srv []ServerBin, width engine.Time) []Bin {
	for len(bins) < len(srv) {
		bins = append(bins, Bin{Start: engine.Time(len(bins)) * width})
	}
	for i := range bins {
		sb := ServerBin{}
		if i < len(srv) {
			sb = srv[i]
		}
		bins[i].Server = &sb
	}
	return bins
}

// foreground merges the statistics of the retrying and the paced
// foreground (at most one of them has open-loop requests).
func foreground(ret *Retrying, paced *Paced) *Stats {
	switch {
	case ret == nil:
		return paced.Stats()
	case paced == nil:
		return ret.Stats()
	}
	return merge(ret.Stats(), paced.Stats())
}

// merge returns the sum of two populations' statistics with the same bin.
func merge(a, b *Stats) *Stats {
	m := &Stats{Bin: a.Bin}
	for _, st := range []*Stats{a, b} {
		if st.Requests == 0 {
			continue
		}
		if m.Requests == 0 || st.First < m.First {
			m.First = st.First
		}
		m.Requests += st.Requests
		m.Attempts += st.Attempts
		m.Successes += st.Successes
		m.GiveUps += st.GiveUps
		m.GiveUpsAttempts += st.GiveUpsAttempts
		m.GiveUpsDeadline += st.GiveUpsDeadline
		m.GiveUpsNoRetry += st.GiveUpsNoRetry
		m.Last = max(m.Last, st.Last)
		for k, n := range st.AttemptsPerSuccess {
			for len(m.AttemptsPerSuccess) <= k {
				m.AttemptsPerSuccess = append(m.AttemptsPerSuccess, 0)
			}
			m.AttemptsPerSuccess[k] += n
		}
		m.latencies.merge(&st.latencies)
		for i, bn := range st.bins {
			for len(m.bins) <= i {
				m.bins = append(m.bins, Bin{})
			}
			m.bins[i].Requests += bn.Requests
			m.bins[i].Attempts += bn.Attempts
			m.bins[i].Successes += bn.Successes
			m.bins[i].GiveUps += bn.GiveUps
		}
	}
	return m
}

func (r *Retrying) statsOrNil() *Stats {
	if r == nil {
		return nil
	}
	return r.Stats()
}

func (p *Paced) statsOrNil() *Stats {
	if p == nil {
		return nil
	}
	return p.Stats()
}

func (b *Backfill) statsOrNil() *Stats {
	if b == nil {
		return nil
	}
	return b.Stats()
}

func (st *Stats) errOrNil() error {
	if st == nil {
		return nil
	}
	return st.Err()
}
