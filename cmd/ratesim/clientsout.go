package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments/clientstudy"
)

// clientsJSON is the --json output.
type clientsJSON struct {
	jsonHeader
	Input   string  `json:"input"`
	Seed    uint64  `json:"seed"`
	Backoff string  `json:"backoff"`
	Base    float64 `json:"backoff_base_s"`
	Cap     float64 `json:"backoff_cap_s"`
	MaxAtt  int     `json:"max_attempts"` // 0: no bound
	Deadln  float64 `json:"deadline_s"`   // 0: none
	RetryAf bool    `json:"retry_after"`
	Pace    string  `json:"pace_requests_per_s,omitempty"`
	Server  string  `json:"server_rate_jobs_per_s,omitempty"`
	Buffer  *int    `json:"buffer_jobs,omitempty"`
	Bin     float64 `json:"bin_s"`
	*clientstudy.ClientsResult
	// Design is what a --design did with the attempts (ratesim drl's
	// figures: messages, overshoot, ...).
	Design *drl.Summary `json:"design,omitempty"`
}

func writeClientsJSON(w io.Writer, res *clientstudy.ClientsResult, design *drl.Summary, f *clientsFlags) {
	sc := res.Spec.Scenario
	out := clientsJSON{jsonHeader: newJSONHeader(), Input: res.Spec.Input, Seed: f.p.Seed, Backoff: f.p.Backoff, MaxAtt: sc.Retry.MaxAttempts,
		Deadln: sc.Retry.Deadline.Seconds(), RetryAf: f.p.RetryAfter, Bin: sc.Bin.Seconds(), ClientsResult: res, Design: design}
	out.Base, out.Cap = secondsOf(f.p.Base), secondsOf(f.p.Cap)
	if o := res.Spec.Overload; o != nil {
		// The servers' run retries by its own policy (a budget's, such as
		// the AWS SDK's 3 attempts and backoff).
		out.MaxAtt = o.Retry.MaxAttempts
		if _, ok := o.Retry.Backoff.(clients.AWSBackoff); ok {
			out.Backoff, out.Base, out.Cap = "aws-sdk", 1, 20
		}
	}
	if sc.Pace != nil {
		out.Pace = sc.Pace.Rate.String()
	}
	if sc.Server != nil {
		out.Server = sc.Server.Rate.String()
		out.Buffer = &sc.Server.Buffer
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(out) // write errors are kept by the errWriter
}

func writeClientsTable(w io.Writer, res *clientstudy.ClientsResult, design *drl.Summary, f *clientsFlags) {
	if res.Foreground.OverloadSummary != nil {
		writeOverloadTable(w, res, f)
		return
	}
	sc := res.Spec.Scenario
	writeClientsHeader(w, res, f)
	fg := res.Foreground
	fmt.Fprintf(w, "\n%-11s %9s %9s %9s %8s %8s %8s %10s %10s %9s %9s %9s %9s\n",
		"", "requests", "attempts", "admitted", "give-ups", "ampl.", "att/adm.", "admitted/s", "drain (s)", "mean (s)", "p50 (s)", "p99 (s)", "max (s)")
	row := func(name string, s clientstudy.ClientSummary) {
		fmt.Fprintf(w, "%-11s %9d %9d %9d %8d %8.3f %8.3f %10.4g %10.4g %9.4g %9.4g %9.4g %9.4g\n", name, s.Requests, s.Attempts, s.Successes, s.GiveUps,
			float64(s.Amplification), float64(s.AttemptsPerSuccess), s.Goodput, s.Drain, s.MeanLatency, s.P50Latency, s.P99Latency, s.MaxLatency)
	}
	row("foreground", fg)
	if res.Backfill != nil {
		row("backfill", *res.Backfill)
	}
	if fg.NoRetry > 0 {
		fmt.Fprintf(w, "no retry   %d of the %d give-ups were refusals the limiter said no retry would ever pass (an infinite wait); they have no latency\n", fg.NoRetry, fg.GiveUps)
	}
	if res.Offered > 0 {
		if fg.ServedRate != nil {
			fmt.Fprintf(w, "\noffered    %.6g requests/s, served %.6g requests/s\n", res.Offered, *fg.ServedRate)
		} else {
			fmt.Fprintf(w, "\noffered    %.6g requests/s, admitted %.6g requests/s\n", res.Offered, fg.Goodput)
		}
	}
	if fg.Served != nil {
		fmt.Fprintf(w, "served     %d of %d requests served downstream (%.6g requests/s over the drain), of %d attempts admitted\n", *fg.Served, fg.Requests, *fg.ServedRate, fg.Successes)
	}
	if d := design; d != nil {
		fmt.Fprintf(w, "design     %d attempts decided, %d admitted; %d messages, %d lost; worst overshoot %.4f (%d jobs in %.4g s, exact over\n",
			d.Jobs, d.Admitted, d.Messages, d.Lost, d.Overshoot, d.OverJobs, d.OverD)
		fmt.Fprintf(w, "           every length; above 1 breaks the promise), excess %.4g jobs (%d jobs in %.4g s); a shaper (R, B) would delay %d\n",
			d.Excess, d.ExcessJobs, d.ExcessD, d.ShaperDelayed)
	}
	if len(res.Downstream) > 0 {
		fmt.Fprintf(w, "\n%-11s %9s %9s %9s %14s %14s\n", "downstream", "arrived", "overflows", "departed", "mean queue (s)", "max queue (s)")
		for _, c := range res.Downstream {
			fmt.Fprintf(w, "%-11s %9d %9d %9d %14.6g %14.6g\n", c.Class, c.Arrived, c.Overflows, c.Departed, c.MeanQueue, c.MaxQueue)
		}
	}
	if n := len(res.Controls); n > 0 {
		c := res.Controls[n-1]
		fmt.Fprintf(w, "backfill   %d control steps; fraction of capacity at the end %.4g\n", n, c.Fraction)
	}
	fmt.Fprintf(w, "\nampl.      retry amplification, attempts per original request; att/adm. attempts per admitted request\n")
	if sc.Server != nil {
		fmt.Fprintf(w, "latency    first attempt to the end of service downstream, served requests only (an attempt lost to the full buffer is retried); give-ups counted apart\n")
	} else {
		fmt.Fprintf(w, "latency    first attempt to admission by the limiter, admitted requests only; give-ups counted apart\n")
	}
}

// writeClientsHeader writes the input, the limiter, the retry policy,
// the pacing and the server of res.
func writeClientsHeader(w io.Writer, res *clientstudy.ClientsResult, f *clientsFlags) {
	sc := res.Spec.Scenario
	fmt.Fprintf(w, "input      %s; seed %d\n", res.Spec.Input, f.p.Seed)
	fmt.Fprintf(w, "limiter    %s: %s\n", res.Limiter, res.Params)
	retry := fmt.Sprintf("backoff %s, base %s, cap %s", f.p.Backoff, f.p.Base, f.p.Cap)
	if f.p.Backoff == "none" {
		retry = "no backoff"
	}
	if f.p.RetryAfter {
		if h, ok := sc.Retry.Backoff.(clients.HonorRetryAfter); ok && h.Spread > 0 {
			retry = fmt.Sprintf("Retry-After plus up to %v s, else %s", h.Spread, retry)
		} else {
			retry = "Retry-After, else " + retry
		}
	}
	if sc.Retry.MaxAttempts > 0 {
		retry += fmt.Sprintf(", at most %d attempts", sc.Retry.MaxAttempts)
	}
	if sc.Retry.Deadline > 0 {
		retry += fmt.Sprintf(", deadline %v s", sc.Retry.Deadline)
	}
	fmt.Fprintf(w, "retry      %s\n", retry)
	if p := sc.Pace; p != nil {
		jit := ""
		if p.Jitter > 0 {
			jit = fmt.Sprintf(", each gap plus up to %v s of jitter", p.Jitter)
		}
		fmt.Fprintf(w, "pacing     at most %v requests/s (gaps >= %v s)%s\n", p.Rate, p.Spacing(), jit)
	}
	if s := sc.Server; s != nil {
		fmt.Fprintf(w, "server     FIFO at %v jobs/s, waiting room %d jobs\n", s.Rate, s.Buffer)
	}
}

// writeOverloadTable writes the human summary of a run against servers
// that can collapse (--service).
func writeOverloadTable(w io.Writer, res *clientstudy.ClientsResult, f *clientsFlags) {
	o := res.Spec.Overload
	fg, os := res.Foreground, res.Foreground.OverloadSummary
	fmt.Fprintf(w, "input      %s; seed %d\n", res.Spec.Input, f.p.Seed)
	fmt.Fprintf(w, "servers    %s\n", res.Params)
	retry := fmt.Sprintf("backoff %s, base %s, cap %s", f.p.Backoff, f.p.Base, f.p.Cap)
	if _, ok := o.Retry.Backoff.(clients.AWSBackoff); ok {
		retry = "the AWS SDK's backoff (uniform on [0, 2^n s) after the n-th failure, cap 20 s)"
	}
	if o.Retry.MaxAttempts > 0 {
		retry += fmt.Sprintf(", at most %d attempts", o.Retry.MaxAttempts)
	}
	fmt.Fprintf(w, "retry      %s\n", retry)
	budget := "none"
	if os.Budget != "" {
		budget = os.Budget
	}
	fmt.Fprintf(w, "budget     %s\n", budget)
	if os.Throttle != "" {
		fmt.Fprintf(w, "throttle   %s\n", os.Throttle)
	}
	if os.Concurrency != "" {
		fmt.Fprintf(w, "limit      %s at each server; %d attempts rejected\n", os.Concurrency, os.Limited)
	}
	fmt.Fprintf(w, "\nrequests %d, succeeded %d, gave up %d; goodput %.4g requests/s over %.4g s\n", fg.Requests, fg.Successes, fg.GiveUps, fg.Goodput, fg.Drain)
	fmt.Fprintf(w, "attempts %d: retries %d, retries denied %d, throttled %d; at the servers %d (work amplification %.4g), timeouts %d, errors %d, served after their timeout %d\n",
		fg.Attempts, os.Retries, os.RetriesDenied, os.Throttled, os.BackendRequests, float64(os.WorkAmplification), os.Timeouts, os.Errors, os.Wasted)
	fmt.Fprintf(w, "latency  mean %.4g s, p50 %.4g s, p99 %.4g s, max %.4g s (successes only)\n", fg.MeanLatency, fg.P50Latency, fg.P99Latency, fg.MaxLatency)
	if os.PreTrigger != nil {
		rec := "did not recover by the end"
		if os.RecoveredAt != nil {
			rec = fmt.Sprintf("recovered at %.4g s", *os.RecoveredAt)
		}
		fmt.Fprintf(w, "recovery goodput before the first fault %.4g requests/s; %s (goodput within 5%% of it, averaged over %.4g s)\n", *os.PreTrigger, rec, os.RecoveryHold)
	}
}

// secondsOf returns a validated time flag in seconds.
func secondsOf(text string) float64 {
	s, _ := parseSeconds("", text)
	return s.Float64()
}
