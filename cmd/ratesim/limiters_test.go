package main

import (
	"encoding/json"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments/limiterstudy"
)

// limitersOut is the part of the --json output the tests read.
type limitersOut struct {
	Input    string  `json:"input"`
	Rate     float64 `json:"rate_tokens_per_s"`
	Queue    int     `json:"queue_jobs"`
	Jobs     int64   `json:"jobs"`
	Keys     int     `json:"keys"`
	Figures  []string
	Limiters []struct {
		Name     string `json:"limiter"`
		Admitted int64
		Rejected int64
		Worst    struct {
			D       float64 `json:"d_s"`
			Ratio   float64
			Promise float64 `json:"promise_jobs"`
			Jobs    int
			From    float64 `json:"from_s"`
			To      float64 `json:"to_s"`
			Key     string
		} `json:"worst_overshoot"`
		Curve []struct {
			D       float64 `json:"d_s"`
			Jobs    int
			Promise float64 `json:"promise_jobs"`
		} `json:"arrival_curve"`
		Delay *struct {
			Mean float64 `json:"mean_delay_s"`
			Max  float64 `json:"max_delay_s"`
		}
		Keys []struct{ Key string }
	}
}

func limitersJSONRun(t *testing.T, args ...string) limitersOut {
	t.Helper()
	out, errOut, code := ratesim(t, append([]string{"limiters", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res limitersOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return res
}

func (r limitersOut) admitted() map[string]int64 {
	m := map[string]int64{}
	for _, l := range r.Limiters {
		m[l.Name] = l.Admitted
	}
	return m
}

// TestLimitersHandExample is the example end to end, read as a
// trace: 100 arrivals at 59 s and 100 at 61 s (Unix seconds). Windows
// follow the trace's own clock, so the edge at 60 s (a whole minute from
// the epoch) lies between the bursts, whatever the trace's first
// arrival. Fixed window:
// all 200 admitted, α*(2 s) = 200 = 2L; sliding log 100; policing bucket
// r = 100/60, b = 100 (and GCRA) 103; sliding counter 102 (see
// buckets.TestBoundaryBurstHandExample). The shapers have a queue of
// L = 100 jobs (the default): token-shape passes 100 and 3 and queues the
// other 97; leaky-queue passes 1 at 0 s and queues 99, and by 2 s has
// released 3 more (at 0.6, 1.2, 1.8 s), so it admits 4 of the second
// burst: 104.
func TestLimitersHandExample(t *testing.T) {
	res := limitersJSONRun(t, "--trace", "testdata/boundary_59_61.csv", "--durations", "0,2")
	want := map[string]int64{"token-police": 103, "gcra": 103, "fixed-window": 200, "sliding-log": 100, "sliding-counter": 102,
		"token-shape": 200, "leaky-queue": 104}
	got := res.admitted()
	for name, n := range want {
		if got[name] != n {
			t.Errorf("%s admits %d, want %d", name, got[name], n)
		}
	}
	if res.Rate != 100.0/60 || res.Queue != 100 || res.Jobs != 200 {
		t.Errorf("rate %v, queue %d, jobs %d; want 100/60 (L/W), 100 (L), 200", res.Rate, res.Queue, res.Jobs)
	}
	for _, l := range res.Limiters {
		if l.Name == "fixed-window" {
			w := l.Worst
			if w.Ratio != 2 || w.D != 2 || w.Jobs != 200 || w.From != 0 || w.To != 2 {
				t.Errorf("fixed window's worst overshoot %+v, want 200 = 2L at d = 2 s in [0, 2]", w)
			}
		}
	}
}

// TestLimitersDefaults runs the embedded default (the boundary pattern, 10
// cycles, L = 100 per 60 s) and checks the boundary burst: the fixed window
// passes 200 = 2L jobs in [59, 61] s of each cycle (overshoot 2), the log
// never breaks its promise, the counter breaks it by almost 2 near d = W.
func TestLimitersDefaults(t *testing.T) {
	out, errOut, code := ratesim(t, "limiters")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"boundary pattern, 10 cycles", "fixed-window", "[59, 61]", "sliding-counter", "overshoot"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	res := limitersJSONRun(t)
	if res.Jobs != 3000 || len(res.Limiters) != 8 {
		t.Fatalf("%d jobs, %d limiters; want 3000 and 8", res.Jobs, len(res.Limiters))
	}
	for _, l := range res.Limiters {
		switch l.Name {
		case "fixed-window":
			if l.Admitted != 2000 || l.Worst.Ratio != 2 || l.Worst.From != 59 || l.Worst.To != 61 {
				t.Errorf("fixed window: %d admitted, worst %+v; want 2000 and 2 in [59, 61]", l.Admitted, l.Worst)
			}
		case "sliding-log":
			if l.Admitted != 1000 || l.Worst.Ratio > 1 {
				t.Errorf("sliding log: %d admitted, worst %v; want 1000 and <= 1", l.Admitted, l.Worst.Ratio)
			}
		case "sliding-counter":
			if !(l.Worst.Ratio > 1.8 && l.Worst.D < 60) {
				t.Errorf("sliding counter: worst %+v, want > 1.8 at d < W", l.Worst)
			}
		default:
			if l.Worst.Ratio > 1+1e-9 {
				t.Errorf("%s breaks its promise: %+v", l.Name, l.Worst)
			}
		}
		if l.Admitted+l.Rejected != 3000 || len(l.Curve) != 74 {
			t.Errorf("%s: %d + %d jobs, %d curve points", l.Name, l.Admitted, l.Rejected, len(l.Curve))
		}
	}
}

// TestLimitersArrivalSpec: an arrival spec of ratesim run with a keys
// transform gives every key its own limiters: 2000 Poisson arrivals at
// λ = 1.2·R spread over 5 Zipf keys.
func TestLimitersArrivalSpec(t *testing.T) {
	res := limitersJSONRun(t, "--arrivals", "poisson | keys:n=5,s=1", "--jobs", "2000", "--limiters", "sliding-log,token-police")
	if res.Jobs != 2000 || res.Keys != 5 || len(res.Limiters[0].Keys) != 5 || !strings.Contains(res.Input, "one limiter per key") {
		t.Errorf("%d jobs, %d keys, %d key results, input %q; want 2000 jobs over 5 keyed limiters", res.Jobs, res.Keys, len(res.Limiters[0].Keys), res.Input)
	}
}

// TestLimitersPlot draws the figures and checks they are images.
func TestLimitersPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	res := limitersJSONRun(t, "--limiters", "fixed-window,sliding-log,throttle", "--cycles", "2", "--plot", dir)
	if len(res.Figures) != 3 || len(res.Limiters) != 3 {
		t.Fatalf("figures %v, %d limiters; want 3 figures and 3 limiters", res.Figures, len(res.Limiters))
	}
	for _, p := range res.Figures {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		_, err = png.DecodeConfig(f)
		f.Close()
		if err != nil {
			t.Errorf("%s: %v", p, err)
		}
	}
	_, errOut, code := ratesim(t, "limiters", "--cycles", "1", "--limiters", "gcra", "--plot", dir, "--plot-format", "svg")
	if code != 0 {
		t.Fatalf("svg: exit %d: %s", code, errOut)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "arrival-curves.svg")); err != nil || !strings.Contains(string(data[:min(512, len(data))]), "<svg") {
		t.Errorf("arrival-curves.svg: %v", err)
	}
}

// TestLimitersFlagErrors: bad flags exit 2 with a message naming the flag
// and its value.
func TestLimitersFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--limit", "0"}, "--limit 0"},
		{[]string{"--window", "-1"}, "--window -1"},
		{[]string{"--offset", "60"}, "--offset 60"},
		{[]string{"--rate", "0"}, "--rate 0"},
		{[]string{"--queue", "-1"}, "--queue -1"},
		{[]string{"--hard", "100"}, "--hard 100"},
		{[]string{"--soft", "60", "--hard", "50"}, "--soft 60"},
		{[]string{"--soft", "-1"}, "--soft -1"},
		{[]string{"--limiters", "fixed,gcra"}, "--limiters fixed,gcra"},
		{[]string{"--limiters", "gcra,gcra"}, "--limiters gcra,gcra"},
		{[]string{"--durations", "1,x"}, "--durations 1,x"},
		{[]string{"--gap", "30"}, "--gap 30"},
		{[]string{"--cycles", "0"}, "--cycles 0"},
		{[]string{"--stream", "-1"}, "--stream -1"},
		{[]string{"--arrivals", "uniform"}, "uniform"},
		{[]string{"--arrivals", "poisson", "--load", "0"}, "--load 0"},
		{[]string{"--arrivals", "poisson", "--gap", "2"}, "--gap applies"},
		{[]string{"--plot", "x", "--plot-format", "gif"}, "--plot-format gif"},
		{[]string{"--plot-format", "svg"}, "--plot-format applies"},
		{[]string{"--time-col", "t"}, "--time-col applies"},
		{[]string{"--top-keys", "-1"}, "--top-keys -1"},
		{[]string{"--trace", "testdata/missing.csv"}, "missing.csv"},
		{[]string{"--trace", "testdata/backwards.csv"}, "backwards.csv"},
		{[]string{"--trace", "x.csv", "--arrivals", "poisson"}, "arrivals"},
	} {
		_, errOut, code := ratesim(t, append([]string{"limiters"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, errOut, code := ratesim(t, "limiters", "--plot", file); code != exitUsage || !strings.Contains(errOut, "--plot "+file) {
		t.Errorf("--plot onto a file: exit %d, %q", code, errOut)
	}
}

// TestLimitersNASA runs ratesim limiters on the NASA-HTTP trace, once on
// the whole stream (L = 30 per 60 s) and once keyed by client (L = 10),
// checking the totals and the documented bounds on what passes.
func TestLimitersNASA(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	res := limitersJSONRun(t, "--trace", path, "--time-col", "ts_unix", "--limit", "30", "--window", "60")
	if res.Jobs != 30969 {
		t.Fatalf("%d jobs, want 30969", res.Jobs)
	}
	for _, l := range res.Limiters {
		if l.Admitted+l.Rejected != 30969 {
			t.Errorf("%s: %d + %d != 30969", l.Name, l.Admitted, l.Rejected)
		}
		limit := 1 + 1e-9
		if l.Name == "fixed-window" || l.Name == "sliding-counter" {
			limit = 2 + 1.0/30
		}
		if l.Worst.Ratio > limit {
			t.Errorf("%s: worst overshoot %v > %v", l.Name, l.Worst.Ratio, limit)
		}
	}
	keyed := limitersJSONRun(t, "--trace", path, "--time-col", "ts_unix", "--key-col", "client", "--limit", "10", "--window", "60", "--limiters", "fixed-window,sliding-log")
	if keyed.Keys < 1000 || len(keyed.Limiters[0].Keys) != keyed.Keys || keyed.Limiters[0].Worst.Key == "" {
		t.Errorf("keyed: %d keys, %d key results, worst key %q", keyed.Keys, len(keyed.Limiters[0].Keys), keyed.Limiters[0].Worst.Key)
	}
	out, _, code := ratesim(t, "limiters", "--trace", path, "--time-col", "ts_unix", "--key-col", "client", "--limit", "10", "--top-keys", "3")
	if code != 0 || !strings.Contains(out, "rejected jobs of the 3 keys with the most arrivals") {
		t.Errorf("keyed table: exit %d:\n%s", code, out)
	}
}

// TestLimitersShortWindowGap: a window of 2 s or less does not fail on the
// default 1 s --gap the user did not give: the bursts come W/4 before and
// after each edge (0.75 s and 1.25 s around the edge at W = 1 s, cycles 3W
// apart); a --gap given that does not fit is still an error.
func TestLimitersShortWindowGap(t *testing.T) {
	stdout, stderr, code := ratesim(t, "limiters", "--limit", "10", "--window", "1")
	if code != 0 || !strings.HasPrefix(stdout, "input      boundary pattern, 10 cycles 3 s apart: 10 jobs at 0.75 s and 10 at 1.25 s around the window edge at 1 s") {
		t.Errorf("exit %d, %q\n%s", code, stderr, stdout)
	}
	if _, stderr, code := ratesim(t, "limiters", "--limit", "10", "--window", "1", "--gap", "1"); code != 2 || !strings.Contains(stderr, "--gap 1: want a gap in (0, W/2 = 0.5) s") {
		t.Errorf("--gap 1: exit %d, %q", code, stderr)
	}
}

// TestLimitersHelpListsFamily: the help of ratesim limiters describes
// every limiter registered in experiments (a new limiter's registration
// is not complete without its help line).
func TestLimitersHelpListsFamily(t *testing.T) {
	long := newLimitersCmd().Long
	for _, name := range limiterstudy.LimiterNames {
		if !strings.Contains(long, "\n  "+name+" ") {
			t.Errorf("ratesim limiters --help does not describe %s", name)
		}
	}
}

// TestLimitersProfileVsLimit: throttled configured for max_burst 10 passes
// max_burst + 1 = 11 jobs of a cron burst of 20 at once. Against its own
// curve γ(10, 11) that is an overshoot of 11/11 = 1; against the promise
// the user asked for, γ(--rate 10, --limit 10), it is 11/10 at d = 0.
// The header says which curve each is measured against.
func TestLimitersProfileVsLimit(t *testing.T) {
	args := []string{"--arrivals", "cron:n=20,period=2", "--jobs", "40", "--rate", "10", "--limit", "10",
		"--durations", "0", "--profile", "throttled:max_rate=10,max_burst=10"}
	out, errOut, code := ratesim(t, append([]string{"limiters"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{
		"profile    throttled:max_rate=10,per=1s,max_burst=10; held to its own curve γ(r=10, b=11)",
		"γ(r=--rate 10, b=--limit 10) = 10 + 10·d jobs",
		"vs limit",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "b = --limit 10 jobs for the profiles") {
		t.Errorf("output still says profiles are held to --rate/--limit:\n%s", out)
	}
	row := ""
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "throttled ") && row == "" {
			row = line
		}
	}
	// 11 jobs pass at one instant (max_burst + 1): 11/11 against its curve
	// γ(10, 11) and 11/10 against the limit, exactly, at d = 0.
	if f := strings.Fields(row); len(f) < 5 || f[4] != "1.0000" || f[len(f)-1] != "1.1000" {
		t.Errorf("throttled row %q: want overshoot 1.0000 against its curve and 1.1000 vs limit", row)
	}

	var res struct {
		Limiters []struct {
			Worst struct {
				Ratio float64 `json:"ratio"`
			} `json:"worst_overshoot"`
			VsLimit *struct {
				Jobs    int     `json:"jobs"`
				Promise float64 `json:"promise_jobs"`
				Ratio   float64 `json:"ratio"`
			} `json:"overshoot_vs_limit"`
		} `json:"limiters"`
	}
	out, errOut, code = ratesim(t, append([]string{"limiters", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	l := res.Limiters[0]
	if l.Worst.Ratio != 1 || l.VsLimit == nil || l.VsLimit.Jobs != 11 || l.VsLimit.Promise != 10 || l.VsLimit.Ratio != 1.1 {
		t.Errorf("worst %+v, vs limit %+v: want ratio 1 and 11 jobs against 10, ratio 1.1", l.Worst, l.VsLimit)
	}
}

// TestLimitersProfileShaper: on eight requests at once (docs/models.md's
// example), the profiles that may delay are shapers in the JSON — nginx
// without nodelay, which delays five — and the pure policers are not.
func TestLimitersProfileShaper(t *testing.T) {
	var res struct {
		Limiters []struct {
			Params  string `json:"params"`
			Shaper  bool   `json:"shaper"`
			Delayed int64  `json:"delayed"`
		} `json:"limiters"`
	}
	out, errOut, code := ratesim(t, "limiters", "--json", "--trace", "testdata/eight_at_zero.csv", "--durations", "0",
		"--profile", "nginx:rate=10r/s,burst=5", "--profile", "nginx:rate=10r/s,burst=5,nodelay",
		"--profile", "xrate:limit=10,burst=5", "--profile", "throttled:max_rate=10,max_burst=5",
		"--profile", "redis-rate:rate=10,burst=5", "--profile", "xrate:limit=10,burst=5,call=wait",
		"--profile", "uber:rate=10")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	want := []bool{true, false, false, false, false, true, true}
	if len(res.Limiters) != len(want) {
		t.Fatalf("%d limiters, want %d", len(res.Limiters), len(want))
	}
	for i, l := range res.Limiters {
		if l.Shaper != want[i] {
			t.Errorf("%s: shaper %v, want %v", l.Params, l.Shaper, want[i])
		}
		if !l.Shaper && l.Delayed != 0 {
			t.Errorf("%s: a policer delayed %d jobs", l.Params, l.Delayed)
		}
	}
	if res.Limiters[0].Delayed != 5 {
		t.Errorf("nginx without nodelay delayed %d, want 5", res.Limiters[0].Delayed)
	}
}

// TestLimitersBoundaryFlags: --load does not apply to the boundary
// pattern (refused, naming what sets its jobs), and --jobs cutting it
// short is said on the input line: 10 cycles of 100 + 100 + 100 jobs are
// 3000, of which the first 10 run.
func TestLimitersBoundaryFlags(t *testing.T) {
	_, stderr, code := ratesim(t, "limiters", "--load", "2")
	if code != 2 || !strings.Contains(stderr, "--load applies to poisson, periodic and arrival specs") {
		t.Errorf("--load with boundary: exit %d, stderr %q", code, stderr)
	}
	stdout, _, code := ratesim(t, "limiters", "--jobs", "10")
	if code != 0 || !strings.Contains(stdout, "; its first 10 of 3000 jobs (--jobs); seed 1") {
		t.Errorf("--jobs 10 with boundary: exit %d, stdout %q", code, stdout)
	}
}

// TestLimitersWindowPromiseExact is the periodic sliding-log case:
// a job every 0.1 s into L = 1 per W = 0.1 s, all admitted (the previous
// job, exactly W earlier, is outside (t − W, t]). At d = 0.3 s the promise
// is 1·(floor(0.3/0.1) + 1) = 4, exactly (float64 division gives
// floor(2.9999...) = 2 and a promise of 3), and α*(0.3 s) = 4 jobs: ratio
// 1. Over every length, no gap shorter than W holds two jobs, so the
// exact overshoot is α*(W−)/L = 1/1 and the excess 0.
func TestLimitersWindowPromiseExact(t *testing.T) {
	args := []string{"limiters", "--arrivals", "periodic", "--load", "1", "--rate", "10", "--limit", "1", "--window", "0.1",
		"--jobs", "1000", "--durations", "0.3", "--limiters", "sliding-log"}
	out, errOut, code := ratesim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var row []string
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "sliding-log ") {
			row = strings.Fields(l)
		}
	}
	// limiter admitted rejected delayed overshoot excess α* promise d interval... sampled
	if len(row) < 6 || row[4] != "1.0000" || row[5] != "0" || !strings.Contains(out, "1.000 (4/4 at 0.3)") {
		t.Errorf("row %q: want overshoot 1.0000, excess 0 and the sampled 1.000 (4/4 at 0.3)\n%s", row, out)
	}
	out, errOut, code = ratesim(t, append(args, "--json")...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Limiters []struct {
			Curve []struct {
				D       float64 `json:"d_s"`
				Jobs    int     `json:"jobs"`
				Promise float64 `json:"promise_jobs"`
				Ratio   float64 `json:"ratio"`
			} `json:"arrival_curve"`
			Exact struct {
				Ratio  string `json:"ratio_exact"`
				Excess string `json:"excess_exact"`
			} `json:"exact_overshoot"`
		} `json:"limiters"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	l := res.Limiters[0]
	if c := l.Curve[0]; c.D != 0.3 || c.Jobs != 4 || c.Promise != 4 || c.Ratio != 1 || l.Exact.Ratio != "1" || l.Exact.Excess != "0" {
		t.Errorf("curve %+v, exact %+v: want 4 jobs against a promise of 4 at 0.3 s, exact ratio 1 and excess 0", l.Curve, l.Exact)
	}
}
