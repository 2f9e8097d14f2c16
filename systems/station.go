package systems

import (
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// releaseTimer keeps one release event pending on a Sim for a model with
// Next() (a System or a Pair): when Next() moves earlier, a new event is
// scheduled under a new generation, and the event of an older generation
// is skipped when it fires (lazy cancellation).
type releaseTimer struct {
	gen int
	at  engine.Time // the pending event's instant, engine.Forever if none
}

// arm schedules an event for h at next if it is earlier than the pending
// one. It returns the generation to pass as the event's argument.
func (rt *releaseTimer) arm(sim *engine.Sim, h engine.Handler, next engine.Time) {
	if next >= rt.at {
		return // nothing to do, or the pending event comes first
	}
	rt.gen++
	rt.at = next
	sim.SchedulePriority(next, PriorityRelease, h, rt.gen)
}

// fired reports whether the event with argument gen is the pending one,
// and clears it.
func (rt *releaseTimer) fired(gen int) bool {
	if gen != rt.gen {
		return false
	}
	rt.at = engine.Forever
	return true
}

// Station puts one system on an engine.Sim for components that offer jobs
// at simulated instants and react to the decisions: a client that retries
// after a rejection, a downstream stage. Offer decides at once; the
// releases of queued jobs become events, reported to the station's
// release callback at their instants.
//
// The zero value is not usable; create one with [NewStation].
type Station struct {
	sim       *engine.Sim
	sys       *System
	timer     releaseTimer
	onRelease func(node int, r buckets.Released)
	jobs      int64
}

// NewStation returns a station of sys on sim. onRelease (which may be nil)
// is called for each queued job released, at its release instant.
func NewStation(sim *engine.Sim, sys *System, onRelease func(node int, r buckets.Released)) *Station {
	return &Station{sim: sim, sys: sys, timer: releaseTimer{at: engine.Forever}, onRelease: onRelease}
}

// System returns the station's system.
func (st *Station) System() *System { return st.sys }

// Offer decides job j at the current instant of the simulation: j.T is
// set to sim.Now() and j.ID to the number of jobs offered before it.
// Releases due at or before now are made first (tokens due are granted
// before an arrival at the same instant). Errors are those of
// [System.Offer].
func (st *Station) Offer(j Job) (int, buckets.Decision, error) {
	now := st.sim.Now()
	st.releaseUntil(now)
	j.T, j.ID = now, st.jobs
	l, d, err := st.sys.Offer(j)
	if err != nil {
		return l, d, err
	}
	st.jobs++
	st.timer.arm(st.sim, st, st.sys.Next())
	return l, d, nil
}

func (st *Station) releaseUntil(t engine.Time) {
	for st.sys.Next() <= t {
		l, r := st.sys.Release()
		if st.onRelease != nil {
			st.onRelease(l, r)
		}
	}
}

// Handle makes the releases due at now (the station's own events).
func (st *Station) Handle(_ *engine.Sim, now engine.Time, gen int) {
	if !st.timer.fired(gen) {
		return
	}
	st.releaseUntil(now)
	st.timer.arm(st.sim, st, st.sys.Next())
}
