package clients

import (
	"fmt"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/heap"
)

// ServerParams describes a downstream server: one FIFO server with a
// deterministic service time 1/Rate and a finite buffer.
type ServerParams struct {
	// Rate μ is the service rate in jobs/s, an exact rational in
	// (0, 1e9]: the service time 1/μ is exact (1/3 s is 1e9/3 ns) and at
	// least a nanosecond.
	Rate exact.Rat
	// Buffer is the waiting room in jobs, >= 0, not counting the job in
	// service: a job that arrives to find Buffer jobs waiting is lost.
	Buffer int
}

// Validate returns an error naming the first invalid field, or nil.
func (p ServerParams) Validate() error {
	if p.Rate.Sign() <= 0 || p.Rate.Cmp(exact.Int(1e9)) > 0 {
		return fmt.Errorf("clients: server rate %v jobs/s, want in (0, 1e9]", p.Rate)
	}
	if p.Buffer < 0 {
		return fmt.Errorf("clients: server buffer %d jobs < 0", p.Buffer)
	}
	return nil
}

// ServerStats are a server's counts for one class of jobs.
type ServerStats struct {
	Arrived   int64 // jobs that arrived (accepted or lost)
	Overflows int64 // jobs lost because the buffer was full
	Departed  int64 // jobs whose service ended at or before the instant of the query
	// QueueDelay is the exact sum of the departed jobs' queueing delays
	// (service start minus arrival), in nanoseconds; MaxQueueDelay the
	// largest.
	QueueDelay    exact.Rat
	MaxQueueDelay exact.Rat
}

// MeanQueueDelay returns the mean queueing delay of the departed jobs in
// seconds, rounded once from its exact value, or 0 when none departed.
func (st ServerStats) MeanQueueDelay() float64 {
	if st.Departed == 0 {
		return 0
	}
	return st.QueueDelay.QuoFloat64(st.Departed * 1e9)
}

// Server is a finite FIFO queue in front of one server with deterministic
// service time S = 1/μ (a D/1/K queue for whatever arrives): the
// downstream that the jobs a limiter lets pass are sent to. A job arriving
// at x starts service at max(x, D') and departs at
//
//	D = max(x, D') + S
//
// where D' is the departure of the job before it; all in exact rationals
// of nanoseconds, so arrivals between two nanoseconds (jobs a shaper
// releases at rate 3/s) and service times such as 1/12 s keep every
// comparison exact. A job that arrives to find the server busy and Buffer
// jobs waiting is lost (an overflow). Ties: a departure at the instant of
// an arrival happens first and frees its place; arrivals at the same
// instant are taken in the order they were sent.
//
// Arrivals may be sent out of order (see [Gate]); the Server sorts them.
// It commits an arrival at x, deciding whether it is lost, once no
// earlier one can still come: when the clock has passed x by a
// nanosecond (a job passing at x is sent by the instant ceil(x) at the
// latest). [Server.Stats] commits what it can first; [Server.Flush]
// commits everything at the end of a run. Sending an arrival at x <= Now()
// - 1 ns is a programmer error and panics.
//
// Memory: O(jobs in the system + jobs sent whose instant is not yet a
// nanosecond past: those a shaper has delayed into the future).
//
// The zero value is not usable; create a Server with [NewServer].
type Server struct {
	service exact.Rat // S in ns
	buffer  int
	pending *heap.Heap[arrival] // sent, not yet committed, by (at, seq)
	seq     uint64              // sending order, for ties in pending
	system  []inSystem          // committed jobs not yet departed, FIFO
	last    exact.Rat           // D' of the last accepted job
	stats   []ServerStats
	gate    *Gate // told the outcome of tagged arrivals (see Gate.Serve)

	// The series (see SetBin): bin width in ns (0: none), the largest
	// number of jobs in the system in each bin, the overflows of each
	// class in each bin, and the first bin whose start value is not yet
	// fixed (its occupancy at its start instant).
	bin       engine.Time
	maxJobs   []int
	overflows [][]int64
	fixed     int64
}

// ServerBin is the server's series in one bin of time [k·width,
// (k+1)·width) (see [Server.SetBin]).
type ServerBin struct {
	// Overflows is the number of jobs of the class asked for that
	// arrived in the bin and were lost to the full buffer.
	Overflows int64
	// MaxJobs is the largest number of jobs at the server (in service
	// and waiting, all classes) at any instant of the bin, the number
	// carried in at its start included; at most Buffer + 1.
	MaxJobs int
}

type inSystem struct {
	depart exact.Rat
	delay  exact.Rat // queueing delay
	class  int
}

// arriveTagged sends the server the job the Gate offered as id, passing
// at the exact instant at: the Gate is told whether it is served (at its
// departure) or lost, at the instant the server decides, ceil(at) (an
// event after the others of that instant, when no earlier arrival can
// still come).
func (sv *Server) arriveTagged(s *engine.Sim, at exact.Rat, class int, id int64) {
	sv.send(s, arrival{at: at, class: class, tagged: true, id: id})
	s.SchedulePriority(engine.Time(at.Ceil().Int64()), 1, sv, 0)
}

// Handle commits the arrivals at or before now: the Server's own event
// for tagged arrivals.
func (sv *Server) Handle(s *engine.Sim, now engine.Time, _ int) { sv.commit(exact.Int(int64(now))) }

// NewServer returns an empty server, or an error if p is invalid.
func NewServer(p ServerParams) (*Server, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	s, err := exact.Int(1e9).Quo(p.Rate)
	if err != nil {
		return nil, fmt.Errorf("clients: service time of rate %v jobs/s: %w", p.Rate, err)
	}
	return &Server{service: s, buffer: p.Buffer, pending: heap.New(arrivalBefore, nil)}, nil
}

// SetBin makes the server keep a series in bins of width ns (0: none; at
// most [MaxBins] bins, events past them are not binned), before any
// arrival is sent.
func (sv *Server) SetBin(width engine.Time) { sv.bin = max(width, 0) }

// Series returns the server's series for class, from the bin of 0 to the
// bin of its last event (an arrival or a departure), after
// [Server.Flush]; nil without a series. The occupancy is a step function
// of time, right-continuous: at an instant its value is the one after the
// departures and arrivals made there, so that a job departing at the
// start of a bin is not counted in it.
func (sv *Server) Series(class int) []ServerBin {
	if sv.bin <= 0 {
		return nil
	}
	out := make([]ServerBin, len(sv.maxJobs))
	for i, m := range sv.maxJobs {
		out[i].MaxJobs = m
		if class >= 0 && class < len(sv.overflows) && i < len(sv.overflows[class]) {
			out[i].Overflows = sv.overflows[class][i]
		}
	}
	return out
}

// advance fixes the occupancy at the start of every bin that starts
// before the exact instant t, before an event at t: events come in
// non-decreasing order of their instants, so that every event at or
// before such a start has been made.
func (sv *Server) advance(t exact.Rat) {
	if sv.bin <= 0 {
		return
	}
	last := sv.binOf(t) // the bins up to last start at or before t
	for sv.fixed <= last && sv.fixed < MaxBins && exact.Int(int64(sv.fixed)*int64(sv.bin)).Cmp(t) < 0 {
		sv.recordJobs(sv.fixed)
		sv.fixed++
	}
}

// binOf returns floor(t/bin) = floor(floor(t)/bin) for t >= 0.
func (sv *Server) binOf(t exact.Rat) int64 { return t.Floor().Int64() / int64(sv.bin) }

// recordJobs raises bin i's maximum to the jobs in the system now.
func (sv *Server) recordJobs(i int64) {
	if i < 0 || i >= MaxBins {
		return
	}
	for int64(len(sv.maxJobs)) <= i {
		sv.maxJobs = append(sv.maxJobs, 0)
	}
	sv.maxJobs[i] = max(sv.maxJobs[i], len(sv.system))
}

// recordOverflow counts an overflow of class at t in its bin.
func (sv *Server) recordOverflow(t exact.Rat, class int) {
	i := sv.binOf(t)
	if i < 0 || i >= MaxBins {
		return
	}
	sv.recordJobs(i) // the series reaches the bin
	for class >= len(sv.overflows) {
		sv.overflows = append(sv.overflows, nil)
	}
	for int64(len(sv.overflows[class])) <= i {
		sv.overflows[class] = append(sv.overflows[class], 0)
	}
	sv.overflows[class][i]++
}

// ServiceTime returns the exact service time 1/μ in nanoseconds.
func (sv *Server) ServiceTime() exact.Rat { return sv.service }

// LastDeparture returns the instant the last job accepted leaves, rounded
// up to the nanosecond (0 before any job).
func (sv *Server) LastDeparture() engine.Time {
	c := sv.last.Ceil()
	if !c.IsInt64() {
		return engine.Forever
	}
	return engine.Time(c.Int64())
}

// Arrive sends the server a job of the given class (>= 0) arriving at the
// exact instant at, in nanoseconds. It panics if at <= s.Now() - 1 ns.
func (sv *Server) Arrive(s *engine.Sim, at exact.Rat, class int) {
	sv.send(s, arrival{at: at, class: class})
}

func (sv *Server) send(s *engine.Sim, a arrival) {
	now := s.Now()
	if a.at.Cmp(exact.Int(int64(now)-1)) <= 0 {
		panic(fmt.Sprintf("clients: Server.Arrive at %v ns with Now() = %v s: arrival sent late", a.at, now))
	}
	if a.class < 0 {
		panic(fmt.Sprintf("clients: Server.Arrive with class %d < 0", a.class))
	}
	sv.commit(exact.Int(int64(now) - 1))
	a.seq = sv.seq
	sv.pending.Push(a)
	sv.seq++
}

// Stats returns the counts of class as of s.Now(): arrivals committed
// so far and departures at or before Now().
//
// The jobs departing in (Now() - 1 ns, Now()] are counted without
// leaving the system: an arrival in that interval may still be sent, and
// must find them there.
func (sv *Server) Stats(s *engine.Sim, class int) ServerStats {
	now := int64(s.Now())
	sv.commit(exact.Int(now - 1))
	sv.depart(exact.Int(now - 1))
	st := sv.classStats(class)
	for _, j := range sv.system {
		if j.depart.Cmp(exact.Int(now)) > 0 {
			break
		}
		if j.class == class {
			st.Departed++
			st.QueueDelay = addRat(st.QueueDelay, j.delay)
			if j.delay.Cmp(st.MaxQueueDelay) > 0 {
				st.MaxQueueDelay = j.delay
			}
		}
	}
	return st
}

// Flush commits every arrival sent and lets every accepted job depart,
// for the end of a run; the Server must not be sent arrivals afterwards.
func (sv *Server) Flush() {
	for sv.pending.Len() > 0 {
		sv.admit(sv.pending.Pop())
	}
	for len(sv.system) > 0 {
		sv.leave()
	}
}

// Final returns the counts of class after [Server.Flush].
func (sv *Server) Final(class int) ServerStats { return sv.classStats(class) }

// Classes returns 1 + the largest class seen.
func (sv *Server) Classes() int { return len(sv.stats) }

func (sv *Server) classStats(class int) ServerStats {
	if class < 0 || class >= len(sv.stats) {
		return ServerStats{}
	}
	return sv.stats[class]
}

// commit decides every pending arrival at or before t, in order.
func (sv *Server) commit(t exact.Rat) {
	for sv.pending.Len() > 0 && sv.pending.Min().at.Cmp(t) <= 0 {
		sv.admit(sv.pending.Pop())
	}
}

// admit decides one arrival: the departures at or before it happen first.
func (sv *Server) admit(a arrival) {
	sv.depart(a.at)
	sv.advance(a.at)
	st := sv.class(a.class)
	st.Arrived++
	// The system holds the job in service and those waiting.
	if len(sv.system) > sv.buffer {
		st.Overflows++
		if sv.bin > 0 {
			sv.recordOverflow(a.at, a.class)
		}
		if a.tagged {
			sv.gate.lost(a.id)
		}
		return
	}
	start := a.at
	if len(sv.system) > 0 && sv.last.Cmp(start) > 0 {
		start = sv.last
	}
	d := addRat(start, sv.service)
	delay := subRat(start, a.at)
	sv.last = d
	sv.system = append(sv.system, inSystem{depart: d, delay: delay, class: a.class})
	if sv.bin > 0 {
		sv.recordJobs(sv.binOf(a.at))
	}
	if a.tagged {
		sv.gate.served(a.id, d)
	}
}

// depart records the departures at or before t.
func (sv *Server) depart(t exact.Rat) {
	for len(sv.system) > 0 && sv.system[0].depart.Cmp(t) <= 0 {
		sv.leave()
	}
}

func (sv *Server) leave() {
	j := sv.system[0]
	sv.advance(j.depart)
	sv.system = sv.system[1:]
	if sv.bin > 0 && len(sv.system) == 0 {
		// The series reaches the bin of the last departure.
		sv.recordJobs(sv.binOf(j.depart))
	}
	st := sv.class(j.class)
	st.Departed++
	st.QueueDelay = addRat(st.QueueDelay, j.delay)
	if j.delay.Cmp(st.MaxQueueDelay) > 0 {
		st.MaxQueueDelay = j.delay
	}
}

func (sv *Server) class(c int) *ServerStats {
	for c >= len(sv.stats) {
		sv.stats = append(sv.stats, ServerStats{})
	}
	return &sv.stats[c]
}

// arrival is a job sent to the server and not yet committed.
type arrival struct {
	at     exact.Rat
	seq    uint64
	class  int
	tagged bool  // the Gate waits for its outcome
	id     int64 // the Gate's id of the job, when tagged
}

// arrivalBefore orders pending arrivals by (at, seq).
func arrivalBefore(a, b arrival) bool {
	if c := a.at.Cmp(b.at); c != 0 {
		return c < 0
	}
	return a.seq < b.seq
}
