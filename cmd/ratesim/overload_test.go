package main

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Bad overload flags exit 2 naming the flag and what would fit.
func TestClientsOverloadErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--fault", "crash:1:2"}, "--fault applies with --service only"},
		{[]string{"--service", "det:1", "--fault", "crash:15:5"}, "--fault crash:15:5: want an interval FROM < TO"},
		{[]string{"--service", "det:1", "--fault", "error:1:2"}, "error probability in [0, 1]"},
		{[]string{"--service", "det:1", "--fault", "crash@3:1:2"}, "a server from 1 to 1 after @"},
		{[]string{"--service", "exp:0"}, "--service exp:0: want exp:MEAN"},
		{[]string{"--service", "det:1", "--retry-budget", "grpc:max_tokens=0"}, "max_tokens 0, want in (0, 1000]"},
		{[]string{"--service", "det:1", "--retry-budget", "finagle:window=100s"}, "finagle window 100 s, want 1 s to 60 s"},
		{[]string{"--service", "det:1", "--retry-budget", "aws-adaptive:x=1"}, "aws-adaptive without parameters"},
		{[]string{"--service", "det:1", "--concurrency", "envoy:update=0"}, "update a time > 0"},
		{[]string{"--service", "det:1", "--client-throttle", "sre:k=0.5"}, "sre k 0.5, want >= 1"},
		{[]string{"--service", "det:1", "--server-order", "up"}, "--server-order up: want fifo or lifo"},
		{[]string{"--service", "det:1", "--server-queue", "-2"}, "--server-queue -2: want a waiting room >= 0 jobs, or unbounded"},
		{[]string{"--service", "det:1", "--limiter", "gcra"}, "--limiter does not apply with --service"},
	} {
		_, errOut, code := ratesim(t, append([]string{"clients", "--jobs", "10"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, errOut, tc.want)
		}
	}
}

// Three requests 1 s apart to one server replaying the service times 0.1,
// 0.2 and 0.3 s of a trace column: each is served alone, so its latency is
// its service time (mean 0.2 s, max 0.3 s), every attempt reaches the
// server once (work amplification 1), and without a fault there is no
// recovery to report (null).
func TestClientsOverloadTraceService(t *testing.T) {
	path := filepath.Join(t.TempDir(), "svc.csv")
	if err := os.WriteFile(path, []byte("id,svc\n1,0.1\n2,200ms\n3,0.3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := ratesim(t, "clients", "--json", "--service", "trace:"+path+":svc", "--arrivals", "periodic:rate=1", "--jobs", "3")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Foreground struct {
			Successes   int64    `json:"admitted"`
			Mean        float64  `json:"mean_latency_s"`
			Max         float64  `json:"max_latency_s"`
			Backend     int64    `json:"backend_requests"`
			Work        float64  `json:"work_amplification"`
			RecoveredAt *float64 `json:"recovered_at_s"`
			Busy        float64  `json:"server_busy_s"`
		} `json:"foreground"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	fg := res.Foreground
	// The mean and the busy time are float64 sums of exact times: within
	// 1e-12 of their values.
	if fg.Successes != 3 || math.Abs(fg.Mean-0.2) > 1e-12 || fg.Max != 0.3 || fg.Backend != 3 || fg.Work != 1 || fg.RecoveredAt != nil || math.Abs(fg.Busy-0.6) > 1e-12 {
		t.Errorf("got %+v; want 3 successes, mean 0.2 s, max 0.3 s, 3 backend requests, work 1, no recovery, 0.6 s busy", fg)
	}
	if !strings.Contains(out, `"recovered_at_s": null`) {
		t.Errorf("recovered_at_s not null in %s", out)
	}
}
