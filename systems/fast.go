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

// A BatchObserver is a [FastObserver] that also takes the waits of a
// batch of jobs at once, so that [Run] can take its batch path (see
// [TimeSource]): WaitsBatch reports jobs first, first+1, ...,
// first+len(ts)-1, arriving at ts, job first+i dispatched round-robin to
// node (node0 + i) mod k of system B's k, with waits wa[i] and wb[i] in units of 1/scale ns (0 when the job did
// not wait; every wait is below 2^62). Batches come in job order; jobs
// whose waits go through Waits instead (the per-job path) come in order
// between them.
type BatchObserver interface {
	FastObserver
	WaitsBatch(first int64, ts []engine.Time, node0, k int, scale int64, wa, wb []int64) error
}

// A TimeSource is a [Source] of jobs that carry no key, hash or trace
// column (Key 0, Hash 0, Sub -1), which can hand over their arrival
// instants alone, a batch at a time. NextTimes fills a prefix of dst and
// returns its length; with an error (io.EOF at the end) the instants
// before it are still jobs to run. It gives the instants Next would give.
type TimeSource interface {
	Source
	NextTimes(dst []engine.Time) (int, error)
}

// batchJobs is the number of arrivals the batch path takes at a time (a
// variable for tests).
var batchJobs = 1024

// runBatch is Run for a pair that fastPair accepts with round-robin
// dispatch, a source of instants and an observer of batches. Per batch, it
// admits the jobs to each bucket on int64 (buckets.TokenBucket's
// AdmitFCFSBatch), asks the check whether the batch's interval is
// certified as a whole (Check.batchCertified), and reports the waits in
// one call. When the check must look inside the interval, or the batch
// has instants out of order or too far for int64, the buckets are put
// back and the batch goes through the per-job path (step, which reports
// instants out of order), which makes
// exactly the calls runFast makes: the same waits, the same check.
func runBatch(ctx context.Context, p *Pair, src TimeSource, max int64, obs BatchObserver, one *buckets.TokenBucket, subs []*buckets.TokenBucket, rr *roundRobin) (int64, error) {
	scale := one.Scale()
	k := len(subs)
	times := make([]engine.Time, batchJobs)
	wa, wb := make([]int64, batchJobs), make([]int64, batchJobs)
	saved := make([]buckets.FCFSState, k+1)
	var pre batchPre
	f := fastRun{p: p, obs: obs, one: one, subs: subs, rr: rr, isRR: true, scale: scale}
	for max == 0 || f.n < max {
		if ctx.Err() != nil {
			return f.n, ctx.Err()
		}
		want := batchJobs
		if max > 0 {
			want = int(min(int64(want), max-f.n))
		}
		m, srcErr := src.NextTimes(times[:want])
		if m == 0 {
			if srcErr == nil {
				srcErr = io.ErrNoProgress
			}
			if srcErr == io.EOF {
				break
			}
			return f.n, srcErr
		}
		batch := times[:m]
		done := false
		{
			if p.check != nil {
				p.check.batchStart(&pre)
			}
			saved[0] = one.SaveFCFS()
			for l, b := range subs {
				saved[l+1] = b.SaveFCFS()
			}
			r0 := rr.i
			if k <= buckets.RoundRobinMax {
				done = buckets.AdmitRoundRobinFCFS(one, subs, r0, batch, wa, wb)
			} else {
				done = one.AdmitFCFSBatch(batch, 0, 1, wa)
				for l := 0; l < k && done; l++ {
					done = subs[l].AdmitFCFSBatch(batch, (l-r0+k)%k, k, wb)
				}
			}
			done = done && (p.check == nil || p.check.batchCertified(&pre, batch[m-1], int64(m)))
			if done {
				rr.i = (r0 + m) % k
				if err := obs.WaitsBatch(f.n, batch, r0, k, scale, wa[:m], wb[:m]); err != nil {
					return f.n, err
				}
				f.n += int64(m)
				f.last = batch[m-1]
			} else {
				one.RestoreFCFS(saved[0])
				for l, b := range subs {
					b.RestoreFCFS(saved[l+1])
				}
			}
		}
		if !done {
			for _, t := range batch {
				j := Job{T: t, Sub: -1}
				if err := f.step(&j); err != nil {
					return f.n, err
				}
			}
		}
		if srcErr == io.EOF {
			break
		}
		if srcErr != nil {
			return f.n, srcErr
		}
	}
	p.A.last, p.B.last = f.last, f.last
	p.A.jobs, p.B.jobs = f.n, f.n
	return f.n, p.Finish()
}

// fastRun is the per-job state of runFast and runBatch.
type fastRun struct {
	p     *Pair
	obs   FastObserver
	one   *buckets.TokenBucket
	subs  []*buckets.TokenBucket
	rr    *roundRobin
	isRR  bool
	scale int64
	n     int64
	last  engine.Time
}

// step runs job j (its ID set here) through both systems and the check
// and reports its waits.
func (f *fastRun) step(j *Job) error {
	if j.T < f.last {
		return &JobError{f.n, fmt.Errorf("systems: arrival at %v s after one at %v s: %w", j.T, f.last, ErrOrder)}
	}
	j.ID = f.n
	var l int
	if f.isRR {
		l = f.rr.i
		if f.rr.i++; f.rr.i == len(f.subs) {
			f.rr.i = 0
		}
	} else {
		var err error
		if l, err = f.p.B.disp.Dispatch(*j, f.p.B.nodes); err != nil {
			return &JobError{f.n, err}
		}
	}
	if f.p.check != nil {
		f.p.check.Advance(j.T)
	}
	ts := exact.Mul64(int64(j.T), f.scale)
	wa, okA := f.one.AdmitFCFS(j.T, ts)
	wb, okB := f.subs[l].AdmitFCFS(j.T, ts)
	if !okA || !okB {
		return &JobError{f.n, fmt.Errorf("systems: job %d at %v s would be released beyond the clock's range: %w", j.ID, j.T, ErrOverflow)}
	}
	f.last = j.T
	f.n++
	if f.p.check != nil {
		f.p.check.Arrived()
	}
	return f.obs.Waits(*j, l, f.scale, wa, wb)
}

// runFast is Run for a pair that fastPair accepts and an observer that
// takes waits as integers. It makes, per job, the same calls to the model
// as the general path (the check's Advance and Arrived, each bucket's
// Lindley update), without building decisions.
func runFast(ctx context.Context, p *Pair, src Source, max int64, obs FastObserver, one *buckets.TokenBucket, subs []*buckets.TokenBucket) (int64, error) {
	rr, isRR := p.B.disp.(*roundRobin)
	if ts, ok := src.(TimeSource); ok && isRR {
		if bo, ok := obs.(BatchObserver); ok {
			return runBatch(ctx, p, ts, max, bo, one, subs, rr)
		}
	}
	f := fastRun{p: p, obs: obs, one: one, subs: subs, rr: rr, isRR: isRR, scale: one.Scale()}
	bs, _ := src.(BatchSource)
	buf := make([]Job, 256)
	for max == 0 || f.n < max {
		if ctx.Err() != nil {
			return f.n, ctx.Err()
		}
		want := len(buf)
		if max > 0 {
			want = int(min(int64(want), max-f.n))
		}
		m, err := fill(src, bs, buf[:want])
		if err == io.EOF {
			break
		}
		if err != nil {
			return f.n, err
		}
		for i := range buf[:m] {
			if err := f.step(&buf[i]); err != nil {
				return f.n, err
			}
		}
	}
	p.A.last, p.B.last = f.last, f.last
	p.A.jobs, p.B.jobs = f.n, f.n
	return f.n, p.Finish()
}
