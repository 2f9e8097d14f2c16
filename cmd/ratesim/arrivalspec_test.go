package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runJSON runs ratesim run with --json and decodes the result.
func runJSON(t *testing.T, args ...string) (res struct {
	Jobs  int64
	Input string
	Check map[string]float64
}) {
	t.Helper()
	out, errOut, code := ratesim(t, append(append([]string{"run"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("run %v: exit %d, stderr %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	return res
}

// TestRunEveryProcess runs ratesim run with one spec per process and
// transform: each runs, holds the theorem, and reports its canonical spec
// and mean rate.
func TestRunEveryProcess(t *testing.T) {
	for _, tc := range []struct{ spec, input string }{
		{"renewal:dist=pareto,rate=0.9,scv=4", "renewal:dist=pareto,rate=0.9,scv=4 (mean rate 0.9 jobs/s)"},
		{"renewal:dist=gamma,scv=4", "renewal:dist=gamma,rate=0.9,scv=4 (mean rate 0.9 jobs/s)"},
		{"renewal:dist=weibull,scv=0.5", "renewal:dist=weibull,rate=0.9,scv=0.5"},
		{"renewal:dist=lognormal,scv=2", "renewal:dist=lognormal,rate=0.9,scv=2"},
		{"renewal:dist=uniform", "renewal:dist=uniform,rate=0.9,scv=0.3333333333333333"},
		{"renewal:dist=det", "renewal:dist=det,rate=0.9,scv=0"},
		{"mmpp:rates=4/0.2,sojourn=10/40", "(mean rate 0.96 jobs/s)"},
		{"onoff:n=10,on=1,off=9", "onoff:n=10,on=1,off=9,rate=0.9,dist=exp,emit=poisson"},
		{"batch:size=geom,mean=4", "batch:rate=0.9,size=geom,mean=4"},
		{"cron:n=50,period=60,jitter=2", "(mean rate 0.833333 jobs/s)"},
		{"poisson:rate=0.5 + periodic:rate=0.3 | thin:p=0.9 | jitter:max=1 | window:from=100", "(mean rate 0.72 jobs/s)"},
		{"mmpp:rates=4/0.2,sojourn=10/40 | scale", "| scale:rate=0.9 (mean rate 0.9 jobs/s)"},
	} {
		res := runJSON(t, "--arrivals", tc.spec, "--jobs", "3000")
		if res.Jobs != 3000 || res.Check["violations"] != 0 || !strings.Contains(res.Input, tc.input) {
			t.Errorf("%s: %d jobs, %v violations, input %q; want 3000, 0, and %q", tc.spec, res.Jobs, res.Check["violations"], res.Input, tc.input)
		}
	}
	// poisson and periodic with --load are as before.
	res := runJSON(t, "--arrivals", "periodic", "--load", "0.5", "--jobs", "10")
	if res.Input != "periodic arrivals, load 0.5 (λ = 0.5 jobs/s)" {
		t.Errorf("periodic input %q", res.Input)
	}
}

// TestRunKeyedSpec: hash dispatch needs keys, which a keys transform
// gives; Zipf keys over 3 hot keys make the split worse than round robin.
func TestRunKeyedSpec(t *testing.T) {
	out, errOut, code := ratesim(t, "run", "--arrivals", "poisson | keys:n=3,s=1", "--dispatch", "hash", "--jobs", "20000")
	if code != 0 || !strings.Contains(out, "dispatch hash") {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	_, errOut, code = ratesim(t, "run", "--arrivals", "poisson", "--dispatch", "hash")
	if code != 2 || !strings.Contains(errOut, "--dispatch hash") {
		t.Errorf("hash without keys: exit %d, stderr %q", code, errOut)
	}
}

func TestRunSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--arrivals", "renewal:dist=paret"}, `--arrivals renewal:dist=paret: want a valid arrival spec (see 'ratesim run --help'): renewal: dist "paret" is invalid`},
		{[]string{"--arrivals", "poisson:rate=2", "--load", "0.5"}, "--load 0.5 has no effect"},
		{[]string{"--arrivals", "renewal:scv=2"}, "scv = 1"},
		{[]string{"--format", "clf"}, "--format applies to trace input only"},
		{[]string{"--interval", "1s"}, "--interval applies to trace input only"},
		{[]string{"--trace", "testdata/access_sample.log", "--spread", "gauss"}, "--spread gauss"},
		{[]string{"--trace", "testdata/access_sample.log", "--interval", "0s"}, "--interval 0s"},
		{[]string{"--trace", "testdata/access_sample.log", "--format", "xml"}, "--format xml"},
		{[]string{"--trace", "testdata/access_sample.log", "--series", "a=b"}, "series option does not apply to format clf"},
	} {
		_, errOut, code := ratesim(t, append([]string{"run"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("run %v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
}

// TestRunTraceFormats runs on an access log (hash dispatch by host),
// JSON lines and counts.
func TestRunTraceFormats(t *testing.T) {
	res := runJSON(t, "--trace", "testdata/access_sample.log", "--key-col", "host", "--dispatch", "hash", "--rate", "0.5", "--burst", "2")
	if res.Jobs != 10 || res.Check["violations"] != 0 {
		t.Errorf("clf: %+v", res)
	}
	dir := t.TempDir()
	jl := filepath.Join(dir, "e.jsonl")
	os.WriteFile(jl, []byte(`{"time": 1, "sub": 1}`+"\n"+`{"time": 1.5, "sub": 0}`+"\n"), 0o644)
	if res := runJSON(t, "--trace", jl, "--sub-col", "sub", "--dispatch", "column"); res.Jobs != 2 {
		t.Errorf("jsonl: %+v", res)
	}
	c := filepath.Join(dir, "c.csv")
	os.WriteFile(c, []byte("120\n0\n60\n"), 0o644)
	if res := runJSON(t, "--trace", c, "--format", "counts", "--interval", "1m", "--spread", "random"); res.Jobs != 180 {
		t.Errorf("counts: %+v", res)
	}
}

// TestRunAzureFunctionsSeries runs one function of the wide Azure trace.
func TestRunAzureFunctionsSeries(t *testing.T) {
	path := sharedTrace(t, "azure-functions-2019/azure_functions_2019_invocations_per_minute_sample.csv")
	res := runJSON(t, "--trace", path, "--format", "wide", "--series", "function=func-08", "--rate", "0.5", "--burst", "20")
	if res.Jobs != 30_527 || res.Check["violations"] != 0 {
		t.Errorf("func-08: %+v, want 30527 jobs", res)
	}
}
