package drl

import "github.com/ratesim/ratesim/engine"

// callbacks schedules closures on a Sim: the handler of every timed event
// of the designs (store requests, timers, messages). Slots are reused, so
// memory is proportional to the events pending, not to those run.
type callbacks struct {
	fns  []func(now engine.Time)
	free []int
}

// at runs f at instant t.
func (c *callbacks) at(sim *engine.Sim, t engine.Time, f func(now engine.Time)) {
	var i int
	if n := len(c.free); n > 0 {
		i, c.free = c.free[n-1], c.free[:n-1]
		c.fns[i] = f
	} else {
		i = len(c.fns)
		c.fns = append(c.fns, f)
	}
	sim.Schedule(t, c, i)
}

// Handle implements engine.Handler.
func (c *callbacks) Handle(_ *engine.Sim, now engine.Time, i int) {
	f := c.fns[i]
	c.fns[i] = nil
	c.free = append(c.free, i)
	f(now)
}

// addSat returns t + d, saturating below engine.Forever.
func addSat(t, d engine.Time) engine.Time {
	if d >= engine.Forever-t {
		return engine.Forever - 1
	}
	return t + d
}
