package clients

import (
	"fmt"
	"iter"
	"math/rand/v2"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// PaceParams describes a pacer: a client that spaces its own requests so
// that it never sends faster than Rate.
type PaceParams struct {
	// Rate is the most requests per second the client sends, an exact
	// rational in (0, 1e9]. Sends are on the nanosecond clock and each
	// gap is at least the spacing T = ceil(1e9/Rate) ns, so the rate is
	// never exceeded, and is met within a nanosecond per gap.
	Rate exact.Rat
	// Jitter adds to each gap a draw uniform on [0, Jitter] ns, >= 0: the
	// mean gap becomes T + Jitter/2 and no gap is shorter than T.
	Jitter engine.Time
	// MaxAttempts bounds the attempts of one request; 0 means no bound.
	// A rejected request stays at the head of the queue and is sent again
	// at the next gap: the pacing is its backoff.
	MaxAttempts int
	// Class is the downstream class of the jobs (see [Job]).
	Class int
}

// Validate returns an error naming the first invalid field, or nil.
func (p PaceParams) Validate() error {
	if p.Rate.Sign() <= 0 || p.Rate.Cmp(exact.Int(1e9)) > 0 {
		return fmt.Errorf("clients: pacing rate %v requests/s, want in (0, 1e9]", p.Rate)
	}
	if p.Jitter < 0 {
		return fmt.Errorf("clients: pacing jitter %v s < 0", p.Jitter)
	}
	if p.MaxAttempts < 0 {
		return fmt.Errorf("clients: max attempts %d < 0", p.MaxAttempts)
	}
	if p.Class < 0 {
		return fmt.Errorf("clients: class %d < 0", p.Class)
	}
	return nil
}

// Spacing returns the least gap between two sends, ceil(1e9/Rate) ns. It
// panics if Rate is not positive.
func (p PaceParams) Spacing() engine.Time {
	t, err := exact.Int(1e9).Quo(p.Rate)
	if err != nil {
		panic(fmt.Sprintf("clients: spacing of rate %v: %v", p.Rate, err))
	}
	return engine.Time(t.Ceil().Int64())
}

// Paced is a client that paces its own requests in front of the limiter:
// "a leaky bucket applied to your own output, or a scheduled release with
// jitter" (the article, "Pacing and smoothing"). Requests wait in a FIFO
// queue, from an open-loop stream ([Paced.OpenLoop]) or a backlog handed
// over at once ([Paced.Backlog], a backfill); the head of the queue is
// sent when the last send is at least one gap old, each gap being
// T + uniform(0, Jitter) (see [PaceParams]). A request that the limiter
// rejects stays at the head and is sent again one gap later.
//
// Latency is counted from a request's arrival in the queue, since that is
// when its user starts waiting.
//
// The zero value is not usable; create one with [NewPaced].
type Paced struct {
	sim     *engine.Sim
	gate    *Gate
	p       PaceParams
	spacing engine.Time
	rng     *rand.Rand
	stats   Stats

	queue    []batch     // FIFO of waiting requests
	sent     bool        // a send has been made
	lastSend engine.Time // instant of the last send
	lastJit  engine.Time // jitter drawn for the gap after the last send
	timer    engine.Time // instant of the pending send event, Forever if none

	queued map[int]request // requests the limiter queued, by tag
	tag    int

	streams []*stream
	sends   []engine.Time // when recording
	record  bool
}

// batch is n requests that arrived at the same instant; the first of them
// has made tries attempts already.
type batch struct {
	arrived engine.Time
	n       int64
	tries   int
}

// Event kinds of a Paced, in the low bit of the argument.
const (
	evSend   = 0
	evPArriv = 1 // arg>>1 is a stream
)

// NewPaced returns a pacer that offers its requests through g, with series
// bins of width bin (0 for none), or an error if p is invalid. Jitter draws
// come from src.
func NewPaced(s *engine.Sim, g *Gate, p PaceParams, bin engine.Time, src rand.Source) (*Paced, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if bin < 0 {
		return nil, fmt.Errorf("clients: series bin %v s < 0", bin)
	}
	if src == nil {
		return nil, fmt.Errorf("clients: nil random source")
	}
	return &Paced{
		sim: s, gate: g, p: p, spacing: p.Spacing(), rng: rand.New(src),
		stats: Stats{Bin: bin}, timer: engine.Forever, queued: make(map[int]request),
	}, nil
}

// Stats returns the pacer's statistics so far.
func (pc *Paced) Stats() *Stats { return &pc.stats }

// Waiting returns the number of requests waiting in the pacer's queue.
func (pc *Paced) Waiting() int64 {
	var n int64
	for _, b := range pc.queue {
		n += b.n
	}
	return n
}

// RecordSends makes the pacer keep the instant of every send, for
// [Paced.Sends].
func (pc *Paced) RecordSends() { pc.record = true }

// Sends returns the instants of the sends made so far if [Paced.RecordSends]
// was called before them.
func (pc *Paced) Sends() []engine.Time { return slices.Clone(pc.sends) }

// Spacing returns the least gap between sends in force, ns.
func (pc *Paced) Spacing() engine.Time { return pc.spacing }

// SetSpacing changes the least gap between sends to t ns (> 0), from the
// gap after the last send on: a send already scheduled is moved to
// lastSend + t + its jitter, or to Now() if that has passed. It panics if
// t <= 0.
func (pc *Paced) SetSpacing(t engine.Time) {
	if t <= 0 {
		panic(fmt.Sprintf("clients: Paced.SetSpacing(%v)", t))
	}
	pc.spacing = t
	if pc.timer != engine.Forever {
		pc.arm()
	}
}

// Backlog adds n requests arriving at Now().
func (pc *Paced) Backlog(n int64) {
	if n <= 0 {
		return
	}
	now := pc.sim.Now()
	pc.stats.requests(now, n)
	pc.queue = append(pc.queue, batch{arrived: now, n: n})
	pc.arm()
}

// OpenLoop adds a stream of request arrivals (non-decreasing, not before
// Now()), pulled one instant at a time. [Paced.Stop] releases streams not
// pulled to their end.
func (pc *Paced) OpenLoop(arrivals iter.Seq[engine.Time]) {
	next, stop := iter.Pull(arrivals)
	pc.streams = append(pc.streams, &stream{next: next, stop: stop, last: pc.sim.Now()})
	pc.pull(len(pc.streams) - 1)
}

// Stop stops the open-loop streams that have not ended.
func (pc *Paced) Stop() {
	for _, st := range pc.streams {
		if st.stop != nil {
			st.stop()
			st.stop = nil
		}
	}
}

func (pc *Paced) pull(i int) {
	if t, ok := pc.streams[i].advance(); ok {
		pc.sim.Schedule(t, pc, i*2+evPArriv)
	}
}

// Handle runs the pacer's events.
func (pc *Paced) Handle(s *engine.Sim, now engine.Time, arg int) {
	if arg%2 == evPArriv {
		pc.Backlog(1)
		pc.pull(arg / 2)
		return
	}
	if now != pc.timer {
		return // moved by SetSpacing
	}
	pc.timer = engine.Forever
	pc.send(now)
	pc.arm()
}

// arm schedules the next send if requests wait: at the end of the gap
// after the last send, or now.
func (pc *Paced) arm() {
	if len(pc.queue) == 0 {
		return
	}
	now := pc.sim.Now()
	at := now
	if pc.sent {
		at = max(now, pc.lastSend+pc.spacing+pc.lastJit)
	}
	if at != pc.timer {
		pc.timer = at
		pc.sim.Schedule(at, pc, evSend)
	}
}

// send offers the head request at now.
func (pc *Paced) send(now engine.Time) {
	head := &pc.queue[0]
	pc.sent, pc.lastSend = true, now
	pc.lastJit = uniform(pc.rng, 0, pc.p.Jitter)
	if pc.record {
		pc.sends = append(pc.sends, now)
	}
	head.tries++
	pc.stats.attempt(now)
	r := request{arrived: head.arrived, attempts: head.tries, user: -1}
	d := pc.gate.Offer(pc, Job{Class: pc.p.Class, Tag: pc.tag})
	switch d.Verdict {
	case buckets.Admit, buckets.Delay:
		pc.stats.success(r.arrived, r.attempts, PassAt(now, d))
	case buckets.Queue:
		pc.queued[pc.tag] = r
		pc.tag++
	case buckets.Reject:
		if pc.p.MaxAttempts == 0 || head.tries < pc.p.MaxAttempts {
			return // stays at the head
		}
		pc.stats.giveUp(now, false)
	}
	head.tries = 0
	if head.n--; head.n == 0 {
		pc.queue = pc.queue[1:]
	}
}

// Released is called by the Gate when the limiter releases a queued job.
func (pc *Paced) Released(s *engine.Sim, j Job, at exact.Rat) {
	r := pc.queued[j.Tag]
	delete(pc.queued, j.Tag)
	pc.stats.success(r.arrived, r.attempts, at)
}

// Refused is called by the Gate when a [Remote] refuses a job it answered
// late: the request goes back to the head of the queue, to be sent again
// at the next gap, or is given up after MaxAttempts attempts.
func (pc *Paced) Refused(s *engine.Sim, j Job, _ engine.Time) {
	r := pc.queued[j.Tag]
	delete(pc.queued, j.Tag)
	if pc.p.MaxAttempts > 0 && r.attempts >= pc.p.MaxAttempts {
		pc.stats.giveUp(s.Now(), false)
		return
	}
	pc.queue = slices.Insert(pc.queue, 0, batch{arrived: r.arrived, n: 1, tries: r.attempts})
	pc.arm()
}

// CronParams describes cron-synchronized clients: Clients clients that
// each fire once at every period boundary k·Period (k = 0, 1, ...,
// Periods-1), each firing delayed by its own start jitter.
type CronParams struct {
	Clients int         // >= 1
	Period  engine.Time // ns, > 0
	Periods int         // boundaries, >= 1
	// Jitter is the start jitter J in ns, 0 <= J <= Period: each firing
	// is delayed by an independent draw uniform on [0, J]. With J = 0
	// all clients fire at the same instant ("0 * * * *" on 200 machines).
	Jitter engine.Time
}

// Validate returns an error naming the first invalid field, or nil.
func (p CronParams) Validate() error {
	switch {
	case p.Clients < 1:
		return fmt.Errorf("clients: cron clients %d < 1", p.Clients)
	case p.Period <= 0:
		return fmt.Errorf("clients: cron period %v s <= 0", p.Period)
	case p.Periods < 1:
		return fmt.Errorf("clients: cron periods %d < 1", p.Periods)
	case p.Jitter < 0 || p.Jitter > p.Period:
		return fmt.Errorf("clients: cron jitter %v s, want in [0, period %v s]", p.Jitter, p.Period)
	}
	return nil
}

// Cron returns the firing instants of p in non-decreasing order, or an
// error if p is invalid. The draws of a boundary (Clients of them, in
// client order) are sorted before they are yielded, so memory is
// O(Clients). The sequence draws from src as it is iterated: iterate it
// once.
func Cron(p CronParams, src rand.Source) (iter.Seq[engine.Time], error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Jitter > 0 && src == nil {
		return nil, fmt.Errorf("clients: cron jitter without a random source")
	}
	var rng *rand.Rand
	if src != nil {
		rng = rand.New(src)
	}
	return func(yield func(engine.Time) bool) {
		fire := make([]engine.Time, p.Clients)
		for k := range p.Periods {
			base := engine.Time(k) * p.Period
			for i := range fire {
				fire[i] = base + uniform(rng, 0, p.Jitter)
			}
			slices.Sort(fire)
			for _, t := range fire {
				if !yield(t) {
					return
				}
			}
		}
	}, nil
}
