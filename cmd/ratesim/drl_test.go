package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments/drlstudy"
	"github.com/ratesim/ratesim/internal/param"
	"github.com/ratesim/ratesim/internal/version"
)

type drlOut struct {
	Schema  int    `json:"schema_version"`
	Version string `json:"ratesim_version"`
	Designs []struct {
		Design    string  `json:"design"`
		Jobs      int64   `json:"jobs"`
		Admitted  int64   `json:"admitted"`
		Rejected  int64   `json:"rejected"`
		Fallback  int64   `json:"fallback_jobs"`
		Mean      float64 `json:"mean_delay_s"`
		P99       float64 `json:"p99_delay_s"`
		Overshoot float64 `json:"worst_overshoot"`
		Keys      int     `json:"keys"`
		Theorem2  string  `json:"theorem2"`
	} `json:"designs"`
}

func drlJSONRun(t *testing.T, args ...string) drlOut {
	t.Helper()
	out, errOut, code := ratesim(t, append([]string{"drl", "--json"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res drlOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return res
}

// The designs keep the promise where they should (one, static, store up)
// and break it under fail-open, by the overshoot reported; with zero
// round trip the store is the one bucket.
func TestDRLDesigns(t *testing.T) {
	res := drlJSONRun(t, "--jobs", "3000", "--load", "1.5", "--police", "--rtt", "0", "--outage", "50s:100s", "--fail", "open", "--designs", "one,static,store,reconcile")
	if res.Schema != version.Schema || len(res.Designs) != 4 {
		t.Fatalf("schema %d, %d designs", res.Schema, len(res.Designs))
	}
	by := map[string]int{}
	for i, d := range res.Designs {
		by[d.Design] = i
		if d.Jobs != 3000 || d.Admitted+d.Rejected != 3000 {
			t.Errorf("%s: %d jobs, %d + %d", d.Design, d.Jobs, d.Admitted, d.Rejected)
		}
	}
	for _, n := range []string{"one", "static"} {
		if o := res.Designs[by[n]].Overshoot; o > 1 {
			t.Errorf("%s: overshoot %v > 1", n, o)
		}
	}
	// Fail-open admits every job of the 50 s outage: at load 1.5 that is
	// about 750 jobs where the promise allows 20 + 10·50 = 520.
	st := res.Designs[by["store"]]
	if st.Overshoot <= 1 || st.Fallback == 0 {
		t.Errorf("store, fail open: overshoot %v, %d fallback jobs", st.Overshoot, st.Fallback)
	}
	if one := res.Designs[by["one"]]; st.Admitted <= one.Admitted {
		t.Errorf("store, fail open admitted %d <= one bucket's %d", st.Admitted, one.Admitted)
	}
}

func TestDRLFlagErrors(t *testing.T) {
	rtt := filepath.Join(t.TempDir(), "rtt.csv")
	if err := os.WriteFile(rtt, []byte("rtt_s\n0.002\n2 ms\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--designs", "one,lease2"}, "--designs"},
		{[]string{"--designs", "one,one"}, "--designs"},
		{[]string{"--nodes", "0"}, "--nodes 0"},
		{[]string{"--burst", "2"}, "--burst 2"},
		{[]string{"--rate", "0"}, "rate"},
		{[]string{"--rtt", "uniform:3ms"}, "--rtt"},
		{[]string{"--rtt", "trace:" + rtt + ":rtt_s"}, rtt + ":3: column rtt_s: \"2 ms\" is not a delay"},
		{[]string{"--sync-delay", "trace:" + rtt + ":lat"}, "--sync-delay trace:" + rtt + ":lat: want a delay"},
		{[]string{"--outage", "5s:1s"}, "--outage 5s:1s"},
		{[]string{"--fail", "maybe"}, "--fail maybe"},
		{[]string{"--outage-process", "10s"}, "--outage-process 10s"},
		{[]string{"--outage-process", "0:1s"}, "--outage-process 0:1s"},
		{[]string{"--rate-window", "0"}, "--rate-window 0"},
		{[]string{"--estimate-interval", "0"}, "--estimate-interval 0"},
		{[]string{"--smoothing", "0"}, "--smoothing 0"},
		{[]string{"--lease-size", "0"}, "--lease-size 0"},
		{[]string{"--exchange", "rumour"}, "--exchange rumour"},
		{[]string{"--fanout", "0"}, "--fanout 0"},
		{[]string{"--sync-period", "-1s"}, "--sync-period"},
		{[]string{"--loss", "1"}, "--loss 1"},
		{[]string{"--local", "lease"}, "--local lease"},
		{[]string{"--scale", "10s"}, "--scale 10s"},
		{[]string{"--scale", "10s:8", "--scale", "5s:2"}, "--scale 5s:2"},
		{[]string{"--dispatch", "least-loaded"}, "--dispatch"},
		{[]string{"--key-col", "k"}, "--key-col applies"},
		{[]string{"--store-cache", "--designs", "one,store"}, "--store-cache true: want false when shaping: the cache refuses jobs"},
		{[]string{"--store-limiter", "gcra", "--designs", "store"}, "--store-limiter gcra: want token when shaping"},
		{[]string{"--designs", "one,static", "--outage", "1s:5s"}, "--outage applies to store only, not to the designs run (one,static)"},
	} {
		_, errOut, code := ratesim(t, append([]string{"drl", "--jobs", "10"}, c.args...)...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}

// TestDRLNASA runs the designs on the NASA-HTTP trace with hash dispatch
// by client: every key is decided at one node, and each design decides
// every job.
func TestDRLNASA(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	res := drlJSONRun(t, "--trace", path, "--time-col", "ts_unix", "--key-col", "client", "--dispatch", "hash",
		"--rate", "1", "--burst", "8", "--nodes", "8", "--police", "--designs", "one,static,store,reconcile", "--rtt", "0")
	for _, d := range res.Designs {
		if d.Jobs != 30969 || d.Admitted+d.Rejected != 30969 {
			t.Errorf("%s: %d jobs, %d + %d", d.Design, d.Jobs, d.Admitted, d.Rejected)
		}
		if d.Keys < 1000 {
			t.Errorf("%s: %d keys", d.Design, d.Keys)
		}
	}
	// Hash dispatch sends each key to one node, whose sub-bucket has 1/8
	// of the key's limit: the static split admits fewer.
	if res.Designs[1].Admitted >= res.Designs[0].Admitted {
		t.Errorf("static admitted %d >= one bucket's %d", res.Designs[1].Admitted, res.Designs[0].Admitted)
	}
	// A store with zero round trip is the one bucket.
	if res.Designs[2].Admitted != res.Designs[0].Admitted {
		t.Errorf("store admitted %d != one bucket's %d", res.Designs[2].Admitted, res.Designs[0].Admitted)
	}
}

func TestDRLPlot(t *testing.T) {
	dir := t.TempDir()
	out, errOut, code := ratesim(t, "drl", "--jobs", "500", "--designs", "one,static", "--plot", dir, "--plot-format", "svg")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, name := range []string{"drl-admitted-rate.svg", "drl-delay-ccdf.svg"} {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err != nil || fi.Size() == 0 || !strings.Contains(out, p) {
			t.Errorf("%s: %v, listed: %v", name, err, strings.Contains(out, p))
		}
	}
	if _, errOut, code := ratesim(t, "drl", "--jobs", "10", "--plot-format", "svg"); code != exitUsage || !strings.Contains(errOut, "--plot-format") {
		t.Errorf("--plot-format without --plot: exit %d, %q", code, errOut)
	}
}

// The same seed gives the same bytes, with random round trips, message
// delays and losses, and random dispatch.
func TestDRLDeterministic(t *testing.T) {
	args := []string{"drl", "--json", "--jobs", "2000", "--dispatch", "random", "--rtt", "lognormal:2ms:0.8", "--sync-delay", "uniform:1ms:20ms", "--loss", "0.1", "--seed", "9"}
	a, _, c1 := ratesim(t, args...)
	b, _, c2 := ratesim(t, args...)
	if c1 != 0 || c2 != 0 || a != b {
		t.Errorf("two runs with one seed differ (exit %d, %d)", c1, c2)
	}
}

type drlSweepOut struct {
	Axes   []string `json:"axes"`
	Points []struct {
		Params  map[string]any `json:"params"`
		Designs []struct {
			Design   string `json:"design"`
			Admitted int64  `json:"admitted"`
		} `json:"designs"`
	} `json:"points"`
}

// A sweep runs the grid, the last axis fastest; at sync period 0 with no
// message delay reconcile admits what the one bucket does.
func TestDRLSweep(t *testing.T) {
	out, errOut, code := ratesim(t, "drl", "--json", "--jobs", "1500", "--load", "1.3", "--police", "--designs", "one,reconcile",
		"--sweep", "sync-period=0,1s", "--sweep", "nodes=2,4,5")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res drlSweepOut
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if len(res.Points) != 6 || res.Points[1].Params["nodes"] != 4.0 || res.Points[3].Params["sync-period"] != "1s" {
		t.Fatalf("points %+v", res.Points)
	}
	for _, p := range res.Points {
		one, syn := p.Designs[0].Admitted, p.Designs[1].Admitted
		if p.Params["sync-period"] == 0.0 && syn != one || p.Params["sync-period"] == "1s" && syn <= one {
			t.Errorf("%v: reconcile admitted %d, one bucket %d", p.Params, syn, one)
		}
	}
	for _, c := range []struct{ args []string }{
		{[]string{"--sweep", "trace=x"}},
		{[]string{"--sweep", "nodes"}},
		{[]string{"--sweep", "nodes=2", "--sweep", "nodes=3"}},
		{[]string{"--sweep", "nodes=2,x"}},
	} {
		if _, errOut, code := ratesim(t, append([]string{"drl", "--jobs", "10"}, c.args...)...); code != exitUsage || !strings.Contains(errOut, "sweep") {
			t.Errorf("%v: exit %d, %q", c.args, code, errOut)
		}
	}
}

func TestOutageTime(t *testing.T) {
	ivs := []drl.Interval{{From: 5e9, To: 8e9}, {From: 1e9, To: 3e9}, {From: 2e9, To: 4e9}, {From: 6e9, To: 7e9}}
	// [1, 4) and [5, 8): 3 + 3 s.
	if got := outageTime(ivs); got != 6e9 {
		t.Errorf("outageTime = %v, want 6 s", got)
	}
}

// The check of Theorem 2 runs on the static split that shapes, key by
// key, and holds; the other designs say why it does not apply.
func TestDRLTheorem2(t *testing.T) {
	res := drlJSONRun(t, "--jobs", "3000", "--load", "3", "--arrivals", "poisson | keys:n=20,s=1.1", "--dispatch", "hash", "--designs", "one,static,reconcile")
	want := map[string]string{"one": "n/a (the one bucket itself)", "static": "held",
		"reconcile": "n/a (shares do not sum to R: each node decides with a copy of (R, B))"}
	for _, d := range res.Designs {
		if d.Theorem2 != want[d.Design] {
			t.Errorf("%s: theorem2 %q, want %q", d.Design, d.Theorem2, want[d.Design])
		}
	}
}

// --store-limiter gcra decides as the policing token-bucket store; a
// store limiter other than the bucket needs --police; an unknown one is
// bad usage.
func TestDRLStoreLimiter(t *testing.T) {
	args := []string{"--jobs", "2000", "--load", "1.5", "--police", "--designs", "store"}
	tok := drlJSONRun(t, args...)
	g := drlJSONRun(t, append(args, "--store-limiter", "gcra")...)
	if tok.Designs[0].Admitted != g.Designs[0].Admitted || tok.Designs[0].Mean != g.Designs[0].Mean {
		t.Errorf("gcra store %+v, token store %+v: want the same decisions", g.Designs[0], tok.Designs[0])
	}
	fw := drlJSONRun(t, append(args, "--store-limiter", "fixed-window")...)
	if fw.Designs[0].Admitted+fw.Designs[0].Rejected != 2000 {
		t.Errorf("fixed-window store: %+v", fw.Designs[0])
	}
	for _, bad := range [][]string{{"--store-limiter", "gcra"}, {"--store-limiter", "sliding", "--police"}} {
		if _, errOut, code := ratesim(t, append([]string{"drl", "--jobs", "10", "--designs", "store"}, bad...)...); code != 2 || !strings.Contains(errOut, "store") {
			t.Errorf("%v: exit %d, stderr %s; want 2 naming the store limiter", bad, code, errOut)
		}
	}
}

// TestDRLJSONKeys: the delays are given as distributions under
// *_distribution keys, and in seconds under *_s keys when fixed; the
// over-rate fraction is named so; a sweep's numeric values are numbers.
func TestDRLJSONKeys(t *testing.T) {
	out, errOut, code := ratesim(t, "drl", "--json", "--jobs", "200", "--designs", "one,store,reconcile", "--rtt", "2ms", "--sync-delay", "uniform:1ms:3ms")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var res map[string]any
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	for key, want := range map[string]any{"rtt_distribution": "2ms", "rtt_s": 0.002, "sync_delay_distribution": "uniform:1ms:3ms"} {
		if res[key] != want {
			t.Errorf("%s = %v, want %v", key, res[key], want)
		}
	}
	for _, key := range []string{"rtt", "sync_delay", "sync_delay_s"} {
		if _, ok := res[key]; ok {
			t.Errorf("key %s present", key)
		}
	}
	d := res["designs"].([]any)[0].(map[string]any)
	if _, ok := d["over_rate_fraction"]; !ok {
		t.Errorf("no over_rate_fraction in %v", d)
	}

	out, errOut, code = ratesim(t, "drl", "--json", "--jobs", "200", "--designs", "one", "--sweep", "nodes=1,2", "--sweep", "rtt=1ms")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	var sw struct {
		Points []struct {
			Params map[string]any `json:"params"`
		} `json:"points"`
	}
	if err := json.Unmarshal([]byte(out), &sw); err != nil {
		t.Fatal(err)
	}
	if len(sw.Points) != 2 || sw.Points[0].Params["nodes"] != 1.0 || sw.Points[1].Params["nodes"] != 2.0 || sw.Points[1].Params["rtt"] != "1ms" {
		t.Errorf("points %+v: want nodes 1 and 2 as numbers, rtt \"1ms\"", sw.Points)
	}
}

// ratesim drl's flags are the drl study's parameter table: each takes
// and refuses the values its YAML key does, with the declared default
// (param.Verify on the command's own flag set).
func TestDRLFlagsAreTheTable(t *testing.T) {
	flags := func() *pflag.FlagSet {
		cmd, _ := newDRLCmdFlags()
		return cmd.Flags()
	}
	if err := param.Verify(drlstudy.Table, flags); err != nil {
		t.Error(err)
	}
}
