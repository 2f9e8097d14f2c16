package systems

import (
	"context"
	"fmt"
	"io"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// A FastObserver is an [Observer] that also takes a job's waits as exact
// integers, so that [Run] can use its fast path: Waits is called once per
// job, in arrival order, with the node of system B it went to and its
// waits in A and in B in units of 1/scale ns (0 when it did not wait).
type FastObserver interface {
	Observer
	Waits(j Job, node int, scale int64, waitA, waitB exact.Int128) error
}

// fastPair returns the token buckets of p when Run can take its fast path:
// every node of both systems a first-come first-served shaping token
// bucket with an unbounded queue, all in one scale. Then no job is ever
// queued or rejected, a job's waits are known at its arrival (eq. (1)),
// and Run needs neither decisions nor releases.
func fastPair(p *Pair) (one *buckets.TokenBucket, subs []*buckets.TokenBucket, ok bool) {
	if len(p.A.tbs) != 1 || len(p.B.tbs) == 0 {
		return nil, nil, false
	}
	one, subs = p.A.tbs[0], p.B.tbs
	for _, b := range append([]*buckets.TokenBucket{one}, subs...) {
		if !b.FastFCFS() || b.Scale() != one.Scale() {
			return nil, nil, false
		}
	}
	return one, subs, true
}

// runFast is Run for a pair that fastPair accepts and an observer that
// takes waits as integers. It makes, per job, the same calls to the model
// as the general path (the check's Advance and Arrived, each bucket's
// Lindley update), without building decisions.
func runFast(ctx context.Context, p *Pair, src Source, max int64, obs FastObserver, one *buckets.TokenBucket, subs []*buckets.TokenBucket) (int64, error) {
	scale := one.Scale()
	rr, isRR := p.B.disp.(*roundRobin)
	var n int64
	last := engine.Time(0)
	bs, _ := src.(BatchSource)
	buf := make([]Job, 256)
	for max == 0 || n < max {
		if ctx.Err() != nil {
			return n, ctx.Err()
		}
		want := len(buf)
		if max > 0 {
			want = int(min(int64(want), max-n))
		}
		m, err := fill(src, bs, buf[:want])
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		for i := range buf[:m] {
			j := &buf[i]
			if j.T < last {
				return n, &JobError{n, fmt.Errorf("systems: arrival at %v s after one at %v s: %w", j.T, last, ErrOrder)}
			}
			j.ID = n
			var l int
			if isRR {
				l = rr.i
				if rr.i++; rr.i == len(subs) {
					rr.i = 0
				}
			} else if l, err = p.B.disp.Dispatch(*j, p.B.nodes); err != nil {
				return n, &JobError{n, err}
			}
			if p.check != nil {
				p.check.Advance(j.T)
			}
			ts := exact.Mul64(int64(j.T), scale)
			wa, okA := one.AdmitFCFS(j.T, ts)
			wb, okB := subs[l].AdmitFCFS(j.T, ts)
			if !okA || !okB {
				return n, &JobError{n, fmt.Errorf("systems: job %d at %v s would be released beyond the clock's range: %w", j.ID, j.T, ErrOverflow)}
			}
			last = j.T
			n++
			if p.check != nil {
				p.check.Arrived()
			}
			if err := obs.Waits(*j, l, scale, wa, wb); err != nil {
				return n, err
			}
		}
	}
	p.A.last, p.B.last = last, last
	p.A.jobs, p.B.jobs = n, n
	return n, p.Finish()
}
