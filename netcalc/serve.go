package netcalc

import (
	"math/big"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// Result is what [RateLatency.Serve] measures.
type Result struct {
	// Departures holds each job's departure instant in seconds since the
	// origin of the input's clock, in the input's order (FIFO), exactly.
	Departures []exact.Rat

	// MaxDelay is the largest departure minus arrival, in seconds, and
	// MaxDelayJob the index of the first job that has it (-1 for no jobs).
	MaxDelay    exact.Rat
	MaxDelayJob int

	// MaxBacklog is the largest number of jobs in the system (arrived at or
	// before t and not departed at or before t, so the job in service
	// counts) over all instants t, and MaxBacklogAt the first instant, in
	// seconds, that has it.
	MaxBacklog   int
	MaxBacklogAt exact.Rat
}

// Serve runs the jobs arriving at the instants ts (nanoseconds since the
// origin, non-decreasing, one unit job each) through the server s: each job
// waits the latency s.Latency, then queues FIFO for a server that takes
// 1/s.Rate seconds per job. Job i departs at
//
//	D_i = max(a_i + T, D_{i−1}) + 1/R
//
// exactly, a_i being its arrival in seconds. The server offers the service
// curve β_{R,T} (a delay element followed by a constant-rate server, Le
// Boudec and Thiran §1.3.1), so the delays are at most [Delay] and the
// backlog at most ceil([Backlog]) for any arrival curve ts conforms to.
//
// Cost: O(n) arithmetic on integers over a common denominator of 1e9, T's
// denominator and R's numerator.
//
// Errors: an invalid s, instants out of order (the error names the index),
// and departures that do not fit an [exact.Rat].
func (s RateLatency) Serve(ts []engine.Time) (Result, error) {
	if err := s.check(); err != nil {
		return Result{}, err
	}
	st, err := nanoStream(ts)
	if err != nil {
		return Result{}, err
	}
	return s.serve(st)
}

// ServeSeconds is [RateLatency.Serve] for exact instants in seconds, such as
// the output of [Greedy] or the departures of another server.
func (s RateLatency) ServeSeconds(ts []exact.Rat) (Result, error) {
	if err := s.check(); err != nil {
		return Result{}, err
	}
	st, err := ratStream(ts)
	if err != nil {
		return Result{}, err
	}
	return s.serve(st)
}

func (s RateLatency) serve(st stream) (Result, error) {
	R, T := s.Rate.Big(), s.Latency.Big()
	// 1/R = R.Denom/R.Num seconds, so R.Num joins the common denominator.
	st = st.rescale(T.Denom(), R.Num())
	L := st.den
	lat := new(big.Int).Mul(T.Num(), new(big.Int).Quo(L, T.Denom()))
	svc := new(big.Int).Mul(R.Denom(), new(big.Int).Quo(L, R.Num()))

	n := len(st.x)
	res := Result{Departures: make([]exact.Rat, n), MaxDelayJob: -1}
	dep := make([]*big.Int, n)
	maxDelay := new(big.Int)
	wait := new(big.Int)
	for i, a := range st.x {
		d := new(big.Int).Add(a, lat)
		if i > 0 && dep[i-1].Cmp(d) > 0 {
			d.Set(dep[i-1])
		}
		dep[i] = d.Add(d, svc)
		if wait.Sub(d, a); res.MaxDelayJob < 0 || wait.Cmp(maxDelay) > 0 {
			maxDelay.Set(wait)
			res.MaxDelayJob = i
		}
	}
	// The backlog rises only at arrivals: after the last job of each
	// instant, count the departures at or before it (FIFO, so a prefix).
	maxAt := new(big.Int)
	departed := 0
	for i, a := range st.x {
		if i+1 < n && st.x[i+1].Cmp(a) == 0 {
			continue
		}
		for departed < n && dep[departed].Cmp(a) <= 0 {
			departed++
		}
		if b := i + 1 - departed; b > res.MaxBacklog {
			res.MaxBacklog = b
			maxAt.Set(a)
		}
	}
	var err error
	for i, d := range dep {
		if res.Departures[i], err = st.seconds(d); err != nil {
			return Result{}, err
		}
	}
	if res.MaxDelay, err = st.seconds(maxDelay); err != nil {
		return Result{}, err
	}
	if res.MaxBacklogAt, err = st.seconds(maxAt); err != nil {
		return Result{}, err
	}
	return res, nil
}
