package clients

import (
	"fmt"
	"iter"
	"math/rand/v2"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Components of an [Overload] run, the last argument of [Stream] (after
// those of a [Scenario]).
const (
	StreamService uint64 = 6 // the backends' service-time draws
	StreamFaults  uint64 = 7 // the error faults' draws
	StreamClient  uint64 = 8 // the client throttle's draws
	StreamLimits  uint64 = 9 // the concurrency limits' draws
)

// BackendParams describe one server of an [Overload] run: Concurrency
// jobs in service at once, a waiting room of Queue jobs (-1: unbounded)
// served FIFO or LIFO, and a service time drawn from Service, stretched by
// contention: a job that starts service as the n-th job in service takes
//
//	S·(1 + Contention·(n − 1))
//
// where S is its draw (Contention 0: no contention).
type BackendParams struct {
	Concurrency int         // jobs in service at once, >= 1
	Queue       int         // waiting room, jobs, >= 0; -1 for unbounded
	LIFO        bool        // serve the newest waiting job first
	Service     ServiceTime // not nil
	Contention  float64     // >= 0
}

// Validate returns an error naming the first invalid field, or nil.
func (p BackendParams) Validate() error {
	if p.Concurrency < 1 {
		return fmt.Errorf("clients: server concurrency %d, want >= 1", p.Concurrency)
	}
	if p.Queue < -1 {
		return fmt.Errorf("clients: server queue %d, want >= 0 jobs or -1 for unbounded", p.Queue)
	}
	if !(p.Contention >= 0) || p.Contention > 1e6 {
		return fmt.Errorf("clients: contention factor %g, want in [0, 1e6]", p.Contention)
	}
	return validService(p.Service)
}

// FaultKind is what a [Fault] does to a server.
type FaultKind int

// Fault kinds.
const (
	// FaultCrash takes the server down: the jobs in service and waiting
	// are lost (never answered: their clients time out), and an attempt
	// that arrives while it is down is refused at once (an error, as a
	// refused connection); it comes back empty at To.
	FaultCrash FaultKind = iota
	// FaultError answers each job whose service ends in the interval with
	// an error with probability X, in [0, 1].
	FaultError
	// FaultSlow multiplies the service time of the jobs that start
	// service in the interval by X > 0.
	FaultSlow
	// FaultCapacity sets the concurrency to floor(Concurrency·X), X >= 0,
	// in the interval: jobs in service finish, no new one starts while as
	// many or more are in service.
	FaultCapacity
)

var faultNames = [...]string{"crash", "error", "slow", "capacity"}

func (k FaultKind) String() string {
	if k >= 0 && int(k) < len(faultNames) {
		return faultNames[k]
	}
	return fmt.Sprintf("FaultKind(%d)", int(k))
}

// FaultKindNames lists the kinds as --fault takes them.
func FaultKindNames() []string { return faultNames[:] }

// Fault is a fault of one server over [From, To) (ns).
type Fault struct {
	Kind     FaultKind
	From, To engine.Time
	X        float64 // error probability, slowdown or capacity factor
	Server   int     // the server, 0-based
}

// Validate returns an error for an invalid fault of a run of n servers.
func (f Fault) Validate(n int) error {
	switch {
	case f.From < 0 || f.To <= f.From:
		return fmt.Errorf("clients: %v fault from %v s to %v s, want 0 <= from < to", f.Kind, f.From, f.To)
	case f.Server < 0 || f.Server >= n:
		return fmt.Errorf("clients: %v fault of server %d, want one of the %d servers", f.Kind, f.Server+1, n)
	}
	switch f.Kind {
	case FaultCrash:
	case FaultError:
		if !(f.X >= 0 && f.X <= 1) {
			return fmt.Errorf("clients: error fault probability %g, want in [0, 1]", f.X)
		}
	case FaultSlow:
		if !(f.X > 0 && f.X <= 1e6) {
			return fmt.Errorf("clients: slow fault factor %g, want in (0, 1e6]", f.X)
		}
	case FaultCapacity:
		if !(f.X >= 0 && f.X <= 1e6) {
			return fmt.Errorf("clients: capacity fault factor %g, want in [0, 1e6]", f.X)
		}
	default:
		return fmt.Errorf("clients: fault kind %v", f.Kind)
	}
	return nil
}

// Overload is a run of open-loop clients against Servers identical
// servers that can collapse: requests arrive at the instants of Arrivals;
// each attempt goes (past the client throttle, if any) to the next server
// in round-robin order; the client waits at most Timeout for its answer
// (0: forever), and a timed-out attempt stays at the server, which serves
// it anyway (the work is wasted). A failed attempt (an error, a full
// queue, a refused connection, a timeout) is retried by Retry's backoff
// and MaxAttempts (its Deadline too), if the Budget grants it.
type Overload struct {
	Arrivals iter.Seq[engine.Time] // request instants, non-decreasing, >= 0
	Servers  int                   // >= 1
	Backend  BackendParams
	Faults   []Fault
	Timeout  engine.Time // ns, >= 0; 0: none
	Retry    RetryPolicy
	Budget   RetryBudget  // nil: every retry the policy allows goes
	Throttle *SREThrottle // nil: none
	// Adaptive, if not nil, is the AWS SDK's adaptive-mode send-rate
	// limiter: every attempt waits for one of its tokens.
	Adaptive *AWSAdaptive
	// Concurrency, if not nil, makes each server's adaptive concurrency
	// limit (a fresh one per server, and again when a crashed server comes
	// back): admission in front of the server (see [ConcurrencyLimit]).
	// The factory is given the run's source for the limits' draws (Vegas's
	// probe jitter), StreamLimits of the run.
	Concurrency              func(rng *rand.Rand) ConcurrencyLimit
	Bin                      engine.Time // series bin width, ns (0: none)
	Until                    engine.Time // > 0: stop after the events at or before it
	Seed, Point, Replication uint64
}

// OverloadBin is one bin of an [Overload] run's series, [k·Bin, (k+1)·Bin).
type OverloadBin struct {
	Requests  int64 // first attempts (the offered load)
	Retries   int64 // attempts beyond the first, sent (throttled ones included)
	Successes int64 // requests answered successfully (goodput)
	Backend   int64 // attempts that reached a server
	Timeouts  int64 // attempts timed out
	Denied    int64 // retries refused by the budget or the throttle
	GiveUps   int64 // requests given up (attempts used, a retry refused, a deadline)
	// MaxQueue and MaxBusy are the largest number of jobs waiting, and in
	// service, at any instant of the bin summed over the servers' values
	// at their own events (each server's maximum, added).
	MaxQueue, MaxBusy int
}

// OverloadResult is what an [Overload] run measured.
type OverloadResult struct {
	Summary Summary // requests, attempts, successes, give-ups, latencies
	// Retries counts attempts beyond the first (those the throttle
	// rejected included); RetriesDenied the retries refused (by the budget
	// before they were made, or by the throttle); Throttled every attempt
	// the throttle rejected (first ones included); Backend the attempts
	// that reached a server (those a concurrency limit rejected included);
	// Limited the attempts a concurrency limit rejected; Timeouts the
	// attempts that timed out; Errors
	// the attempts answered with an error (faults, full queues, refused
	// connections); Wasted the timed-out attempts a server served anyway.
	Retries, RetriesDenied, Throttled, Backend, Limited, Timeouts, Errors, Wasted int64
	// Busy is the servers' total busy time, s (service of every job, the
	// wasted ones included, that ended by the end of the run).
	Busy   float64
	Series []OverloadBin
	// Latencies holds the latency of every success, s (arrival to the
	// answer of its last attempt), in the order of success.
	Latencies []float64
	End       engine.Time
}

// WorkAmplification returns Backend/Requests: the attempts a server saw
// per original request (1 + N at 100% failure with N retries), NaN
// without requests.
func (r OverloadResult) WorkAmplification() float64 {
	return ratio(r.Backend, r.Summary.Requests)
}

// Event kinds of an overload run, in the low 3 bits of an argument.
const (
	ovArrival = iota
	ovRetry   // request id
	ovTimeout // attempt id
	ovDepart  // attempt id
	ovFault   // fault index·2 + (1 at its end)
	ovSend    // request id: an attempt that waited for a send token
	ovKinds   = 8
)

type ovRequest struct {
	arrived  engine.Time
	attempts int
	prev     engine.Time // previous sleep
	held     int64       // budget held from the last granted retry
}

type ovAttempt struct {
	req      int
	server   int
	retry    bool
	done     bool // answered or timed out, for the client
	epoch    int  // the server's epoch when it started service
	limited  bool // admitted by the server's concurrency limit: in flight there
	overload bool // refused for overload (a full queue, a concurrency limit): a throttle error
	inAdmit  int  // in flight at the server when admitted, itself included
	admit    engine.Time
	start    engine.Time
	service  engine.Time
}

type backend struct {
	p       BackendParams
	busy    int
	queue   []int // attempt ids waiting
	qhead   int   // FIFO: first live index
	down    bool
	slow    float64
	capX    float64 // capacity factor, 1 when none
	errP    float64
	epoch   int
	lim     ConcurrencyLimit
	flight  int // attempts in flight for lim
	maxQ    []int
	maxBusy []int
}

func (b *backend) waiting() int { return len(b.queue) - b.qhead }

func (b *backend) concurrency() int {
	if b.capX == 1 {
		return b.p.Concurrency
	}
	return int(float64(b.p.Concurrency) * b.capX)
}

type overloadRun struct {
	sc      Overload
	sim     *engine.Sim
	rng     *rand.Rand // backoff
	svcRng  *rand.Rand
	faultRg *rand.Rand
	thrRng  *rand.Rand
	limRng  *rand.Rand
	service ServiceTime
	next    func() (engine.Time, bool)
	stop    func()
	last    engine.Time
	rr      int
	servers []*backend
	reqs    []ovRequest
	atts    []ovAttempt
	stats   Stats
	res     OverloadResult
	bins    []OverloadBin
}

// RunOverload runs sc and returns what it measured, or an error if sc is
// invalid or its series needs more than [MaxBins] bins.
func RunOverload(sc Overload) (OverloadResult, error) {
	if sc.Arrivals == nil {
		return OverloadResult{}, fmt.Errorf("clients: overload run without arrivals")
	}
	if sc.Servers < 1 {
		return OverloadResult{}, fmt.Errorf("clients: %d servers, want >= 1", sc.Servers)
	}
	if err := sc.Backend.Validate(); err != nil {
		return OverloadResult{}, err
	}
	if err := sc.Retry.Validate(); err != nil {
		return OverloadResult{}, err
	}
	if sc.Timeout < 0 || sc.Bin < 0 {
		return OverloadResult{}, fmt.Errorf("clients: timeout %v s and bin %v s, want >= 0", sc.Timeout, sc.Bin)
	}
	for _, f := range sc.Faults {
		if err := f.Validate(sc.Servers); err != nil {
			return OverloadResult{}, err
		}
	}
	r := &overloadRun{sc: sc, sim: engine.NewSim(), stats: Stats{Bin: sc.Bin}, service: sc.Backend.Service,
		rng:     rand.New(Stream(sc.Seed, sc.Point, sc.Replication, StreamForeground)),
		svcRng:  rand.New(Stream(sc.Seed, sc.Point, sc.Replication, StreamService)),
		faultRg: rand.New(Stream(sc.Seed, sc.Point, sc.Replication, StreamFaults)),
		thrRng:  rand.New(Stream(sc.Seed, sc.Point, sc.Replication, StreamClient)),
		limRng:  rand.New(Stream(sc.Seed, sc.Point, sc.Replication, StreamLimits))}
	if t, ok := r.service.(TraceService); ok {
		r.service = t.fresh()
	}
	for range sc.Servers {
		b := &backend{p: sc.Backend, slow: 1, capX: 1}
		if sc.Concurrency != nil {
			b.lim = sc.Concurrency(r.limRng)
		}
		r.servers = append(r.servers, b)
	}
	for i, f := range sc.Faults {
		r.sim.Schedule(f.From, r, (2*i)*ovKinds+ovFault)
		r.sim.Schedule(f.To, r, (2*i+1)*ovKinds+ovFault)
	}
	r.next, r.stop = iter.Pull(sc.Arrivals)
	defer r.stop()
	r.pull()
	if sc.Until > 0 {
		r.sim.RunUntil(sc.Until)
	} else {
		r.sim.Run()
	}
	if err := r.stats.Err(); err != nil {
		return OverloadResult{}, err
	}
	r.res.Summary = r.stats.Summary()
	r.res.Latencies = r.stats.Latencies()
	r.res.End = r.sim.Now()
	r.res.Series = r.series()
	return r.res, nil
}

// pull schedules the next arrival.
func (r *overloadRun) pull() {
	t, ok := r.next()
	if !ok {
		return
	}
	if t < r.last || t < 0 {
		panic(fmt.Sprintf("clients: open-loop arrivals go back from %v s to %v s", r.last, t))
	}
	r.last = t
	r.sim.Schedule(t, r, ovArrival)
}

// Handle runs the run's events.
func (r *overloadRun) Handle(_ *engine.Sim, now engine.Time, arg int) {
	i := arg / ovKinds
	switch arg % ovKinds {
	case ovArrival:
		r.reqs = append(r.reqs, ovRequest{arrived: now})
		r.stats.request(now)
		if b := r.bin(now); b != nil {
			b.Requests++
		}
		if r.sc.Budget != nil {
			r.sc.Budget.Sent(now, false)
		}
		r.send(now, len(r.reqs)-1)
		r.pull()
	case ovRetry:
		if r.sc.Budget != nil {
			r.sc.Budget.Sent(now, true)
		}
		r.send(now, i)
	case ovTimeout:
		a := &r.atts[i]
		if a.done {
			return
		}
		a.done = true
		r.res.Timeouts++
		if r.sc.Adaptive != nil {
			r.sc.Adaptive.Update(now, false)
		}
		if b := r.bin(now); b != nil {
			b.Timeouts++
		}
		r.failed(now, a.req, true)
	case ovDepart:
		r.depart(now, i)
	case ovFault:
		r.fault(now, i/2, i%2 == 1)
	case ovSend:
		r.send(now, i)
	}
}

// send makes request q's next attempt at now.
func (r *overloadRun) send(now engine.Time, q int) {
	if ad := r.sc.Adaptive; ad != nil {
		if ok, wait := ad.Acquire(now); !ok {
			r.sim.Schedule(now+wait, r, q*ovKinds+ovSend)
			return
		}
	}
	req := &r.reqs[q]
	req.attempts++
	r.stats.attempt(now)
	retry := req.attempts > 1
	if retry {
		r.res.Retries++
		if b := r.bin(now); b != nil {
			b.Retries++
		}
	}
	if th := r.sc.Throttle; th != nil && !th.Admit(now, r.thrRng) {
		r.res.Throttled++
		if retry {
			r.denied(now)
		}
		r.giveUp(now)
		return
	}
	id := len(r.atts)
	srv := r.rr % len(r.servers)
	r.rr++
	r.atts = append(r.atts, ovAttempt{req: q, server: srv, retry: retry})
	r.res.Backend++
	if b := r.bin(now); b != nil {
		b.Backend++
	}
	if r.sc.Timeout > 0 {
		r.sim.Schedule(now+r.sc.Timeout, r, id*ovKinds+ovTimeout)
	}
	r.arrive(now, srv, id)
}

// arrive hands attempt id to server s at now.
func (r *overloadRun) arrive(now engine.Time, s, id int) {
	b := r.servers[s]
	if b.lim != nil && !b.down {
		if tl, ok := b.lim.(TimedLimit); ok {
			tl.Advance(now)
		}
		if b.flight >= b.lim.Limit() {
			r.res.Limited++
			r.atts[id].overload = true
			r.answer(now, id, false) // rejected by the limit: a 503
			return
		}
		b.flight++
		a := &r.atts[id]
		a.limited, a.inAdmit, a.admit = true, b.flight, now
	}
	switch {
	case b.down:
		r.answer(now, id, false)
	case b.busy < b.concurrency():
		r.start(now, s, id)
	case b.p.Queue < 0 || b.waiting() < b.p.Queue:
		b.queue = append(b.queue, id)
		r.record(now, b)
	default:
		r.sample(now, b, id, false)
		r.atts[id].overload = true
		r.answer(now, id, false) // the queue is full: a 503
	}
}

// sample ends attempt id's flight at server b's concurrency limit at now,
// ok or dropped.
func (r *overloadRun) sample(now engine.Time, b *backend, id int, ok bool) {
	a := &r.atts[id]
	if !a.limited || b.lim == nil {
		return
	}
	a.limited = false
	b.flight--
	if tl, ok := b.lim.(TimedLimit); ok {
		tl.Advance(now)
	}
	b.lim.Sample(now-a.admit, a.inAdmit, !ok)
}

// start begins the service of attempt id at server s.
func (r *overloadRun) start(now engine.Time, s, id int) {
	b := r.servers[s]
	b.busy++
	d := r.service.Draw(r.svcRng)
	if f := b.slow * (1 + b.p.Contention*float64(b.busy-1)); f != 1 {
		d = fromSecondsClamped(d.Seconds() * f)
	}
	a := &r.atts[id]
	a.epoch, a.start, a.service = b.epoch, now, d
	r.sim.Schedule(now+d, r, id*ovKinds+ovDepart)
	r.record(now, b)
}

// depart ends the service of attempt id.
func (r *overloadRun) depart(now engine.Time, id int) {
	a := &r.atts[id]
	b := r.servers[a.server]
	if a.epoch != b.epoch {
		return // lost in a crash
	}
	b.busy--
	r.res.Busy += a.service.Seconds()
	ok := !(b.errP > 0 && r.faultRg.Float64() < b.errP)
	r.sample(now, b, id, ok)
	if a.done {
		r.res.Wasted++
	} else {
		r.answer(now, id, ok)
	}
	r.fill(now, a.server)
}

// fill starts waiting jobs at server s while it has room.
func (r *overloadRun) fill(now engine.Time, s int) {
	b := r.servers[s]
	for b.waiting() > 0 && b.busy < b.concurrency() && !b.down {
		var id int
		if b.p.LIFO {
			id = b.queue[len(b.queue)-1]
			b.queue = b.queue[:len(b.queue)-1]
		} else {
			id = b.queue[b.qhead]
			b.qhead++
			if b.qhead > 1024 && 2*b.qhead > len(b.queue) {
				b.queue = append(b.queue[:0], b.queue[b.qhead:]...)
				b.qhead = 0
			}
		}
		r.start(now, s, id)
	}
	r.record(now, b)
}

// answer delivers attempt id's answer to its client at now.
func (r *overloadRun) answer(now engine.Time, id int, ok bool) {
	a := &r.atts[id]
	if a.done {
		return
	}
	a.done = true
	req := &r.reqs[a.req]
	if r.sc.Adaptive != nil {
		r.sc.Adaptive.Update(now, a.overload)
	}
	if r.sc.Budget != nil {
		r.sc.Budget.Answered(now, ok, false, req.held)
	}
	req.held = 0
	if !ok {
		r.res.Errors++
		if r.sc.Throttle != nil {
			r.sc.Throttle.Answered(now, false)
		}
		r.failedAfterAnswer(now, a.req, false)
		return
	}
	if r.sc.Throttle != nil {
		r.sc.Throttle.Answered(now, true)
	}
	r.stats.success(req.arrived, req.attempts, exact.Int(int64(now)))
	if b := r.bin(now); b != nil {
		b.Successes++
	}
}

// failed handles a timed-out attempt of request q (the budget is told).
func (r *overloadRun) failed(now engine.Time, q int, timeout bool) {
	req := &r.reqs[q]
	if r.sc.Budget != nil {
		r.sc.Budget.Answered(now, false, timeout, req.held)
	}
	if r.sc.Throttle != nil {
		r.sc.Throttle.Answered(now, false)
	}
	req.held = 0
	r.failedAfterAnswer(now, q, timeout)
}

// failedAfterAnswer retries request q or gives it up.
func (r *overloadRun) failedAfterAnswer(now engine.Time, q int, timeout bool) {
	req := &r.reqs[q]
	p := r.sc.Retry
	if p.MaxAttempts > 0 && req.attempts >= p.MaxAttempts {
		r.giveUp(now)
		return
	}
	if r.sc.Budget != nil {
		ok, held := r.sc.Budget.Retry(now, timeout)
		if !ok {
			r.denied(now)
			r.giveUp(now)
			return
		}
		req.held = held
	}
	sleep := p.Backoff.Sleep(Failure{N: req.attempts, Prev: req.prev}, r.rng)
	if sleep < 0 {
		panic(fmt.Sprintf("clients: backoff returned a negative sleep %v s", sleep))
	}
	next := now + sleep
	if p.Deadline > 0 && next-req.arrived > p.Deadline {
		r.stats.giveUp(now, true)
		if b := r.bin(now); b != nil {
			b.GiveUps++
		}
		return
	}
	req.prev = sleep
	r.sim.Schedule(next, r, q*ovKinds+ovRetry)
}

func (r *overloadRun) denied(now engine.Time) {
	r.res.RetriesDenied++
	if b := r.bin(now); b != nil {
		b.Denied++
	}
}

func (r *overloadRun) giveUp(now engine.Time) {
	r.stats.giveUp(now, false)
	if b := r.bin(now); b != nil {
		b.GiveUps++
	}
}

// fault starts (end false) or ends fault i at now.
func (r *overloadRun) fault(now engine.Time, i int, end bool) {
	f := r.sc.Faults[i]
	b := r.servers[f.Server]
	switch f.Kind {
	case FaultCrash:
		if !end {
			b.down = true
			b.epoch++
			b.busy = 0
			b.queue, b.qhead = b.queue[:0], 0
		} else {
			b.down = false
			if r.sc.Concurrency != nil {
				b.lim, b.flight = r.sc.Concurrency(r.limRng), 0 // a fresh process
			}
		}
	case FaultError:
		b.errP = f.X
		if end {
			b.errP = 0
		}
	case FaultSlow:
		b.slow = f.X
		if end {
			b.slow = 1
		}
	case FaultCapacity:
		b.capX = f.X
		if end {
			b.capX = 1
		}
	}
	r.record(now, b)
	r.fill(now, f.Server)
}

// record raises the bin's per-server maxima of queue and busy.
func (r *overloadRun) record(now engine.Time, b *backend) {
	if r.sc.Bin <= 0 || now/r.sc.Bin >= MaxBins {
		return
	}
	k := int(now / r.sc.Bin)
	for len(b.maxQ) <= k {
		// A bin with no event of the server carries its state in.
		b.maxQ = append(b.maxQ, b.waiting())
		b.maxBusy = append(b.maxBusy, b.busy)
	}
	b.maxQ[k] = max(b.maxQ[k], b.waiting())
	b.maxBusy[k] = max(b.maxBusy[k], b.busy)
}

// bin returns the series bin of now (nil without a series).
func (r *overloadRun) bin(now engine.Time) *OverloadBin {
	if r.sc.Bin <= 0 || now < 0 || now/r.sc.Bin >= MaxBins {
		return nil
	}
	k := int(now / r.sc.Bin)
	for len(r.bins) <= k {
		r.bins = append(r.bins, OverloadBin{})
	}
	return &r.bins[k]
}

// series returns the bins to the end of the run, with the servers'
// queue and busy maxima added up.
func (r *overloadRun) series() []OverloadBin {
	if r.sc.Bin <= 0 {
		return nil
	}
	n := len(r.bins)
	if k := int(r.sim.Now()/r.sc.Bin) + 1; k > n && k <= MaxBins {
		n = k
	}
	out := make([]OverloadBin, n)
	copy(out, r.bins)
	for _, b := range r.servers {
		for k := range out {
			q, busy := b.waiting(), b.busy // carried to the end
			if k < len(b.maxQ) {
				q, busy = b.maxQ[k], b.maxBusy[k]
			}
			out[k].MaxQueue += q
			out[k].MaxBusy += busy
		}
	}
	return out
}
