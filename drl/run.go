package drl

import (
	"context"
	"errors"
	"io"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/systems"
)

// Run offers the jobs of proc (at most max, 0: all) to the design of s and
// returns what it did. Events (round trips, timers, messages) run on an
// engine.Sim; events due at an arrival's instant run before it. It returns
// an error wrapping ErrSpec for an invalid s, the error of proc, or
// ctx.Err() (checked every 4096 jobs).
func Run(ctx context.Context, s Spec, proc arrivals.Process, max int64) (*Result, error) {
	if origin, ok, p := arrivals.PeekOrigin(proc); ok {
		s.Origin, proc = origin, p
	} else {
		proc = p
	}
	d, res, err := start(s)
	if err != nil {
		return nil, err
	}
	if why := Theorem2NA(s); why != "" {
		res.Theorem2 = Theorem2{NA: why}
	} else if c, ok := d.(theorem2Checker); ok {
		if err := c.check(); err != nil {
			return nil, err
		}
	}
	sim := engine.NewSim()
	for max == 0 || res.Jobs < max {
		if res.Jobs%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		a, err := proc.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		sim.RunUntil(a.T)
		if res.Jobs == 0 {
			res.First = a.T
			if res.streams != nil {
				res.streams.first = a.T
			}
		}
		if res.streams != nil {
			res.streams.advance(a.T) // every event before a.T has run
		}
		res.Last = a.T
		j := jobOf(res.Jobs, a)
		res.Jobs++
		if err := d.Offer(sim, j); err != nil {
			return nil, &systems.JobError{ID: j.ID, Err: err}
		}
	}
	sim.Run()
	if f, ok := d.(interface{ finish() }); ok {
		f.finish()
	}
	if res.streams != nil {
		res.streams.finish(res.Last)
		if res.streamErr != nil {
			return nil, res.streamErr
		}
	}
	if c, ok := d.(theorem2Checker); ok && c.checked() {
		res.Theorem2 = c.result()
	}
	return res, nil
}

// theorem2Checker is a model that checks Theorem 2 alongside its run
// when asked (check), where the design's Theorem2NA is "".
type theorem2Checker interface {
	check() error
	checked() bool
	result() Theorem2
}

// jobOf returns the job of arrival a, numbered id.
func jobOf(id int64, a arrivals.Arrival) systems.Job {
	return systems.Job{ID: id, T: a.T, Key: a.Key, Hash: a.Hash, Sub: a.Sub}
}

// start validates s and builds its design and the result it fills (the
// arrival curves measured as the run goes unless s keeps the departures),
// for Run and NewOnline.
func start(s Spec) (Model, *Result, error) {
	if err := s.Validate(); err != nil {
		return nil, nil, err
	}
	u, err := newUnits(s.Bucket)
	if err != nil {
		return nil, nil, err
	}
	res := &Result{Design: s.Design, Scale: u.scale}
	if !s.KeepDepartures {
		res.streams = newStreams(s.Bucket, s.RateWindow)
	}
	d, _ := Lookup(s.Design) // Validate found it
	m, err := d.New(s, &Recorder{res: res, u: u})
	if err != nil {
		return nil, nil, err
	}
	return m, res, nil
}
