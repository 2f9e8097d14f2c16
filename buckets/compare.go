package buckets

import (
	"errors"
	"fmt"
	"math"
)

// OneBucket is the sub-bucket index that a [Recorder] is given for the
// one-bucket system.
const OneBucket = -1

// An Observer receives every job's dispatch and delays from a
// [Comparison]. [Recorder] is the float64 form.
type Observer[T Number] interface {
	// Arrived reports that job j was sent to sub-bucket sub.
	Arrived(j Arrival[T], sub int)
	// Served reports job id's delay in seconds in the one-bucket system
	// (sub == OneBucket) or in sub-bucket sub of the split system. Delays
	// of jobs that did not wait are reported at their arrival; the others
	// when they receive their token, so the order of ids is not monotone
	// across calls.
	Served(id int64, sub int, delay T)
}

// ErrOrder is wrapped by the error [Compare.Arrive] returns for an arrival
// earlier than the previous one.
var ErrOrder = errors.New("arrivals out of order")

// Comparison runs a one-bucket system (r, b) and a split system of k
// sub-buckets (r_l, b_l) on the same arrivals and checks Theorem 2 and
// Lemma 1 at every event of either system (see [Check]).
//
// It is the fast path of ratesim: it needs no event queue, because each
// bucket's grants happen at instants it computes itself ([TokenBucket.NextGrant]);
// Compare merges the k + 2 event streams (arrivals, the one bucket's grants,
// each sub-bucket's grants) in time order. At equal instants the order is:
// the one bucket's grant, then sub-bucket grants by index, then the arrival.
// Each arrival or grant costs O(k) (a scan for the earliest sub-bucket grant
// and the Lemma 1 sum).
//
// [Compare] is the float64 form; a Comparison[Tick] of exact buckets checks
// with no tolerance (see [NewExactComparison]). The zero value is not
// usable; create one with [NewCompare] or [NewExactComparison].
type Comparison[T Number] struct {
	one   *Bucket[T]
	subs  []*Bucket[T]
	disp  Dispatch[T]
	rec   Observer[T]
	check *Checker[T]
	now   T
	jobs  int64
	nk    int       // Σ N_l
	bOne  float64   // b/r of the one bucket, seconds
	bSubs []float64 // b_l/r_l, seconds
}

// NewCompare returns a comparison of one against the split system subs with
// dispatch policy disp, reporting to rec (which may be nil). The buckets must
// be new (no arrivals yet) and distinct. Unless allowUnequal, the split must
// satisfy the theorem's hypotheses (see [ValidateSplit]).
func NewCompare(one *TokenBucket, subs []*TokenBucket, disp Dispatcher, rec Recorder, allowUnequal bool) (*Compare, error) {
	return newComparison(one, subs, disp, rec, allowUnequal)
}

func newComparison[T Number](one *Bucket[T], subs []*Bucket[T], disp Dispatch[T], rec Observer[T], allowUnequal bool) (*Comparison[T], error) {
	ps := make([]Params, len(subs))
	rate := 0.0
	for l, s := range subs {
		ps[l] = s.p
		rate += s.p.Rate
	}
	if err := ValidateSplit(one.p, ps, allowUnequal); err != nil {
		return nil, err
	}
	if disp == nil {
		return nil, fmt.Errorf("buckets: NewCompare needs a dispatch policy")
	}
	c := &Comparison[T]{
		one:   one,
		subs:  subs,
		disp:  disp,
		rec:   rec,
		check: NewChecker[T](math.Max(rate, one.p.Rate)),
		bOne:  one.p.Burst / one.p.Rate,
		bSubs: make([]float64, len(subs)),
	}
	for l, s := range subs {
		c.bSubs[l] = s.p.Burst / s.p.Rate
	}
	return c, nil
}

// Check returns the event-by-event check.
func (c *Comparison[T]) Check() *Checker[T] { return c.check }

// Jobs returns the number of arrivals so far.
func (c *Comparison[T]) Jobs() int64 { return c.jobs }

// Now returns the instant of the last event processed, seconds.
func (c *Comparison[T]) Now() T { return c.now }

// One returns the one-bucket system.
func (c *Comparison[T]) One() *Bucket[T] { return c.one }

// Subs returns the sub-buckets of the split system.
func (c *Comparison[T]) Subs() []*Bucket[T] { return c.subs }

// Arrive processes every grant due at or before j.T, then the arrival of a
// job at j.T with key j.Key and input sub-bucket j.Sub; j.ID is ignored and
// replaced by the job's number. It returns an error wrapping [ErrOrder] if
// j.T is NaN or earlier than the previous arrival, the dispatcher's error if
// it cannot place the job, and an error wrapping [ErrOverflow] if a grant
// instant would overflow. On error the job is not admitted and
// no arrival is recorded (grants due by j.T have still been made: they are
// the passing of time, not part of the arrival).
func (c *Comparison[T]) Arrive(j Arrival[T]) error {
	if !(j.T >= c.now) || j.T >= c.one.never {
		return fmt.Errorf("buckets: arrival at %v s after an event at %v s: %w", j.T, c.now, ErrOrder)
	}
	c.advance(j.T)
	j.ID = c.jobs
	l, err := c.disp.Dispatch(j, c.subs)
	if err != nil {
		return err
	}
	if !c.one.Admissible(j.T) || !c.subs[l].Admissible(j.T) {
		return fmt.Errorf("buckets: arrival at %v: %w; the rate is too small for this many waiting jobs", j.T, ErrOverflow)
	}
	c.jobs++
	c.now = j.T
	if c.rec != nil {
		c.rec.Arrived(j, l)
	}
	if !c.one.Arrive(j.T, j.ID) && c.rec != nil {
		c.rec.Served(j.ID, OneBucket, 0)
	}
	if c.subs[l].Arrive(j.T, j.ID) {
		c.nk++
	} else if c.rec != nil {
		c.rec.Served(j.ID, l, 0)
	}
	c.observe()
	return nil
}

// Finish makes every remaining grant, so that every job has been served and
// S, S^(k) are the total delays of the two systems.
func (c *Comparison[T]) Finish() { c.advance(c.one.never) }

// advance makes, in time order, every grant due at or before limit.
func (c *Comparison[T]) advance(limit T) {
	for {
		l, tk := -1, c.one.never
		for i, s := range c.subs {
			if s.next < tk {
				l, tk = i, s.next
			}
		}
		t1 := c.one.next
		if t1 <= tk {
			if t1 > limit || t1 == c.one.never {
				return
			}
			id, at, d := c.one.Grant()
			c.check.Grant(at, c.bOne)
			c.now = at
			if c.rec != nil {
				c.rec.Served(id, OneBucket, d)
			}
		} else {
			if tk > limit {
				return
			}
			id, at, d := c.subs[l].Grant()
			c.nk--
			c.check.Grant(at, c.bSubs[l])
			c.now = at
			if c.rec != nil {
				c.rec.Served(id, l, d)
			}
		}
		c.observe()
	}
}

// observe runs the check at the current instant.
func (c *Comparison[T]) observe() {
	t := c.now
	var ws T
	for _, s := range c.subs {
		ws += s.Work(t)
	}
	c.check.Observe(t, c.one.Waiting(), c.nk, c.one.Work(t), ws)
}
