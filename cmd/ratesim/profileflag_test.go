package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// profilesOut is the part of ratesim limiters --json the profile and
// downstream tests read.
type profilesOut struct {
	Limiters []struct {
		Name     string `json:"limiter"`
		Params   string `json:"params"`
		Profile  bool   `json:"profile"`
		Admitted int64  `json:"admitted"`
		Rejected int64  `json:"rejected"`
		Delayed  int64  `json:"delayed"`
		Delay    *struct {
			Mean float64 `json:"mean_delay_s"`
			Max  float64 `json:"max_delay_s"`
		} `json:"delay"`
		Downstream *struct {
			ArrivalCurve    string `json:"arrival_curve"`
			ArrivalCurveDNC string `json:"arrival_curve_dnc"`
			ServiceCurveDNC string `json:"service_curve_dnc"`
			Conforms        bool   `json:"conforms"`
			Violation       *struct {
				Jobs  int     `json:"jobs"`
				From  float64 `json:"from_s"`
				To    float64 `json:"to_s"`
				Bound float64 `json:"bound_jobs"`
			} `json:"violation"`
			MaxDelay     string `json:"max_delay_s_exact"`
			DelayBound   string `json:"delay_bound_s_exact"`
			MaxBacklog   int    `json:"max_backlog_jobs"`
			BacklogBound int64  `json:"backlog_bound_jobs"`
			BacklogExact string `json:"backlog_bound_exact"`
		} `json:"downstream"`
	} `json:"limiters"`
}

func profilesRun(t *testing.T, args ...string) profilesOut {
	t.Helper()
	out, errOut, code := ratesim(t, append([]string{"limiters", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res profilesOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return res
}

// TestLimitersProfilesEightAtOnce offers eight requests at t = 0
// (testdata/eight_at_zero.csv) to library profiles of rate 10/s and burst
// 5, and checks each library's convention, worked out from its source
// (see the profiles package):
//   - nginx burst=5: the first request passes (excess 0), five are
//     accepted with excess 1000..5000 and delayed 100, 200, ..., 500 ms,
//     two get 503: admitted 6, delayed 5, mean delay 1.5 s / 6 = 0.25 s,
//     max 0.5 s (the example);
//   - nginx burst=5,nodelay: the same six pass at once;
//   - throttled max_burst=5: max_burst + 1 = 6 back to back;
//   - redis-rate burst=5 at the 2017 origin (where float64 is exact
//     enough): exactly 5; xrate burst=5: a full bucket, 5.
func TestLimitersProfilesEightAtOnce(t *testing.T) {
	res := profilesRun(t, "--trace", "testdata/eight_at_zero.csv", "--durations", "0",
		"--profile", "nginx:rate=10r/s,burst=5",
		"--profile", "throttled:max_rate=10,max_burst=5",
		"--profile", "redis-rate:rate=10,burst=5,origin=1483228800",
		"--profile", "xrate:limit=10,burst=5")
	want := []struct {
		name                       string
		admitted, rejected, delays int64
		mean, max                  float64
	}{
		{"nginx", 6, 2, 5, 0.25, 0.5},
		{"throttled", 6, 2, 0, 0, 0},
		{"redis-rate", 5, 3, 0, 0, 0},
		{"xrate", 5, 3, 0, 0, 0},
	}
	if len(res.Limiters) != len(want) {
		t.Fatalf("%d limiters, want %d (the profiles alone)", len(res.Limiters), len(want))
	}
	for i, w := range want {
		l := res.Limiters[i]
		if l.Name != w.name || !l.Profile || l.Admitted != w.admitted || l.Rejected != w.rejected || l.Delayed != w.delays {
			t.Errorf("limiter %d: %s profile=%v admitted %d rejected %d delayed %d, want %s admitted %d rejected %d delayed %d",
				i, l.Name, l.Profile, l.Admitted, l.Rejected, l.Delayed, w.name, w.admitted, w.rejected, w.delays)
		}
		if l.Delay == nil || !near(l.Delay.Mean, w.mean, 1e-12) || !near(l.Delay.Max, w.max, 1e-12) {
			t.Errorf("%s: delay %+v, want mean %v s, max %v s", w.name, l.Delay, w.mean, w.max)
		}
	}
	if p := res.Limiters[0].Params; p != "nginx:rate=10r/s,burst=5" {
		t.Errorf("nginx params %q, want its canonical spec", p)
	}

	nd := profilesRun(t, "--trace", "testdata/eight_at_zero.csv", "--durations", "0", "--profile", "nginx:rate=10r/s,burst=5,nodelay")
	if l := nd.Limiters[0]; l.Admitted != 6 || l.Delayed != 0 {
		t.Errorf("nginx nodelay: admitted %d delayed %d, want 6 at once", l.Admitted, l.Delayed)
	}
}

// TestLimitersProfilesWithFamily runs a profile beside the family's
// token-police with --limiters: both rows, the family's first.
func TestLimitersProfilesWithFamily(t *testing.T) {
	res := profilesRun(t, "--trace", "testdata/eight_at_zero.csv", "--durations", "0", "--rate", "10", "--limit", "5",
		"--limiters", "token-police", "--profile", "throttled:max_rate=10,max_burst=5")
	if len(res.Limiters) != 2 || res.Limiters[0].Name != "token-police" || res.Limiters[0].Admitted != 5 || res.Limiters[1].Admitted != 6 {
		t.Errorf("limiters %+v, want token-police admitting 5 then throttled admitting 6", res.Limiters)
	}
}

// TestLimitersDownstreamGreedy is the network-calculus example:
// a token bucket of burst 4 and rate 1 into a rate-latency server of rate
// 3 and latency 3 s. The greedy source (4 jobs at 0, then one a second,
// testdata/greedy_b4_r1.csv) passes the policing bucket whole. The four
// jobs at 0 reach the server at 3 s and leave at 3 + 1/3, 3 + 2/3, 4 and
// 4 + 1/3 s: the fourth waits 13/3 s = T + b/R, the bound. At 3 s, before
// the first departure, the jobs of 0, 1, 2 and 3 s are all in: a backlog
// of 7 = b + r·T, the bound.
func TestLimitersDownstreamGreedy(t *testing.T) {
	res := profilesRun(t, "--trace", "testdata/greedy_b4_r1.csv", "--durations", "0", "--rate", "1", "--limit", "4",
		"--limiters", "token-police,token-shape", "--service-rate", "3", "--service-latency", "3s")
	for _, l := range res.Limiters {
		d := l.Downstream
		if d == nil {
			t.Fatalf("%s: no downstream result", l.Name)
		}
		if !d.Conforms || d.Violation != nil || d.MaxDelay != "13/3" || d.DelayBound != "13/3" || d.MaxBacklog != 7 || d.BacklogBound != 7 || d.BacklogExact != "7" {
			t.Errorf("%s: downstream %+v, want conforming, max delay = bound = 13/3 s, backlog = bound = 7", l.Name, d)
		}
		if d.ArrivalCurveDNC != "AC{(0,0),0;!(0,4),1}" || d.ServiceCurveDNC != "SC{(0,0),0;!(3,0),3}" {
			t.Errorf("%s: DiscoDNC curves %q, %q", l.Name, d.ArrivalCurveDNC, d.ServiceCurveDNC)
		}
	}
}

// TestLimitersDownstreamBrokenPromise: throttled with max_burst=5 lets 6
// of eight simultaneous requests through, one more than the promise
// γ(10, 5) allows at d = 0 (5 jobs, plus the 1 ns slack of 1e-8 jobs).
// Into a server of rate 10 and no latency the sixth leaves at 0.6 s, past
// the bound h = 5/10 s, and the backlog reaches 6 > ceil(v) = 5.
func TestLimitersDownstreamBrokenPromise(t *testing.T) {
	res := profilesRun(t, "--trace", "testdata/eight_at_zero.csv", "--durations", "0", "--rate", "10", "--limit", "5",
		"--profile", "throttled:max_rate=10,max_burst=5", "--service-rate", "10")
	d := res.Limiters[0].Downstream
	if d == nil || d.Conforms || d.Violation == nil || d.Violation.Jobs != 6 || d.Violation.From != 0 || d.Violation.To != 0 || !near(d.Violation.Bound, 5, 1e-6) {
		t.Fatalf("downstream %+v, want a violation of 6 jobs at 0 s against 5", d)
	}
	if d.MaxDelay != "0.6" || d.DelayBound != "0.5" || d.MaxBacklog != 6 || d.BacklogBound != 5 {
		t.Errorf("downstream %+v, want max delay 3/5 s over the bound 1/2 s, backlog 6 over 5", d)
	}
	out, _, code := ratesim(t, "limiters", "--trace", "testdata/eight_at_zero.csv", "--durations", "0", "--rate", "10", "--limit", "5",
		"--profile", "throttled:max_rate=10,max_burst=5", "--service-rate", "10")
	if code != 0 || !strings.Contains(out, "throttled        breaks its promise: 6 jobs in [0, 0] s, where α allows 5") {
		t.Errorf("exit %d, table:\n%s", code, out)
	}
}

// TestLimitersProfileErrors checks that bad --profile and downstream
// flags exit 2 with an error naming the flag, the bad value and what
// fits.
func TestLimitersProfileErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"--profile", "ngnx:burst=1"}, []string{`--profile "ngnx:burst=1"`, `unknown profile "ngnx"`, "xrate, guava-bursty", "srtcm, trtcm"}},
		{[]string{"--profile", "nginx:brust=5"}, []string{`--profile "nginx:brust=5"`, `unknown key "brust"`, "nginx keys: rate (", "burst (requests", "nodelay (a flag)"}},
		{[]string{"--profile", "nginx:burst=-1"}, []string{`burst="-1"`, "want an integer", "nginx keys: rate"}},
		{[]string{"--profile", "xrate:call=maybe"}, []string{`call="maybe"`, "allow, reserve, wait", "xrate keys: limit (events/s, default 10)"}},
		{[]string{"--profile", "xrate:limit"}, []string{`key "limit" needs a value`, "xrate keys:"}},
		{[]string{"--profile", "xrate", "--service-rate", "1"}, []string{"--service-rate 1", ">= --rate 5/3"}},
		{[]string{"--profile", "xrate", "--service-rate", "x"}, []string{"--service-rate x", "jobs/s"}},
		{[]string{"--profile", "xrate", "--service-latency", "1"}, []string{"--service-latency applies with --service-rate only"}},
		{[]string{"--profile", "xrate", "--service-rate", "2", "--service-latency", "-1"}, []string{"--service-latency -1", ">= 0 s"}},
		{[]string{"--profile", "xrate", "--service-rate", "2", "--service-latency", "1/3"}, []string{"--service-latency 1/3", "whole number of nanoseconds"}},
		{[]string{"--trace", "testdata/keyed.csv", "--key-col", "2", "--service-rate", "2"}, []string{"--service-rate applies to unkeyed runs only"}},
	} {
		out, errOut, code := ratesim(t, append([]string{"limiters"}, c.args...)...)
		if code != exitUsage || out != "" {
			t.Errorf("%v: exit %d, stdout %q, want exit 2 and no output", c.args, code, out)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("%v: stderr %q lacks %q", c.args, errOut, w)
			}
		}
	}
}

// TestLimitersProfileHelp: the help lists every profile of the registry
// with its keys.
func TestLimitersProfileHelp(t *testing.T) {
	out, _, _ := ratesim(t, "limiters", "--help")
	for _, w := range []string{"xrate: limit, burst, call, max_wait", "nginx: rate, burst, delay, nodelay", "guava-warmup: permits_per_second", "--service-rate"} {
		if !strings.Contains(out, w) {
			t.Errorf("help lacks %q", w)
		}
	}
}
