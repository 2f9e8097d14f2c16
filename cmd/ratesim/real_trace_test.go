package main

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
)

// tracesDir is ../shared/traces as seen from the repository root; tests run
// in cmd/ratesim.
const tracesDir = "../../../shared/traces"

// sharedTrace returns the path of a trace under ../shared/traces, skipping
// the test when the folder is absent (it lives beside the repository, not
// in it).
func sharedTrace(t *testing.T, rel string) string {
	t.Helper()
	p := filepath.Join(tracesDir, rel)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("skipping: real trace %s not found (../shared/traces is beside the repository, not in it): %v", rel, err)
	}
	return p
}

// naiveDelays is an independent FCFS token bucket (r, b): an explicit token
// count refilled in closed form, one job at a time.
func naiveDelays(r, b float64, times []float64) []float64 {
	tok, last, prev := b, 0.0, 0.0
	d := make([]float64, len(times))
	for i, a := range times {
		t0 := math.Max(a, prev)
		tok = math.Min(b, tok+r*(t0-last))
		last = t0
		if tok >= 1 {
			tok--
			prev = t0
		} else {
			prev = t0 + (1-tok)/r
			tok, last = 0, prev
		}
		d[i] = prev - a
	}
	return d
}

// TestNASATrace runs ratesim on the NASA-HTTP trace (30,969 requests,
// integer Unix seconds, many same-second ties) at r = 0.7 tokens/s, near the
// trace's mean rate of 30969/46321 = 0.669 jobs/s, b = 10, k = 2
// round-robin, and compares the totals and maxima with an independent
// reading of the file and an independent FCFS token-count model (one bucket
// on all jobs; each sub-bucket (0.35, 5) on every other job).
func TestNASATrace(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	out, errOut, code := ratesim(t, "run", "--trace", path, "--time-col", "ts_unix", "--rate", "0.7", "--burst", "10", "--k", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Jobs        int64
		One, Split  experiments.Stats
		Check       splitstudy.CheckResult
		SkippedLine int `json:"skipped_lines"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	var times, even, odd []float64
	var origin int64
	for sc.Scan() {
		ts, err := strconv.ParseInt(strings.SplitN(sc.Text(), "\t", 2)[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		if len(times) == 0 {
			origin = ts
		}
		x := float64(ts - origin)
		if len(times)%2 == 0 {
			even = append(even, x)
		} else {
			odd = append(odd, x)
		}
		times = append(times, x)
	}
	if res.Jobs != int64(len(times)) || res.Jobs != 30969 {
		t.Fatalf("jobs = %d, file has %d data lines (PROVENANCE.md: 30,969)", res.Jobs, len(times))
	}
	total := func(ds ...[]float64) (s, m float64) {
		for _, d := range ds {
			for _, x := range d {
				s += x
				m = math.Max(m, x)
			}
		}
		return
	}
	oneTotal, oneMax := total(naiveDelays(0.7, 10, times))
	splitTotal, splitMax := total(naiveDelays(0.35, 5, even), naiveDelays(0.35, 5, odd))
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"one total", res.One.Total, oneTotal},
		{"one max", res.One.Max, oneMax},
		{"split total", res.Split.Total, splitTotal},
		{"split max", res.Split.Max, splitMax},
	} {
		if math.Abs(c.got-c.want) > 1e-9*c.want {
			t.Errorf("%s = %v, independent model %v", c.name, c.got, c.want)
		}
	}
	if res.Check.Violations != 0 || res.Check.LemmaViolations != 0 || res.Check.Events < res.Jobs {
		t.Errorf("check %v", res.Check)
	}
	t.Logf("NASA: one bucket total %.6g s, split %.6g s, ratio of means %.6g", oneTotal, splitTotal, splitTotal/oneTotal)
}

// TestAlibabaTraceHash runs the Alibaba GenTD26 trace with hash dispatch on
// its groupId key and checks that Theorem 2 held and all 26,823 requests ran.
func TestAlibabaTraceHash(t *testing.T) {
	path := sharedTrace(t, "alibaba-gentd26/lora_request_trace.csv")
	out, errOut, code := ratesim(t, "run", "--trace", path, "--time-col", "gmt_create", "--time-format", "datetime",
		"--key-col", "groupId", "--dispatch", "hash", "--rate", "0.015", "--burst", "10", "--k", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Jobs       int64
		One, Split experiments.Stats
		Check      splitstudy.CheckResult
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 26823 || res.Check.Violations != 0 || res.Split.Total < res.One.Total {
		t.Errorf("Alibaba: jobs %d, one %v, split %v, check %v", res.Jobs, res.One, res.Split, res.Check)
	}
}

// TestAzureLLMTrace runs the Azure LLM inference trace (sub-second datetimes
// with 7 decimals).
func TestAzureLLMTrace(t *testing.T) {
	path := sharedTrace(t, "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv")
	out, errOut, code := ratesim(t, "run", "--trace", path, "--time-col", "TIMESTAMP", "--time-format", "datetime",
		"--rate", "3", "--burst", "10", "--k", "3", "--dispatch", "least-loaded", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res struct {
		Jobs  int64
		Check splitstudy.CheckResult
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatal(err)
	}
	if res.Jobs != 8819 || res.Check.Violations != 0 {
		t.Errorf("Azure LLM: jobs %d, check %v", res.Jobs, res.Check)
	}
}
