package drl

import (
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/systems"
)

// static is the static split: N nodes, each (R/N, B/N) per key, with
// re-splits at the scale events.
type static struct {
	s     Spec
	u     units
	res   *Result
	f     *fleet
	scale []ScaleEvent
	chk   *checker // the check of Theorem 2, or nil
}

// check attaches the check of Theorem 2: the one bucket (R, B) of each
// key against its sub-buckets (R/N, B/N).
func (st *static) check() error {
	n := exact.Int(int64(st.s.Nodes))
	r, err := st.s.Bucket.Rate.Quo(n)
	if err != nil {
		return err
	}
	b, err := st.s.Bucket.Burst.Quo(n)
	if err != nil {
		return err
	}
	st.chk = newChecker(st.s.Bucket, buckets.Params{Rate: r, Burst: b}, st.u.scale)
	return nil
}

func (st *static) checked() bool    { return st.chk != nil }
func (st *static) result() Theorem2 { return st.chk.result() }

func newStatic(s Spec, u units, res *Result) (*static, error) {
	f, err := newFleet(s, u)
	if err != nil {
		return nil, err
	}
	return &static{s: s, u: u, res: res, f: f, scale: s.Static.Scale}, nil
}

func (st *static) Offer(_ *engine.Sim, j systems.Job) error {
	for len(st.scale) > 0 && st.scale[0].At <= j.T {
		if err := st.f.resize(st.scale[0].Nodes, st.u); err != nil {
			return err
		}
		st.scale = st.scale[1:]
	}
	l, err := st.f.dispatch(j)
	if err != nil {
		return err
	}
	t := st.u.at(j.T)
	if w, ok, hint := st.f.local(l, j, t, st.u, st.s.Police); ok {
		st.res.admit(l, j, 0, w)
		if st.chk != nil {
			return st.chk.offer(l, j, w)
		}
	} else {
		st.res.rejectHint(l, j, 0, hint)
	}
	return nil
}
