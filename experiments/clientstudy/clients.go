package clientstudy

import (
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"math"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/limiterstudy"
	"github.com/ratesim/ratesim/profiles"
)

// ClientsSpec describes one run of reacting clients (package clients)
// against one limiter: a member of the limiter family with the matched
// parameters of Limits, or a library profile.
type ClientsSpec struct {
	// Limiter names a member of LimiterNames, built with the parameters
	// of Limits (its Rate, Limit, Window, Queue, Soft and Hard); "" when
	// Profile is set.
	Limiter string
	Limits  limiterstudy.Params
	Profile *profiles.Profile
	// Remote, if not nil, builds the limiter instead: one whose answers
	// may come late, such as a distributed design of package drl (built
	// by the caller: experiments does not import drl), given the
	// absolute instant of the run's t = 0 (ns since the Unix epoch: a
	// trace's first arrival; 0 for generated arrivals), so that its fixed
	// windows follow the trace's clock. RemoteName and RemoteParams
	// describe it.
	Remote                   func(origin int64) (clients.Remote, error)
	RemoteName, RemoteParams string
	// Scenario is the clients, server and backfill; its Arrivals are
	// taken from the process given to RunClients (nil for closed-loop
	// users only) and its Seed is the run's seed.
	Scenario clients.Scenario
	MaxJobs  int64 // open-loop requests read from the process; 0 means all
	// Offered is the open-loop request rate, requests/s, where the
	// caller knows it (a generated process's mean rate); 0 measures it
	// as (n - 1) requests over the span of their instants.
	Offered float64
	Input   string // describes the arrivals, for captions
	// Overload, if not nil, runs the clients against servers that can
	// collapse instead of the limiter (see [ClientsParams.overload]); its
	// Arrivals, Retry, Bin and Seed are taken from Scenario and the
	// process. Recovery is its recovery rule (Bin set from Scenario).
	Overload *clients.Overload
	Recovery clients.Recovery
}

// NewLimiter returns a fresh limiter of s: the profile's, or the family
// member's, whose random draws (the throttle's) come from
// clients.Stream(seed, 0, 0, clients.StreamLimiter).
func (s ClientsSpec) NewLimiter() (buckets.Limiter, error) {
	if s.Profile != nil {
		return s.Profile.New(), nil
	}
	if err := s.Limits.Validate(); err != nil {
		return nil, err
	}
	return limiterstudy.NewLimiter(s.Limiter, s.Limits, clients.Stream(s.Scenario.Seed, 0, 0, clients.StreamLimiter))
}

// LimiterParams describes the limiter of s for humans: a profile's
// canonical spec, or the family member's parameters.
func (s ClientsSpec) LimiterParams() string {
	if s.Remote != nil {
		return s.RemoteParams
	}
	if s.Profile != nil {
		return s.Profile.String()
	}
	return s.Limits.Describe(s.Limiter)
}

// ClientSummary is clients.Summary with units in its JSON keys.
//
// Successes (JSON "admitted") counts the attempts the limiter let pass.
// Without a downstream server each is a request's success. With one
// (Served and ServedRate set) a request succeeds when the server has served
// it: Served (JSON "served") counts those, and an attempt the limiter
// admitted but the server's full buffer lost was retried by the client's
// policy, so that a request may be admitted more than once. The latencies
// run from a request's arrival to its success: its admission, or with a
// server the end of its service.
type ClientSummary struct {
	Requests           int64           `json:"requests"` // original requests
	Attempts           int64           `json:"attempts"` // offers to the limiter, retries included
	Successes          int64           `json:"admitted"` // attempts the limiter let pass
	Served             *int64          `json:"served,omitempty"`
	GiveUps            int64           `json:"give_ups"`
	NoRetry            int64           `json:"give_ups_no_retry,omitempty"` // of GiveUps, told that no retry would pass (no latency)
	Amplification      experiments.Num `json:"retry_amplification"`         // attempts per original request
	AttemptsPerSuccess experiments.Num `json:"attempts_per_admitted"`       // attempts (give-ups' included) per admitted attempt
	Goodput            float64         `json:"admitted_per_s"`              // admitted attempts per second over [first request, last end]
	// ServedRate is Served per second over the same span as Goodput, the
	// goodput with a server; with a server only.
	ServedRate  *float64 `json:"served_per_s,omitempty"`
	Drain       float64  `json:"drain_s"`        // first request to the last end (success or give-up)
	MeanLatency float64  `json:"mean_latency_s"` // arrival to success (admission; with a server, service), successes only
	P50Latency  float64  `json:"p50_latency_s"`
	P99Latency  float64  `json:"p99_latency_s"`
	MaxLatency  float64  `json:"max_latency_s"`
	// With servers that can collapse only (ratesim clients --service).
	*OverloadSummary
}

// serve makes s the summary of a population whose successes were served
// downstream, admitted the attempts the server saw arrive.
func (s *ClientSummary) serve(admitted int64) {
	served, rate := s.Successes, s.Goodput
	s.Served, s.ServedRate = &served, &rate
	s.Successes = admitted
	s.AttemptsPerSuccess = experiments.Num(float64(s.Attempts) / float64(admitted))
	s.Goodput = 0
	if s.Drain > 0 {
		s.Goodput = float64(admitted) / s.Drain
	}
}

func clientSummary(s clients.Summary) ClientSummary {
	return ClientSummary{Requests: s.Requests, Attempts: s.Attempts, Successes: s.Successes, GiveUps: s.GiveUps, NoRetry: s.NoRetry,
		Amplification: experiments.Num(s.Amplification), AttemptsPerSuccess: experiments.Num(s.AttemptsPerSuccess), Goodput: s.Goodput, Drain: s.Drain,
		MeanLatency: s.MeanLatency, P50Latency: s.P50Latency, P99Latency: s.P99Latency, MaxLatency: s.MaxLatency}
}

// ClientBin is one bin of time of a population's series.
type ClientBin struct {
	Start     float64 `json:"start_s"`
	Requests  int64   `json:"requests"`
	Attempts  int64   `json:"attempts"`
	Successes int64   `json:"admitted"` // requests that succeeded in the bin: passed the limiter, or with a server were served
	GiveUps   int64   `json:"give_ups"`
	// Amplification is the attempts per request made in the bin; NaN
	// (JSON null) in a bin without new requests, where retries alone make
	// the ratio infinite or 0/0 (JSON has no infinity).
	Amplification experiments.Num `json:"retry_amplification"`
	Goodput       float64         `json:"admitted_per_s"`
	// With a downstream server only (absent from JSON otherwise):
	// DownstreamOverflows is the population's jobs that reached the
	// server in the bin and were lost to its full buffer; DownstreamMaxJobs
	// the largest number of jobs at the server (in service and waiting,
	// every class) at any instant of the bin, those carried in at its
	// start included: at most the buffer + 1.
	DownstreamOverflows *int64 `json:"downstream_overflows,omitempty"`
	DownstreamMaxJobs   *int   `json:"downstream_max_jobs,omitempty"`
	// With servers that can collapse only (ratesim clients --service).
	*OverloadBinJSON
}

func clientBins(bins []clients.Bin, width engine.Time) []ClientBin {
	var out []ClientBin
	for _, b := range bins {
		cb := ClientBin{Start: b.Start.Seconds(), Requests: b.Requests, Attempts: b.Attempts, Successes: b.Successes,
			GiveUps: b.GiveUps, Amplification: finiteOrNaN(b.Amplification()), Goodput: b.Goodput(width)}
		if b.Server != nil {
			over, jobs := b.Server.Overflows, b.Server.MaxJobs
			cb.DownstreamOverflows, cb.DownstreamMaxJobs = &over, &jobs
		}
		out = append(out, cb)
	}
	return out
}

// finiteOrNaN returns x, or NaN (JSON null) when x is infinite.
func finiteOrNaN(x float64) experiments.Num {
	if math.IsInf(x, 0) {
		return experiments.Num(math.NaN())
	}
	return experiments.Num(x)
}

// ServerClass is what the downstream server did with one class of jobs.
type ServerClass struct {
	Class         string  `json:"class"` // "foreground" or "backfill"
	Arrived       int64   `json:"arrived"`
	Overflows     int64   `json:"overflows"` // lost to a full buffer
	Departed      int64   `json:"departed"`
	MeanQueue     float64 `json:"mean_queue_delay_s"`
	MaxQueue      float64 `json:"max_queue_delay_s"`
	MaxQueueExact string  `json:"max_queue_delay_s_exact"`
}

// BackfillControl is one decision of the backfill's controller.
type BackfillControl struct {
	At       float64 `json:"at_s"`
	Latency  float64 `json:"live_queue_delay_s"` // the live class's mean queueing delay over the interval
	Over     bool    `json:"over_target"`
	Fraction float64 `json:"fraction"` // of capacity, from At on
}

// ClientsResult is the outcome of [RunClients].
type ClientsResult struct {
	Spec             ClientsSpec   `json:"-"`
	Limiter          string        `json:"limiter"`
	Params           string        `json:"limiter_params"`
	Offered          float64       `json:"offered_requests_per_s"` // open-loop requests per second over their span (0 for one instant)
	Foreground       ClientSummary `json:"foreground"`
	ForegroundSeries []ClientBin   `json:"foreground_series,omitempty"`
	// Latencies holds the latency of every foreground success (first
	// attempt to success), seconds, in the order of success: the data of
	// the latency figure, not written to JSON.
	Latencies      []float64         `json:"-"`
	Backfill       *ClientSummary    `json:"backfill,omitempty"`
	BackfillSeries []ClientBin       `json:"backfill_series,omitempty"`
	Controls       []BackfillControl `json:"backfill_controls,omitempty"`
	Downstream     []ServerClass     `json:"downstream,omitempty"`
	End            float64           `json:"end_s"` // instant of the last event, the downstream server's last departure included
}

// RunClients runs the clients of spec against a fresh limiter of spec, the
// open-loop requests read from proc (nil for none). Errors: an invalid
// spec or scenario, an error from proc (naming the file and line for
// traces), arrivals out of order (wrapping [ErrInput]), or ctx.Err()
// when ctx is cancelled before the run starts.
func RunClients(ctx context.Context, spec ClientsSpec, proc arrivals.Process) (*ClientsResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// Fixed windows follow a trace's clock, edges at Offset + k·W from the
	// Unix epoch, as in RunLimiters; generated arrivals keep t = 0 as
	// their epoch.
	var origin int64
	var fromTrace bool
	if proc != nil {
		origin, fromTrace, proc = arrivals.PeekOrigin(proc)
	}
	if spec.Overload != nil {
		return runOverload(spec, proc)
	}
	var lim clients.Remote
	if spec.Remote != nil {
		r, err := spec.Remote(origin)
		if err != nil {
			return nil, err
		}
		lim = r
	} else {
		if fromTrace {
			spec.Limits.Origin = origin
		}
		l, err := spec.NewLimiter()
		if err != nil {
			return nil, err
		}
		lim = clients.FromLimiter(l)
	}
	sc := spec.Scenario
	var perr error
	var n int64
	var first, last engine.Time
	if proc != nil {
		sc.Arrivals = arrivalSeq(proc, spec.MaxJobs, &perr, &n, &first, &last)
	}
	res, err := clients.RunRemoteContext(ctx, sc, lim)
	if perr != nil {
		return nil, perr
	}
	if err != nil {
		return nil, err
	}
	out := &ClientsResult{Spec: spec, Limiter: spec.Limiter, Params: spec.LimiterParams(), Foreground: clientSummary(res.Foreground),
		ForegroundSeries: clientBins(res.ForegroundSeries, sc.Bin), Latencies: res.ForegroundLatencies, End: res.End.Seconds()}
	switch {
	case spec.Remote != nil:
		out.Limiter, out.Params = spec.RemoteName, spec.RemoteParams
	case spec.Profile != nil:
		out.Limiter = spec.Profile.Name
	}
	if spec.Offered > 0 && n > 0 {
		out.Offered = spec.Offered
	} else if n > 1 && last > first {
		out.Offered = float64(n-1) / (last - first).Seconds()
	}
	out.server(&res, sc)
	return out, nil
}

// server adds the backfill's outcome and what the server saw of each
// class of res, a run of sc, to out.
func (out *ClientsResult) server(res *clients.Result, sc clients.Scenario) {
	if sc.Backfill != nil {
		b := clientSummary(res.Backfill)
		out.Backfill = &b
		out.BackfillSeries = clientBins(res.BackfillSeries, sc.Bin)
		for _, c := range res.Controls {
			out.Controls = append(out.Controls, BackfillControl{At: c.At.Seconds(), Latency: c.Latency, Over: c.Over, Fraction: c.Fraction})
		}
	}
	for class, st := range res.Server {
		name := fmt.Sprintf("class %d", class)
		switch {
		case class == sc.Retry.Class:
			name = "foreground"
		case sc.Backfill != nil && class == sc.Backfill.Class:
			name = "backfill"
		}
		mq, _ := st.MaxQueueDelay.Quo(exact.Int(1e9))
		switch name {
		case "foreground":
			out.Foreground.serve(st.Arrived)
		case "backfill":
			out.Backfill.serve(st.Arrived)
		}
		out.Downstream = append(out.Downstream, ServerClass{Class: name, Arrived: st.Arrived, Overflows: st.Overflows, Departed: st.Departed,
			MeanQueue: st.MeanQueueDelay(), MaxQueue: mq.Float64(), MaxQueueExact: mq.String()})
	}
}

// arrivalSeq reads the instants of proc as a sequence, at most max (0:
// all), keeping the first error in *perr and counting them in *n, with the
// first and last instants.
func arrivalSeq(proc arrivals.Process, max int64, perr *error, n *int64, first, last *engine.Time) iter.Seq[engine.Time] {
	return func(yield func(engine.Time) bool) {
		for max == 0 || *n < max {
			a, err := proc.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				*perr = err
				return
			}
			if a.T < 0 || *n > 0 && a.T < *last {
				src, _ := experiments.NewJobSource(proc)
				*perr = src.WrapArrival(a, fmt.Errorf("experiments: arrival at %v s after one at %v s: %w", a.T, *last, buckets.ErrOrder))
				return
			}
			if *n == 0 {
				*first = a.T
			}
			*last = a.T
			*n++
			if !yield(a.T) {
				return
			}
		}
	}
}
