package buckets

import "github.com/ratesim/ratesim/exact"

// LeakyParams describes a leaky bucket used as a queue.
type LeakyParams struct {
	Rate  exact.Rat // R: jobs leave one per 1/R seconds at most, jobs/s; > 0
	Queue int       // the most jobs that may wait, >= 1; 0 means no limit
}

// Validate returns a *ParamError naming the first invalid field, or nil.
func (p LeakyParams) Validate() error {
	if p.Rate.Sign() <= 0 {
		return &ParamError{Name: "leaky bucket rate", Value: p.Rate, Want: "> 0 jobs/s"}
	}
	if p.Queue < 0 {
		return &ParamError{Name: "leaky bucket queue", Value: p.Queue, Want: ">= 1 job, or 0 for no limit"}
	}
	return nil
}

// NewLeakyBucket returns the leaky bucket as a queue: jobs join a FCFS
// queue that drains at exactly one job per interval I = 1/R, so that job
// i, arriving at a_i, leaves at
//
//	D_i = max(a_i, D_{i-1} + I),   D_{-1} = -∞
//
// and waits D_i - a_i; nothing downstream sees two jobs closer than I. A
// job that would wait while p.Queue jobs already wait is rejected. These
// are exactly the decisions of a shaping token bucket (R, 1), which is
// what it returns: a bucket of one token refills in I, and the job that
// finds it empty waits for the previous departure plus I.
//
// Reference: the article "Rate limiting, throttling and pacing" (leaky
// bucket: "requests enter a queue that drains at exactly rate R"); J.
// Turner, "New directions in communications (or which way to the
// information age?)", IEEE Communications Magazine 24(10), 1986.
func NewLeakyBucket(p LeakyParams, opts ...Option) (*TokenBucket, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	if p.Queue > 0 {
		opts = append(opts, WithQueueCapacity(p.Queue))
	}
	return NewTokenBucket(Params{Rate: p.Rate, Burst: exact.Int(1)}, opts...)
}
