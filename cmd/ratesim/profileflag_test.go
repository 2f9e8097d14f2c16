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

// TestLimitersDownstreamOwnCurve: throttled with max_burst=5 lets 6 of
// eight simultaneous requests through, one more than γ(--rate 10, --limit
// 5) allows, but it is held to its own curve γ(10, max_burst + 1 = 6)
// (profiles.ArrivalCurve), which it keeps. Into a server of rate 10 and no
// latency the sixth leaves at 0.6 s, exactly the bound h = 6/10 s, and the
// backlog reaches 6 = v = 6 + 10·0.
func TestLimitersDownstreamOwnCurve(t *testing.T) {
	res := profilesRun(t, "--trace", "testdata/eight_at_zero.csv", "--durations", "0", "--rate", "10", "--limit", "5",
		"--profile", "throttled:max_rate=10,max_burst=5", "--service-rate", "10")
	d := res.Limiters[0].Downstream
	if d == nil || !d.Conforms || d.Violation != nil || d.ArrivalCurve != "γ(r=10, b=6)" || d.ArrivalCurveDNC != "AC{(0,0),0;!(0,6),10}" {
		t.Fatalf("downstream %+v, want throttled keeping its own curve γ(r=10, b=6)", d)
	}
	if d.MaxDelay != "0.6" || d.DelayBound != "0.6" || d.MaxBacklog != 6 || d.BacklogBound != 6 {
		t.Errorf("downstream %+v, want max delay = bound = 3/5 s, backlog = bound = 6", d)
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

// TestLimitersCurves checks the profiles' arrival curves, by hand:
//   - throttled max_rate=10,max_burst=5: γ(10, max_burst + 1 = 6);
//   - nginx rate=10r/s,burst=5,nodelay: γ(10, 1 + 5 + 10·1 ms = 6.01), the
//     millisecond clock adding 0.01.
//
// With the profiles alone and no --durations, α* is measured at lengths
// up to 4 times the longest b/r of their curves, 6.01/10 = 0.601 s.
func TestLimitersCurves(t *testing.T) {
	out, errOut, code := ratesim(t, "limiters", "--json", "--trace", "testdata/eight_at_zero.csv", "--rate", "40", "--limit", "20",
		"--profile", "throttled:max_rate=10,max_burst=5", "--profile", "nginx:rate=10r/s,burst=5,nodelay")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Curves []struct {
			Name  string `json:"limiter"`
			Curve string `json:"arrival_curve"`
			Rate  string `json:"rate_jobs_per_s_exact"`
			Burst string `json:"burst_jobs_exact"`
		} `json:"profile_curves"`
		Limiters []struct {
			Curve []struct {
				D float64 `json:"d_s"`
			} `json:"arrival_curve"`
		} `json:"limiters"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := []struct{ name, curve, rate, burst string }{
		{"throttled", "γ(r=10, b=6)", "10", "6"},
		{"nginx", "γ(r=10, b=6.01)", "10", "6.01"},
	}
	if len(res.Curves) != len(want) {
		t.Fatalf("%d curves; want %d", len(res.Curves), len(want))
	}
	for i, w := range want {
		c := res.Curves[i]
		if c.Name != w.name || c.Curve != w.curve || c.Rate != w.rate || c.Burst != w.burst {
			t.Errorf("curve %d: %+v, want %+v", i, c, w)
		}
	}
	ds := res.Limiters[0].Curve
	if last := ds[len(ds)-1].D; !near(last, 4*0.601, 1e-9) {
		t.Errorf("longest default length %v s, want 4·0.601 s", last)
	}
}

// TestDRLNodeLimiterFleet: four nodes each running nginx
// rate=10r/s,burst=5,nodelay (α = γ(10, 6.01), as above) add up to the
// fleet-wide 4·α = γ(40, 24.04); eight requests at 0 reach them two by
// two (round robin), and each node admits both.
func TestDRLNodeLimiterFleet(t *testing.T) {
	out, errOut, code := ratesim(t, "drl", "--json", "--designs", "static", "--node-limiter", "nginx:rate=10r/s,burst=5,nodelay", "--nodes", "4",
		"--rate", "40", "--burst", "20", "--police", "--trace", "testdata/eight_at_zero.csv")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Designs []struct {
			Admitted int64
			PerNode  []struct{ Admitted, Rejected int64 } `json:"per_node"`
		} `json:"designs"`
	}
	var raw struct {
		Node struct {
			Params     string  `json:"params"`
			Curve      string  `json:"arrival_curve"`
			Fleet      string  `json:"fleet_arrival_curve"`
			FleetRate  float64 `json:"fleet_rate_jobs_per_s"`
			FleetBurst float64 `json:"fleet_burst_jobs"`
		} `json:"node_limiter"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		t.Fatal(err)
	}
	n := raw.Node
	if n.Params != "nginx:rate=10r/s,burst=5,nodelay" || n.Curve != "γ(r=10, b=6.01)" || n.Fleet != "γ(r=40, b=24.04)" || n.FleetRate != 40 || !near(n.FleetBurst, 24.04, 1e-12) {
		t.Errorf("node limiter %+v; want nginx's γ(r=10, b=6.01) and the fleet's γ(r=40, b=24.04)", n)
	}
	if len(res.Designs) != 1 || res.Designs[0].Admitted != 8 || len(res.Designs[0].PerNode) != 4 {
		t.Fatalf("designs %+v; want static admitting 8 on 4 nodes", res.Designs)
	}
	for i, c := range res.Designs[0].PerNode {
		if c.Admitted != 2 || c.Rejected != 0 {
			t.Errorf("node %d: %+v, want 2 admitted", i, c)
		}
	}
}

// TestLimitersColours offers eight requests at t = 0 to the RFC markers,
// both buckets full:
//   - srtcm cbs=3, ebs=4: 3 green (C), 4 yellow (E), 1 red; yellow is
//     admitted: 7 admitted, 1 rejected;
//   - trtcm pbs=4, cbs=2: 2 green (P and C), 2 yellow (P only), 4 red.
func TestLimitersColours(t *testing.T) {
	out, errOut, code := ratesim(t, "limiters", "--json", "--trace", "testdata/eight_at_zero.csv",
		"--profile", "srtcm:cir=10,cbs=3,ebs=4", "--profile", "trtcm:pir=20,pbs=4,cir=5,cbs=2", "--profile", "xrate")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Limiters []struct {
			Admitted int64 `json:"admitted"`
			Colours  *struct {
				Green  int64 `json:"green_jobs"`
				Yellow int64 `json:"yellow_jobs"`
				Red    int64 `json:"red_jobs"`
			} `json:"colours"`
		} `json:"limiters"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := [][3]int64{{3, 4, 1}, {2, 2, 4}}
	for i, w := range want {
		l := res.Limiters[i]
		if c := l.Colours; c == nil || [3]int64{c.Green, c.Yellow, c.Red} != w || l.Admitted != w[0]+w[1] {
			t.Errorf("marker %d: admitted %d, colours %+v; want %v", i, l.Admitted, c, w)
		}
	}
	if res.Limiters[2].Colours != nil {
		t.Errorf("xrate has colours %+v, want none", res.Limiters[2].Colours)
	}
	table, _, _ := ratesim(t, "limiters", "--trace", "testdata/eight_at_zero.csv", "--profile", "srtcm:cir=10,cbs=3,ebs=4")
	if !strings.Contains(table, "colours    srtcm: 3 green, 4 yellow, 1 red") {
		t.Errorf("table lacks the colour counts:\n%s", table)
	}
}

// TestLimitersFleetErrors: a service rate below a profile's own long-term
// rate.
func TestLimitersFleetErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--profile", "throttled:max_rate=20", "--rate", "1", "--service-rate", "10"}, "long-term rate 20 jobs/s of --profile throttled"},
	} {
		_, errOut, code := ratesim(t, append([]string{"limiters"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

// TestLimitersSizeBurst sizes bursts for eight requests at t = 0 with
// none refused: x/time/rate needs burst 8, throttled max_burst 7 (it passes
// max_burst + 1); nginx without nodelay delays all but the first whatever
// its burst (7 refused up to 2·8 + 2 = 18); Guava has no burst key. The
// ideal bucket needs b(r) = 1 + 7 = 8 at any rate (seven jobs of
// unfinished work ahead of the last).
func TestLimitersSizeBurst(t *testing.T) {
	out, errOut, code := ratesim(t, "limiters", "--json", "--trace", "testdata/eight_at_zero.csv", "--size-burst", "0",
		"--profile", "xrate", "--profile", "throttled:max_rate=10", "--profile", "nginx:rate=10r/s,burst=5", "--profile", "guava-bursty")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Sizing struct {
			Allowed  int64 `json:"allowed_jobs"`
			Jobs     int64 `json:"jobs"`
			Profiles []struct {
				Name       string  `json:"limiter"`
				Key        string  `json:"key"`
				Configured string  `json:"configured"`
				Found      bool    `json:"found"`
				Burst      int64   `json:"burst"`
				Refused    int64   `json:"refused_jobs"`
				Tried      int64   `json:"tried_up_to"`
				IdealBurst float64 `json:"ideal_burst_tokens"`
			} `json:"profiles"`
		} `json:"burst_sizing"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	type row struct {
		name, key, conf string
		found           bool
		burst, refused  int64
		ideal           float64
	}
	want := []row{
		{"xrate", "burst", "1", true, 8, 0, 8},
		{"throttled", "max_burst", "0", true, 7, 0, 8},
		{"nginx", "burst", "5", false, 0, 7, 8},
		{"guava-bursty", "", "", false, 0, 0, 8}, // b(r) = 8 at any rate
	}
	s := res.Sizing
	if s.Allowed != 0 || s.Jobs != 8 || len(s.Profiles) != len(want) {
		t.Fatalf("sizing %+v, want 8 jobs, 0 allowed, %d profiles", s, len(want))
	}
	for i, w := range want {
		p := s.Profiles[i]
		got := row{p.Name, p.Key, p.Configured, p.Found, p.Burst, p.Refused, p.IdealBurst}
		if got != w {
			t.Errorf("profile %d: %+v, want %+v", i, got, w)
		}
	}
	if s.Profiles[2].Tried != 18 {
		t.Errorf("nginx tried up to %d, want 2·8 + 2 = 18", s.Profiles[2].Tried)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--size-burst", "0.1"}, "--size-burst applies with --profile only"},
		{[]string{"--profile", "xrate", "--size-burst", "1"}, "--size-burst 1"},
		{[]string{"--profile", "xrate", "--size-burst", "0", "--trace", "testdata/keyed.csv", "--key-col", "2"}, "--size-burst applies to unkeyed runs only"},
	} {
		_, errOut, code := ratesim(t, append([]string{"limiters"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}
