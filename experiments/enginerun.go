package experiments

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// RunEngine does what [Run] does on the general path: every arrival and
// every token grant is an event on an engine.Sim, and the check runs in an
// engine observer after each event. It is slower than Run and exists so
// that models that need an event queue (timers, outages, retries) share the
// same components, and so that the two paths can be cross-checked.
//
// Ties follow Run's convention (grants due at an instant are made before an
// arrival at that instant): the arrival handler first makes any grant still
// due (checking after each, as Run does), and a grant event that finds its
// grant already made only reschedules and is not checked. Each grant event
// makes exactly one grant. So the check sees the same events in the same
// order as on Run, and every figure of the Result is the same.
func RunEngine(ctx context.Context, spec RunSpec, proc arrivals.Process, jobsOut io.Writer) (Result, error) {
	one, subs, disp, err := spec.systems()
	if err != nil {
		return Result{}, err
	}
	rate := 0.0
	for _, p := range spec.Subs {
		rate += p.Rate
	}
	m := &engineModel{
		rec:   newRecorder(jobsOut),
		disp:  disp,
		check: buckets.NewCheck(math.Max(rate, spec.One.Rate)),
		proc:  proc,
		max:   spec.MaxJobs,
		ctx:   ctx,
	}
	m.nodes = append(m.nodes, &grantNode{tb: one, sub: buckets.OneBucket, m: m, pending: engine.Forever})
	for l, s := range subs {
		m.nodes = append(m.nodes, &grantNode{tb: s, sub: l, m: m, pending: engine.Forever})
		m.subs = append(m.subs, s)
	}
	sim := engine.NewSim()
	m.sim = sim
	sim.Observe(func(engine.Event) {
		if !m.stale {
			m.observe(sim.Now())
		}
		m.stale = false
	})
	if err := m.scheduleNext(); err != nil {
		return Result{}, err
	}
	sim.Run()
	if m.err != nil {
		return Result{}, m.err
	}
	if err := m.rec.finish(); err != nil {
		return Result{}, err
	}
	return m.rec.result(m.jobs, sim.Now(), m.check)
}

// engineModel is the one-vs-k comparison as engine components.
type engineModel struct {
	sim   *engine.Sim
	nodes []*grantNode // nodes[0] is the one bucket, nodes[1+l] sub-bucket l
	subs  []*buckets.TokenBucket
	disp  buckets.Dispatcher
	rec   *recorder
	check *buckets.Check
	proc  arrivals.Process
	next  arrivals.Arrival
	jobs  int64
	max   int64
	err   error
	stale bool // the event just run changed nothing: do not check it
	ctx   context.Context
}

// scheduleNext reads the next arrival and schedules it.
func (m *engineModel) scheduleNext() error {
	if m.max > 0 && m.jobs >= m.max {
		return nil
	}
	if m.jobs%4096 == 0 && m.ctx.Err() != nil {
		return m.ctx.Err()
	}
	a, err := m.proc.Next()
	if err == io.EOF {
		return nil
	}
	if err != nil {
		return err
	}
	m.next = a
	m.sim.Schedule(a.T, m, 0)
	return nil
}

// Handle processes the pending arrival.
func (m *engineModel) Handle(s *engine.Sim, now engine.Time, _ int) {
	if m.err != nil {
		return
	}
	m.catchUp(now)
	a := m.next
	j := buckets.Job{ID: m.jobs, T: a.T, Key: a.Key, Sub: a.Sub}
	l, err := m.disp.Dispatch(j, m.subs)
	if err != nil {
		m.fail(inputError(m.proc, a, err))
		return
	}
	if !m.nodes[0].tb.Admissible(now) || !m.subs[l].Admissible(now) {
		m.fail(inputError(m.proc, a, fmt.Errorf("buckets: arrival at %v: %w; the rate is too small for this many waiting jobs", now, buckets.ErrOverflow)))
		return
	}
	m.jobs++
	m.rec.Arrived(j, l)
	for _, n := range []*grantNode{m.nodes[0], m.nodes[1+l]} {
		if !n.tb.Arrive(now, j.ID) {
			m.rec.Served(j.ID, n.sub, 0)
		}
		n.ensureScheduled()
	}
	if m.rec.err != nil {
		m.fail(m.rec.err)
		return
	}
	if err := m.scheduleNext(); err != nil {
		m.fail(err)
	}
}

// catchUp makes, in Run's order, every grant due at or before now that
// still has its event pending behind the arrival at now, checking after
// each.
func (m *engineModel) catchUp(now engine.Time) {
	for {
		var due *grantNode
		for _, n := range m.nodes { // the one bucket first, then by index
			if n.tb.NextGrant() <= now && (due == nil || n.tb.NextGrant() < due.tb.NextGrant()) {
				due = n
			}
		}
		if due == nil {
			return
		}
		due.grant()
		m.observe(now)
	}
}

// fail records the first error; the remaining events drain without effect.
func (m *engineModel) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

func (m *engineModel) observe(t engine.Time) {
	if m.err != nil {
		return
	}
	nk := 0
	var ws engine.Time
	for _, s := range m.subs {
		nk += s.Waiting()
		ws += s.Work(t)
	}
	one := m.nodes[0].tb
	m.check.Observe(t, one.Waiting(), nk, one.Work(t), ws)
}

// grantNode is the engine component that makes one bucket's grants.
type grantNode struct {
	tb      *buckets.TokenBucket
	sub     int
	m       *engineModel
	pending engine.Time // instant of this node's pending event, or Forever
}

// Handle makes the grant due now, if an arrival's catch-up has not made it
// already, and schedules the next one.
func (n *grantNode) Handle(s *engine.Sim, now engine.Time, _ int) {
	n.pending = engine.Forever
	if n.tb.NextGrant() <= now {
		n.grant()
	} else {
		n.m.stale = true
	}
	n.ensureScheduled()
}

// grant makes the bucket's next grant and records it.
func (n *grantNode) grant() {
	id, at, d := n.tb.Grant()
	p := n.tb.Params()
	n.m.check.Grant(at, p.Burst/p.Rate)
	n.m.rec.Served(id, n.sub, d)
}

func (n *grantNode) ensureScheduled() {
	if next := n.tb.NextGrant(); next < engine.Forever && n.pending == engine.Forever {
		n.pending = next
		n.m.sim.Schedule(next, n, 0)
	}
}
