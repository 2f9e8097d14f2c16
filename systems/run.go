package systems

import (
	"context"
	"io"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
)

// A Source yields jobs in arrival order. Next returns io.EOF at the end;
// any other error ends the run. The ID of the jobs it returns is ignored:
// the driver numbers jobs 0, 1, 2, ... in arrival order.
type Source interface {
	Next() (Job, error)
}

// A BatchSource is a [Source] that can also hand over several jobs at a
// time, which saves a call per job on the fast path: NextBatch fills a
// prefix of dst and returns its length, > 0, or 0 and an error (io.EOF at
// the end). Jobs come in the order Next would give them.
type BatchSource interface {
	Source
	NextBatch(dst []Job) (int, error)
}

// fill fills a prefix of buf from src, through NextBatch when bs (src as
// a BatchSource) is not nil, and returns its length, or 0 and an error
// (io.EOF at the end).
func fill(src Source, bs BatchSource, buf []Job) (int, error) {
	if bs != nil {
		n, err := bs.NextBatch(buf)
		if n == 0 && err == nil {
			err = io.ErrNoProgress
		}
		return n, err
	}
	j, err := src.Next()
	if err != nil {
		return 0, err
	}
	buf[0] = j
	return 1, nil
}

// An Observer sees every decision and every release of a run, in time
// order: Decided for each job and side (0 for system A, 1 for B), at its
// arrival; Released when a queued job is released, at the release's
// instant on the clock (the exact instant, the job's arrival plus
// r.Wait, rounded up to the nanosecond). A job with a Delay verdict is
// never Released: its wait is in its decision.
type Observer interface {
	Decided(j Job, side, node int, d buckets.Decision) error
	Released(side, node int, at engine.Time, r buckets.Released) error
}

// Run drives p with the jobs of src on the fast path: a plain loop that
// makes the releases due before each arrival (none, for first-come
// first-served token buckets) and offers the arrival. When every node is
// a first-come first-served shaping token bucket and obs is a
// [FastObserver], it skips decisions altogether: each job's waits come
// straight from the buckets' Lindley updates, as exact integers. It stops after max
// jobs (0: at the end of src), makes every remaining release, finishes the
// check, and returns the number of jobs offered. It checks ctx every 4096
// jobs and returns ctx.Err() when it is cancelled.
func Run(ctx context.Context, p *Pair, src Source, max int64, obs Observer) (int64, error) {
	if fo, ok := obs.(FastObserver); ok {
		if one, subs, ok := fastPair(p); ok {
			return runFast(ctx, p, src, max, fo, one, subs)
		}
	}
	var n int64
	for max == 0 || n < max {
		if n&4095 == 0 && ctx.Err() != nil {
			return n, ctx.Err()
		}
		j, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return n, err
		}
		if err := releaseUntil(p, j.T, obs); err != nil {
			return n, err
		}
		j.ID = n
		o, err := p.Offer(j)
		if err != nil {
			return n, err
		}
		n++
		if err := obs.Decided(j, 0, o.NodeA, o.A); err != nil {
			return n, err
		}
		if err := obs.Decided(j, 1, o.NodeB, o.B); err != nil {
			return n, err
		}
	}
	if err := releaseUntil(p, engine.Forever-1, obs); err != nil {
		return n, err
	}
	return n, p.Finish()
}

func releaseUntil(p *Pair, t engine.Time, obs Observer) error {
	for at := p.Next(); at <= t; at = p.Next() {
		side, node, r := p.Release()
		if err := obs.Released(side, node, at, r); err != nil {
			return err
		}
	}
	return nil
}
