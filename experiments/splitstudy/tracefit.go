package splitstudy

import (
	"context"
	"errors"
	"io"
	"slices"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
)

// FitTrace fits a spec that reads a trace to that trace, reading it once;
// it does nothing for generated arrivals. A trace study measures the
// whole trace unless told otherwise:
//
//   - with neither jobs nor warmup given, the warm-up is 0 and the
//     measured jobs are the trace's jobs;
//   - with warmup given alone, the measured jobs are the rest of the
//     trace;
//   - with jobs given, they are at most what the trace has after the
//     warm-up (Jobs is lowered to the jobs actually measured, so that
//     every header, CSV row, JSON and caption gives that number).
//
// It also records the trace's mean rate, (n - 1) jobs over the span from
// its first to its last arrival, as the λ of its points ([Point.Lambda]),
// from which the sub-bucket loads of the table, the warnings and the heat
// map are computed.
//
// A key counts as given when the spec file set it (ParseSpec records
// which) or when it is among given (keys set elsewhere, such as command
// line flags: "jobs", "warmup"). Errors: the trace's (naming the file and
// line), a trace with fewer than two arrivals, or a warm-up that leaves no
// job to measure (a *SpecError).
func (s *Spec) FitTrace(ctx context.Context, given ...string) error {
	if s.Trace == nil {
		return nil
	}
	gave := func(key string) bool { return s.given[key] || slices.Contains(given, key) }
	a, err := experiments.BuildArrivals(ctx, experiments.ArrivalsSpec{Trace: s.Trace.Path, TraceOptions: s.Trace.Options()}, s.Seed)
	if err != nil {
		return err
	}
	defer a.Close()
	var n int64
	var first, last engine.Time
	for {
		x, err := a.Process.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return err
		}
		if n == 0 {
			first = x.T
		}
		last = x.T
		n++
	}
	if n < 2 || last <= first {
		return specErr("trace", "%s has %d arrivals over %v s, want at least 2 over a span > 0 (its mean rate sets the loads)", s.Trace.Path, n, last-first)
	}
	if !gave("warmup") {
		s.Warmup = 0
	}
	if s.Warmup >= n {
		return specErr("warmup", "%d, want fewer than the trace's %d jobs", s.Warmup, n)
	}
	if !gave("jobs") || s.Jobs > n-s.Warmup {
		s.Jobs = n - s.Warmup
	}
	s.traceJobs = n
	s.traceLambda = float64(n-1) / (last - first).Seconds()
	return nil
}
