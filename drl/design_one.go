package drl

import (
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/systems"
)

// designOne is the one bucket (R, B) per key: the lower bound of every
// design, and the reference the others are compared with job by job.
type designOne struct{ defaults }

// Reference is the name of the one bucket, the design the others are
// compared with (Summary.OverOne).
const Reference = "one"

func (designOne) Name() string           { return Reference }
func (designOne) LocalBuckets(Spec) bool { return false }
func (designOne) Theorem2NA(Spec) string { return "the one bucket itself" }
func (designOne) Describe(s Spec) string { return modeText(s) }

func (designOne) New(s Spec, r *Recorder) (Model, error) {
	return &one{s: s, u: r.u, res: r.res, keys: map[uint64]*bucketState{}}, nil
}

// one is the one bucket (R, B) per key.
type one struct {
	s    Spec
	u    units
	res  *Result
	keys map[uint64]*bucketState
}

func (o *one) Offer(_ *engine.Sim, j systems.Job) error {
	t := o.u.at(j.T)
	b := o.keys[j.Key]
	if b == nil {
		b = &bucketState{f: t}
		o.keys[j.Key] = b
	}
	if w, ok := b.decide(t, o.u.tau, o.u.beta, o.s.Police); ok {
		o.res.admit(0, j, 0, w)
	} else {
		o.res.reject(0, j)
	}
	return nil
}
