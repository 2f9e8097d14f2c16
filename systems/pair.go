package systems

import (
	"fmt"
	"math/rand/v2"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// Pair offers the same jobs to two systems, A and B, and compares them:
// one token bucket against its split is the pair the note studies, but A
// and B may be any systems (a central store against a static split, a
// GCRA split across nodes against one GCRA). When both are token-bucket
// systems, a [Check] of Theorem 2 and Lemma 1 is attached.
//
// The zero value is not usable; create one with [NewPair] or [NewSplit].
type Pair struct {
	A, B  *System
	check *Check // nil when no check is attached
}

// NewPair returns a pair of a and b with an optional check (nil for none).
func NewPair(a, b *System, check *Check) *Pair { return &Pair{A: a, B: b, check: check} }

// Check returns the attached check, or nil.
func (p *Pair) Check() *Check { return p.check }

// Outcome is what the two systems decided for one job.
type Outcome struct {
	NodeA, NodeB int              // the node each system sent the job to
	A, B         buckets.Decision // their decisions
}

// Offer offers job j to A and then to B, after the check has verified
// every instant up to j.T. Releases due at or before j.T must have been
// made first ([Pair.Next], [Pair.Release]). On error neither system's
// decision counts (the run must stop).
func (p *Pair) Offer(j Job) (Outcome, error) {
	if p.check != nil {
		p.check.Advance(j.T) // a no-op for an arrival out of order, which A refuses
	}
	var o Outcome
	var err error
	if o.NodeA, o.A, err = p.A.Offer(j); err != nil {
		return o, err
	}
	if o.NodeB, o.B, err = p.B.Offer(j); err != nil {
		return o, err
	}
	if p.check != nil {
		p.check.Arrived()
	}
	return o, nil
}

// Next returns the instant of the earliest release pending in either
// system, or engine.Forever.
func (p *Pair) Next() engine.Time { return min(p.A.Next(), p.B.Next()) }

// Release makes the earliest pending release (A's first at equal
// instants) and returns the side (0 for A, 1 for B), the node and the job.
func (p *Pair) Release() (side, node int, r buckets.Released) {
	if p.A.Next() <= p.B.Next() {
		node, r = p.A.Release()
		return 0, node, r
	}
	node, r = p.B.Release()
	return 1, node, r
}

// Finish is called after the last arrival and every release: it verifies
// the instants after the last arrival and reports a job still queued
// beyond the clock's range.
func (p *Pair) Finish() error {
	if p.check != nil {
		p.check.Finish()
	}
	if err := p.A.Drained(); err != nil {
		return err
	}
	return p.B.Drained()
}

// Random streams of a split pair: stream s of a run with seed S is
// rand.NewPCG(S, s), so each random component has its own stream and
// adding one does not change the draws of the others.
const (
	StreamArrivals = 0 // the arrival process (drawn by the caller)
	StreamDispatch = 1 // random dispatch
	StreamOrder    = 2 // random service order: 2 for the one bucket, 3 + l for sub-bucket l
)

// SplitSpec describes the note's comparison: one token bucket (r, b)
// against k sub-buckets (r_l, b_l) behind a dispatcher.
type SplitSpec struct {
	One          buckets.Params   // the one bucket
	Subs         []buckets.Params // the sub-buckets
	AllowUnequal bool             // lift Σ r_l = r and Σ b_l = b (negative controls)
	Dispatch     string           // a policy of DispatchNames
	Weights      []float64        // traffic weights for "weighted" (nil: the rates)
	Order        buckets.Order    // service order in every bucket
	Seed         uint64           // root seed of the random streams
}

// NewSplit builds the pair of spec: system A is the one bucket, system B
// the sub-buckets behind the dispatcher, all in one exact scale
// ([buckets.CommonScale]), with the check attached. Errors wrap
// buckets.ErrParam.
func NewSplit(spec SplitSpec) (*Pair, error) {
	if err := buckets.ValidateSplit(spec.One, spec.Subs, spec.AllowUnequal); err != nil {
		return nil, err
	}
	scale, err := buckets.CommonScale(append([]buckets.Params{spec.One}, spec.Subs...)...)
	if err != nil {
		return nil, err
	}
	build := func(p buckets.Params, stream uint64) (*buckets.TokenBucket, error) {
		return buckets.NewTokenBucket(p, buckets.WithScale(scale), buckets.WithOrder(spec.Order, rand.NewPCG(spec.Seed, stream)))
	}
	one, err := build(spec.One, StreamOrder)
	if err != nil {
		return nil, err
	}
	subs := make([]*buckets.TokenBucket, len(spec.Subs))
	nodes := make([]buckets.Limiter, len(spec.Subs))
	weights := make([]float64, len(spec.Subs))
	for l, p := range spec.Subs {
		if subs[l], err = build(p, StreamOrder+1+uint64(l)); err != nil {
			return nil, err
		}
		nodes[l] = subs[l]
		weights[l] = p.Rate.Float64()
	}
	if spec.Weights != nil {
		if spec.Dispatch != "weighted" {
			return nil, &buckets.ParamError{Name: "traffic shares", Value: spec.Weights, Want: "dispatch weighted"}
		}
		if len(spec.Weights) != len(spec.Subs) {
			return nil, &buckets.ParamError{Name: "traffic shares", Value: spec.Weights, Want: fmt.Sprintf("%d shares, one per sub-bucket", len(spec.Subs))}
		}
		weights = spec.Weights
	}
	disp, err := NewDispatcher(spec.Dispatch, weights, rand.NewPCG(spec.Seed, StreamDispatch))
	if err != nil {
		return nil, err
	}
	a, err := New([]buckets.Limiter{one}, &roundRobin{})
	if err != nil {
		return nil, err
	}
	b, err := New(nodes, disp)
	if err != nil {
		return nil, err
	}
	chk, err := NewCheck(one, subs)
	if err != nil {
		return nil, err
	}
	return NewPair(a, b, chk), nil
}
