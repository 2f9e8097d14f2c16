package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"golang.org/x/time/rate"

	"github.com/ratesim/ratesim/arrivals"
)

// splitRoundRobin writes the data lines of the CSV file path (one header
// line) into n files in dir, line i to file i mod n, each with the header:
// the share of the trace each node of round-robin dispatch receives.
func splitRoundRobin(t *testing.T, path, dir string, n int) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	shares := make([]strings.Builder, n)
	for i := range shares {
		shares[i].WriteString(lines[0] + "\n")
	}
	for i, l := range lines[1:] {
		shares[i%n].WriteString(l + "\n")
	}
	var paths []string
	for i := range shares {
		p := filepath.Join(dir, fmt.Sprintf("node%d.csv", i))
		if err := os.WriteFile(p, []byte(shares[i].String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// checkNodeLimiterSum runs `drl --designs static --node-limiter PROFILE
// --nodes n` (round robin) on a trace and `limiters --profile PROFILE` on
// each node's share of it, and requires each node's admitted and rejected
// counts in drl to equal what limiters gives on that node's share, and the
// fleet's to be their sum.
func checkNodeLimiterSum(t *testing.T, trace string, traceArgs []string, profile string, n int) []int64 {
	t.Helper()
	out, errOut, code := ratesim(t, append([]string{"drl", "--json", "--designs", "static", "--node-limiter", profile,
		"--nodes", fmt.Sprint(n), "--dispatch", "rr", "--police", "--rate", "1", "--burst", fmt.Sprint(n), "--trace", trace}, traceArgs...)...)
	if code != 0 {
		t.Fatalf("drl: exit %d: %s", code, errOut)
	}
	var d struct {
		Designs []struct {
			Admitted, Rejected int64
			PerNode            []struct{ Admitted, Rejected int64 } `json:"per_node"`
		} `json:"designs"`
	}
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Designs) != 1 || len(d.Designs[0].PerNode) != n {
		t.Fatalf("drl: %d designs, per_node %+v; want 1 design with %d nodes", len(d.Designs), d.Designs, n)
	}
	var sumA, sumR int64
	for i, share := range splitRoundRobin(t, trace, t.TempDir(), n) {
		out, errOut, code := ratesim(t, append([]string{"limiters", "--json", "--profile", profile, "--trace", share}, traceArgs...)...)
		if code != 0 {
			t.Fatalf("limiters on node %d's share: exit %d: %s", i, code, errOut)
		}
		var l struct {
			Limiters []struct{ Admitted, Rejected, Delayed int64 } `json:"limiters"`
		}
		if err := json.Unmarshal([]byte(out), &l); err != nil {
			t.Fatal(err)
		}
		got, want := d.Designs[0].PerNode[i], l.Limiters[0]
		if got.Admitted != want.Admitted || got.Rejected != want.Rejected {
			t.Errorf("node %d: drl admitted %d, rejected %d; limiters on its share %d, %d", i, got.Admitted, got.Rejected, want.Admitted, want.Rejected)
		}
		sumA += want.Admitted
		sumR += want.Rejected
	}
	if d.Designs[0].Admitted != sumA || d.Designs[0].Rejected != sumR {
		t.Errorf("fleet: drl admitted %d, rejected %d; the nodes' shares sum to %d, %d", d.Designs[0].Admitted, d.Designs[0].Rejected, sumA, sumR)
	}
	t.Logf("%s on %d nodes: admitted %d, rejected %d, equal to limiters on each share, node by node", profile, n, sumA, sumR)
	var per []int64
	for _, c := range d.Designs[0].PerNode {
		per = append(per, c.Admitted)
	}
	return per
}

// The case: x/time/rate 1.5/s burst 5 on each of 4 gateways, on the
// Azure LLM inference (code) trace.
func TestDRLNodeLimiterIsSumOfShares(t *testing.T) {
	trace := sharedTrace(t, "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv")
	per := checkNodeLimiterSum(t, trace, []string{"--time-col", "TIMESTAMP", "--time-format", "datetime"}, "xrate:limit=1.5,burst=5", 4)

	// And against the real golang.org/x/time/rate: one rate.NewLimiter(1.5,
	// 5) per node, fed that node's round-robin share with AllowN at the
	// trace's own instants.
	tr, err := arrivals.Open(trace, arrivals.TraceOptions{TimeCol: "TIMESTAMP", TimeFormat: "datetime"})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	lims := make([]*rate.Limiter, 4)
	for i := range lims {
		lims[i] = rate.NewLimiter(1.5, 5)
	}
	lib := make([]int64, 4)
	base := time.Unix(1700000000, 0)
	for i := 0; ; i++ {
		a, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if lims[i%4].AllowN(base.Add(time.Duration(a.T)), 1) {
			lib[i%4]++
		}
	}
	if !slices.Equal(per, lib) {
		t.Errorf("admitted per node: drl %v, x/time/rate itself %v", per, lib)
	}
}

// The same on a random trace kept in the test (it runs without
// ../shared), for profiles of three libraries.
func TestDRLNodeLimiterIsSumOfSharesRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	b.WriteString("t\n")
	ns := int64(1_000_000_000)
	for range 3000 {
		ns += int64(r.ExpFloat64() * 1e8) // mean gap 0.1 s, bursts of ties at whole ms
		fmt.Fprintf(&b, "%d\n", ns/1e6)
	}
	trace := filepath.Join(t.TempDir(), "random.csv")
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"xrate:limit=1.5,burst=5", "throttled:max_rate=2,max_burst=3", "nginx:rate=2r/s,burst=4,nodelay"} {
		checkNodeLimiterSum(t, trace, []string{"--time-col", "t", "--time-format", "unix-ms"}, p, 3)
	}
}

// --node-limiter errors: a bad profile names the flag; a design with no
// per-node limiter refuses it; limiters --replicas is gone, pointing here.
func TestDRLNodeLimiterErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"drl", "--designs", "static", "--node-limiter", "xrate:limt=1"}, "--node-limiter"},
		{[]string{"drl", "--designs", "static", "--node-limiter", "nosuch"}, "--node-limiter"},
		{[]string{"drl", "--designs", "sync", "--node-limiter", "xrate"}, "--node-limiter applies to static, store only"},
		{[]string{"drl", "--designs", "static,sync", "--node-limiter", "xrate", "--jobs", "10"}, "design sync keeps no per-node limiter"},
		{[]string{"limiters", "--profile", "xrate", "--replicas", "4"}, "--node-limiter PROFILE --nodes N"},
	} {
		_, errOut, code := ratesim(t, c.args...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", c.args, code, errOut, c.want)
		}
	}
}
