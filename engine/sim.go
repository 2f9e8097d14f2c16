package engine

import (
	"fmt"
	"math"
)

// A Handler is a component that reacts to its own events. Handle is called
// with the simulation, the event's instant (equal to s.Now()) and the
// argument the component passed to [Sim.Schedule].
type Handler interface {
	Handle(s *Sim, now Time, arg int)
}

// An Observer is called after every event, with the event that just ran.
// Observers must not schedule events themselves.
type Observer func(ev Event)

// Event is one scheduled occurrence.
type Event struct {
	At       Time    // instant, ns since the origin
	Priority int     // at one instant, lower priorities run first
	Seq      uint64  // insertion sequence number; breaks ties in (At, Priority)
	Handler  Handler // the component that scheduled the event
	Arg      int     // component-defined argument
}

// Sim is a discrete-event simulation: a clock and a queue of pending events
// ordered by (time, priority, insertion sequence). Handlers run one at a time on the
// caller's goroutine.
//
// The zero value is not usable; create one with [NewSim].
type Sim struct {
	now  Time
	seq  uint64
	heap []key // ordered by (At, Priority, Seq); pointer-free, so moving keys costs no GC write barrier
	// calls holds each pending event's handler and argument at its key's
	// slot; free lists the slots of events already run.
	calls     []call
	free      []int32
	observers []Observer
	steps     uint64
}

// key is an event's place in the queue; its handler and argument are in
// Sim.calls[slot].
type key struct {
	at       Time
	priority int
	seq      uint64
	slot     int32
}

// call is what an event runs.
type call struct {
	h   Handler
	arg int
}

// before reports whether k runs before l: earlier instant, then lower
// priority, then earlier sequence number.
func (k *key) before(l *key) bool {
	if k.at != l.at {
		return k.at < l.at
	}
	if k.priority != l.priority {
		return k.priority < l.priority
	}
	return k.seq < l.seq
}

// NewSim returns an empty simulation with its clock at 0.
func NewSim() *Sim { return &Sim{} }

// Now returns the instant of the event being run, or of the last event run
// (0 before any).
func (s *Sim) Now() Time { return s.now }

// Steps returns the number of events run so far.
func (s *Sim) Steps() uint64 { return s.steps }

// Pending returns the number of events scheduled and not yet run.
func (s *Sim) Pending() int { return len(s.heap) }

// Observe adds an observer, called after each event in the order observers
// were added.
func (s *Sim) Observe(o Observer) { s.observers = append(s.observers, o) }

// Schedule arranges for h.Handle(s, at, arg) to run at instant at, with
// priority 0. Events at the same instant and priority run in the order
// they were scheduled. Cost: O(log n), where n is the number of pending
// events.
//
// Panics if at is earlier than Now() or is [Forever]: scheduling into the
// past, or for never, is a programmer error in the component.
func (s *Sim) Schedule(at Time, h Handler, arg int) { s.SchedulePriority(at, 0, h, arg) }

// SchedulePriority is [Sim.Schedule] with a priority: at one instant,
// events of lower priority run first (a model that must release a token
// before it admits an arrival at the same instant schedules releases at a
// lower priority than arrivals).
func (s *Sim) SchedulePriority(at Time, priority int, h Handler, arg int) {
	if at < s.now || at == Forever {
		panic(fmt.Sprintf("engine: Schedule(%v) with Now() = %v", at, s.now))
	}
	var slot int32
	if n := len(s.free); n > 0 {
		slot = s.free[n-1]
		s.free = s.free[:n-1]
		s.calls[slot] = call{h, arg}
	} else {
		if len(s.calls) == math.MaxInt32 {
			panic("engine: more than 2^31 - 1 events pending")
		}
		slot = int32(len(s.calls))
		s.calls = append(s.calls, call{h, arg})
	}
	s.heap = append(s.heap, key{at: at, priority: priority, seq: s.seq, slot: slot})
	s.seq++
	s.up(len(s.heap) - 1)
}

// Peek returns the instant of the next pending event, or [Forever] when none
// is pending.
func (s *Sim) Peek() Time {
	if len(s.heap) == 0 {
		return Forever
	}
	return s.heap[0].at
}

// Step runs the next pending event and then the observers. It returns false,
// doing nothing, when no event is pending. Cost: O(log n).
func (s *Sim) Step() bool {
	n := len(s.heap)
	if n == 0 {
		return false
	}
	k := s.heap[0]
	s.heap[0] = s.heap[n-1]
	s.heap = s.heap[:n-1]
	if n > 1 {
		s.down(0)
	}
	c := s.calls[k.slot]
	s.calls[k.slot] = call{} // let the handler be collected once nothing else holds it
	s.free = append(s.free, k.slot)
	s.now = k.at
	s.steps++
	c.h.Handle(s, k.at, c.arg)
	for _, o := range s.observers {
		o(Event{At: k.at, Priority: k.priority, Seq: k.seq, Handler: c.h, Arg: c.arg})
	}
	return true
}

// Run runs events until none is pending. A model that keeps scheduling
// events forever never returns; use [Sim.RunUntil] for those.
func (s *Sim) Run() {
	for s.Step() {
	}
}

// RunUntil runs every event whose instant is at or before t, then returns.
// Events after t stay pending; Now() is left at the last event run, not
// advanced to t.
func (s *Sim) RunUntil(t Time) {
	for len(s.heap) > 0 && s.heap[0].at <= t {
		s.Step()
	}
}

func (s *Sim) up(i int) {
	h := s.heap
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].before(&h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
}

func (s *Sim) down(i int) {
	h := s.heap
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		j := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			j = r
		}
		if !h[j].before(&h[i]) {
			return
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
