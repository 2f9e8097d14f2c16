package systems

import (
	"fmt"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// System is k limiters of any kind behind a dispatcher: a job offered to
// the system goes to the node the dispatcher picks, which decides it. One
// token bucket is a system of one node; a static split of it into k
// sub-buckets is a system of k token buckets; a split of a GCRA or a
// fixed window across k nodes is the same thing with other limiters.
//
// The zero value is not usable; create one with [New].
type System struct {
	nodes []buckets.Limiter
	tbs   []*buckets.TokenBucket // the nodes when every one is a token bucket: called directly, without interface dispatch
	disp  Dispatcher
	last  engine.Time
	next  engine.Time // min over nodes of Next(), kept up to date
	jobs  int64
}

// New returns a system of the given nodes behind disp. It returns an
// error wrapping buckets.ErrParam when there is no node or no dispatcher.
func New(nodes []buckets.Limiter, disp Dispatcher) (*System, error) {
	if len(nodes) == 0 {
		return nil, &buckets.ParamError{Name: "nodes", Value: 0, Want: ">= 1 limiter"}
	}
	if disp == nil {
		return nil, &buckets.ParamError{Name: "dispatcher", Value: "nil", Want: "a dispatch policy"}
	}
	s := &System{nodes: nodes, disp: disp}
	for _, n := range nodes {
		tb, ok := n.(*buckets.TokenBucket)
		if !ok {
			s.tbs = nil
			break
		}
		s.tbs = append(s.tbs, tb)
	}
	s.refresh()
	return s, nil
}

// Nodes returns the system's limiters, in dispatch order.
func (s *System) Nodes() []buckets.Limiter { return s.nodes }

// Jobs returns the number of jobs offered so far.
func (s *System) Jobs() int64 { return s.jobs }

func (s *System) refresh() {
	s.next = engine.Forever
	for _, n := range s.nodes {
		s.next = min(s.next, n.Next())
	}
}

// Next returns the instant of the earliest internal event of any node (the
// release of a queued job), or engine.Forever.
func (s *System) Next() engine.Time { return s.next }

// Release makes the event due at Next() and returns the node and the job
// it released. Panics if no event is pending.
func (s *System) Release() (node int, r buckets.Released) {
	for l, n := range s.nodes {
		if n.Next() == s.next {
			r = n.Release()
			s.refresh()
			return l, r
		}
	}
	panic("systems: System.Release with no release pending")
}

// Offer dispatches job j and returns the node it went to and that node's
// decision. Releases due at or before j.T must have been made first (see
// Next and Release).
//
// Errors: j.T earlier than an earlier job's (wrapping [ErrOrder]); the
// dispatcher's error; a release instant beyond the clock's range
// (wrapping [ErrOverflow]). On error the job is not offered to any node.
func (s *System) Offer(j Job) (int, buckets.Decision, error) {
	if j.T < s.last {
		return 0, buckets.Decision{}, fmt.Errorf("systems: arrival at %v s after one at %v s: %w", j.T, s.last, ErrOrder)
	}
	if s.next <= j.T {
		panic(fmt.Sprintf("systems: Offer at %v s with a release due at %v s", j.T, s.next))
	}
	l, err := s.disp.Dispatch(j, s.nodes)
	if err != nil {
		return 0, buckets.Decision{}, err
	}
	var d buckets.Decision
	if s.tbs != nil {
		d = s.tbs[l].Offer(j.T, j.ID)
	} else {
		d = s.nodes[l].Offer(j.T, j.ID)
	}
	s.last = j.T
	s.jobs++
	switch d.Verdict {
	case buckets.Delay:
		// The release instant must be on the clock: wait < Forever - t,
		// compared as wait.Num < (Forever - t)·wait.Den without dividing.
		if !d.Wait.Num().Less(exact.Mul64(int64(engine.Forever-j.T), d.Wait.Den())) {
			return l, d, fmt.Errorf("systems: job %d at %v s would be released %v s later, beyond the clock's range: %w", j.ID, j.T, d.WaitSeconds(), ErrOverflow)
		}
	case buckets.Queue:
		s.next = min(s.next, s.nodes[l].Next())
	}
	return l, d, nil
}

// Drained returns an error wrapping [ErrOverflow] if a node still holds a
// queued job whose release is beyond the clock's range (its Next() is
// engine.Forever although it queued a job); nil otherwise. Callers check
// it after making every release.
func (s *System) Drained() error {
	for l, n := range s.nodes {
		if q, ok := n.(interface{ Queued() int }); ok && q.Queued() > 0 && n.Next() == engine.Forever {
			return fmt.Errorf("systems: node %d still holds %d queued jobs released beyond the clock's range: %w", l, q.Queued(), ErrOverflow)
		}
	}
	return nil
}
