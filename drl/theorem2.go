package drl

import (
	"fmt"
	"maps"
	"slices"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// Theorem2NA returns why the check of Theorem 2 (R. Guérin, "When Two is
// Worse Than One", 2019: S(t) <= S^(k)(t) at every instant, with Lemma 1)
// does not apply to the design of s, or "" when it does. The theorem is
// about a split of token buckets (r_l, b_l) with Σ r_l = R and Σ b_l = B,
// each fed its own jobs and shaping them: of the designs, only the static
// split without scale events is one. The others are named with the
// hypothesis they break.
func Theorem2NA(s Spec) string {
	d, ok := Lookup(s.Design)
	if !ok {
		return "not a split of token buckets"
	}
	return d.Theorem2NA(s)
}

// Theorem2 is the outcome of the check of Theorem 2 and Lemma 1 on every
// key: the one bucket (R, B) of the key against its sub-buckets, one per
// node that has seen the key (an idle sub-bucket adds nothing to either
// side, so this is the check of the whole split), each by
// systems.Check, exactly.
type Theorem2 struct {
	Applies bool
	NA      string // why it does not apply (see Theorem2NA)
	Keys    int    // keys checked
	// Violations and LemmaViolations add up the keys' counts of evaluated
	// instants at which S(t) > S^(k)(t) and r·U(t) > Σ r_l·U_l(t).
	Violations, LemmaViolations uint64
	// First is the earliest violation over the keys, and FirstKey its key.
	First    *systems.Violation
	FirstKey uint64
}

// String is "held", "violated at t = ... s (key ...)" or "n/a (why)".
func (t Theorem2) String() string {
	switch {
	case !t.Applies:
		return "n/a (" + t.NA + ")"
	case t.First == nil:
		return "held"
	case t.First.Lemma:
		return fmt.Sprintf("violated (Lemma 1) at t = %.9g s, key %d", t.First.At.QuoFloat64(1e9), t.FirstKey)
	}
	return fmt.Sprintf("violated at t = %.9g s, key %d", t.First.At.QuoFloat64(1e9), t.FirstKey)
}

// checker runs the check of Theorem 2 alongside a design: per key, a
// buckets.TokenBucket for the one bucket and one per node that has seen
// the key, fed the jobs the design sent there, and a systems.Check of
// them. Each sub-bucket's wait must equal the design's own (a check of
// the design's arithmetic by the buckets package's). Memory is one bucket
// per (node, key) pair seen, as the design's.
type checker struct {
	one, sub buckets.Params
	scale    int64
	keys     map[uint64]*keyCheck
}

type keyCheck struct {
	one  *buckets.TokenBucket
	subs map[int]*buckets.TokenBucket
	chk  *systems.Check
}

// newChecker returns a checker of the one bucket one against sub-buckets
// sub (one per node), in units of scale.
func newChecker(one, sub buckets.Params, scale int64) *checker {
	return &checker{one: one, sub: sub, scale: scale, keys: map[uint64]*keyCheck{}}
}

// offer records that job j, at node l, waited wait units in the design.
func (c *checker) offer(l int, j systems.Job, wait exact.Int128) error {
	k := c.keys[j.Key]
	var err error
	bucket := func(p buckets.Params) *buckets.TokenBucket {
		b, e := buckets.NewTokenBucket(p, buckets.WithScale(c.scale))
		if e != nil {
			err = e
		}
		return b
	}
	if k == nil {
		k = &keyCheck{one: bucket(c.one), subs: map[int]*buckets.TokenBucket{l: bucket(c.sub)}}
		if err != nil {
			return err
		}
		if k.chk, err = systems.NewCheck(k.one, []*buckets.TokenBucket{k.subs[l]}); err != nil {
			return err
		}
		c.keys[j.Key] = k
	}
	k.chk.Advance(j.T)
	b := k.subs[l]
	if b == nil {
		if b = bucket(c.sub); err != nil {
			return err
		}
		if err := k.chk.Add(b); err != nil {
			return err
		}
		k.subs[l] = b
	}
	ts := exact.Mul64(int64(j.T), c.scale)
	k.one.AdmitFCFS(j.T, ts)
	w, ok := b.AdmitFCFS(j.T, ts)
	if !ok || w != wait {
		return fmt.Errorf("drl: the check of Theorem 2 finds a wait of %v units at node %d, the design %v", w, l, wait)
	}
	k.chk.Arrived()
	return nil
}

// result finishes every key's check and adds them up.
func (c *checker) result() Theorem2 {
	t := Theorem2{Applies: true, Keys: len(c.keys)}
	for _, key := range slices.Sorted(maps.Keys(c.keys)) {
		k := c.keys[key]
		k.chk.Finish()
		r := k.chk.Result()
		t.Violations += r.Violations
		t.LemmaViolations += r.LemmaViolations
		if v := r.First; v != nil && (t.First == nil || v.At.Cmp(t.First.At) < 0) {
			t.First, t.FirstKey = v, key
		}
	}
	return t
}
