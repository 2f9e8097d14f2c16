package systems

import (
	"context"
	"io"

	"github.com/ratesim/ratesim/engine"
)

// Event priorities of [Drive]: at one instant, releases (tokens granted)
// come before arrivals, as on the fast path, so a job arriving exactly
// when a token is due finds it taken by a waiting job.
const (
	PriorityRelease = 0
	PriorityArrival = 1
)

// Drive does what [Run] does with every arrival and every release an
// event on sim, so that the pair runs next to other timed components
// (clients that retry, reconciliation timers). It runs sim until no event
// is left, so the caller's components must stop scheduling eventually. It
// returns the number of jobs offered.
//
// It keeps one pending arrival event and one pending release event, at
// p.Next(); a release event made stale by a later decision (a job queued
// with an earlier release) is skipped by its generation number. Releases
// run before arrivals at one instant ([PriorityRelease]).
func Drive(ctx context.Context, sim *engine.Sim, p *Pair, src Source, max int64, obs Observer) (int64, error) {
	d := &driver{ctx: ctx, sim: sim, p: p, src: src, max: max, obs: obs, timer: releaseTimer{at: engine.Forever}}
	d.fetch()
	sim.Run()
	if d.err != nil {
		return d.n, d.err
	}
	return d.n, p.Finish()
}

type driver struct {
	ctx   context.Context
	sim   *engine.Sim
	p     *Pair
	src   Source
	max   int64
	obs   Observer
	n     int64
	job   Job // the pending arrival
	timer releaseTimer
	err   error
}

const arrivalArg = -1

// fetch reads the next job and schedules its arrival.
func (d *driver) fetch() {
	if d.max > 0 && d.n >= d.max {
		return
	}
	if d.n&4095 == 0 && d.ctx.Err() != nil {
		d.err = d.ctx.Err()
		return
	}
	j, err := d.src.Next()
	if err == io.EOF {
		return
	}
	if err != nil {
		d.err = err
		return
	}
	if j.T < d.sim.Now() {
		// Let System.Offer report the order error with its message.
		d.job = j
		d.arrive(d.sim.Now())
		return
	}
	d.job = j
	d.sim.SchedulePriority(j.T, PriorityArrival, d, arrivalArg)
}

// schedule keeps one release event pending at p.Next().
func (d *driver) schedule() { d.timer.arm(d.sim, d, d.p.Next()) }

func (d *driver) Handle(_ *engine.Sim, now engine.Time, arg int) {
	if d.err != nil {
		return
	}
	if arg == arrivalArg {
		d.arrive(now)
		return
	}
	if !d.timer.fired(arg) {
		return // stale
	}
	for d.err == nil && d.p.Next() <= now {
		side, node, r := d.p.Release()
		d.err = d.obs.Released(side, node, now, r)
	}
	d.schedule()
}

func (d *driver) arrive(now engine.Time) {
	j := d.job
	j.ID = d.n
	o, err := d.p.Offer(j)
	if err != nil {
		d.err = err
		return
	}
	d.n++
	if d.err = d.obs.Decided(j, 0, o.NodeA, o.A); d.err != nil {
		return
	}
	if d.err = d.obs.Decided(j, 1, o.NodeB, o.B); d.err != nil {
		return
	}
	d.schedule()
	d.fetch()
}
