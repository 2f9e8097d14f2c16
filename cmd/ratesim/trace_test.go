package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// statsJSON is the --json output of trace stats.
type statsJSON struct {
	Jobs        int64
	Format      string
	Duration    float64 `json:"duration_s"`
	MeanRate    float64 `json:"mean_rate_jobs_per_s"`
	GapMean     float64 `json:"gap_mean_s"`
	GapSCV      float64 `json:"gap_scv"`
	Ties        int64   `json:"zero_gaps"`
	TieFraction float64 `json:"zero_gap_fraction"`
	Peaks       []struct {
		Window float64 `json:"window_s"`
		Jobs   int64
		Rate   float64 `json:"rate_jobs_per_s"`
	} `json:"peak_rates"`
	Dispersion []struct {
		Scale   float64 `json:"scale_s"`
		Windows int64
		Mean    float64  `json:"mean_jobs"`
		IDC     *float64 `json:"index_of_dispersion"`
	} `json:"dispersion"`
	Keys *struct {
		Distinct   int
		Top10Share float64 `json:"top10_share"`
	}
	Fit []struct {
		Rate   float64 `json:"rate_tokens_per_s"`
		None   float64 `json:"burst_none_wait_tokens"`
		Target float64 `json:"burst_target_tokens"`
	}
}

func traceStatsJSON(t *testing.T, args ...string) statsJSON {
	t.Helper()
	out, errOut, code := ratesim(t, append(append([]string{"trace", "stats"}, args...), "--json")...)
	if code != 0 {
		t.Fatalf("trace stats %v: exit %d, stderr %s", args, code, errOut)
	}
	var s statsJSON
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	return s
}

// bucketDelays counts the jobs that wait in a FCFS token bucket (r, b)
// of package buckets, full at the start.
func bucketDelays(t *testing.T, ts []float64, r, b float64) int64 {
	t.Helper()
	rr, err1 := exact.FromFloat64(r)
	bb, err2 := exact.FromFloat64(b)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	tb, err := buckets.NewTokenBucket(buckets.Params{Rate: rr, Burst: bb})
	if err != nil {
		t.Fatal(err)
	}
	var delayed int64
	for i, x := range ts {
		at, _ := engine.FromSeconds(x)
		if tb.Offer(at, int64(i)).Verdict == buckets.Delay {
			delayed++
		}
	}
	return delayed
}

func near(a, b, rel float64) bool { return math.Abs(a-b) <= rel*math.Max(math.Abs(a), math.Abs(b)) }

// TestTraceStatsNASA compares trace stats on the NASA-HTTP trace with
// figures computed here from the file independently: a bufio reading of
// the TSV into integer seconds, a per-second histogram for the peaks and
// the 60 s counts, gonum's MeanVariance for the gaps and counts, a map of
// clients, and package buckets for b(r).
func TestTraceStatsNASA(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var secs []int64
	clients := map[string]int64{}
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		fields := strings.Split(sc.Text(), "\t")
		s, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		secs = append(secs, s)
		clients[fields[1]]++
	}
	n := int64(len(secs))
	dur := secs[n-1] - secs[0]
	perSec := make([]float64, dur+1)
	for _, s := range secs {
		perSec[s-secs[0]]++
	}
	peak1 := slices.Max(perSec)
	peak60 := 0.0
	for s := range perSec {
		sum := 0.0
		for k := s; k < s+60 && k < len(perSec); k++ {
			sum += perSec[k]
		}
		peak60 = max(peak60, sum)
	}
	var gaps, ts []float64
	ties := int64(0)
	for i, s := range secs {
		ts = append(ts, float64(s-secs[0]))
		if i > 0 {
			gaps = append(gaps, float64(s-secs[i-1]))
			if s == secs[i-1] {
				ties++
			}
		}
	}
	gm, gv := stat.MeanVariance(gaps, nil)
	counts60 := make([]float64, dur/60) // complete 60 s windows
	for _, s := range secs {
		if k := (s - secs[0]) / 60; k < int64(len(counts60)) {
			counts60[k]++
		}
	}
	cm, cv := stat.MeanVariance(counts60, nil)
	var perClient []int64
	for _, c := range clients {
		perClient = append(perClient, c)
	}
	slices.Sort(perClient)
	top := int64(0)
	for _, c := range perClient[len(perClient)-10:] {
		top += c
	}
	// PROVENANCE.md: 30,969 requests over 46,321 s, up to 17 in one
	// second, 2,365 clients.
	if n != 30_969 || dur != 46_321 || peak1 != 17 || len(clients) != 2365 {
		t.Fatalf("oracle: %d jobs over %d s, peak %v, %d clients; PROVENANCE.md says 30969, 46321, 17, 2365", n, dur, peak1, len(clients))
	}

	s := traceStatsJSON(t, path, "--time-col", "ts_unix", "--key-col", "client", "--fit", "--rates", "0.7,2,20", "--delayed", "0.01")
	if s.Jobs != n || s.Duration != float64(dur) || !near(s.MeanRate, float64(n)/float64(dur), 1e-15) || s.Format != "csv" {
		t.Errorf("jobs %d over %v s at %v jobs/s (%s); want %d, %d, %v", s.Jobs, s.Duration, s.MeanRate, s.Format, n, dur, float64(n)/float64(dur))
	}
	if len(s.Peaks) != 2 || s.Peaks[0].Window != 1 || float64(s.Peaks[0].Jobs) != peak1 || s.Peaks[1].Window != 60 || float64(s.Peaks[1].Jobs) != peak60 || !near(s.Peaks[1].Rate, peak60/60, 1e-15) {
		t.Errorf("peaks %+v; want %v jobs in 1 s and %v in 60 s", s.Peaks, peak1, peak60)
	}
	if !near(s.GapMean, gm, 1e-12) || !near(s.GapSCV, gv/(gm*gm), 1e-9) || s.Ties != ties || !near(s.TieFraction, float64(ties)/float64(n-1), 1e-15) {
		t.Errorf("gaps: mean %v, SCV %v, %d ties; want %v, %v, %d", s.GapMean, s.GapSCV, s.Ties, gm, gv/(gm*gm), ties)
	}
	var d60 bool
	for _, d := range s.Dispersion {
		if d.Scale == 60 {
			d60 = true
			if d.Windows != int64(len(counts60)) || !near(d.Mean, cm, 1e-12) || d.IDC == nil || !near(*d.IDC, cv/cm, 1e-9) {
				t.Errorf("IDC(60 s): %+v; want %d windows, mean %v, IDC %v", d, len(counts60), cm, cv/cm)
			}
		}
	}
	if !d60 {
		t.Error("no 60 s dispersion")
	}
	if s.Keys == nil || s.Keys.Distinct != len(clients) || !near(s.Keys.Top10Share, float64(top)/float64(n), 1e-15) {
		t.Errorf("keys %+v; want %d distinct, top-10 share %v", s.Keys, len(clients), float64(top)/float64(n))
	}
	allowed := int64(math.Floor(0.01 * float64(n)))
	if len(s.Fit) != 3 {
		t.Fatalf("fit %+v, want 3 rates", s.Fit)
	}
	for _, p := range s.Fit {
		if d := bucketDelays(t, ts, p.Rate, p.None*(1+1e-9)); d != 0 {
			t.Errorf("r = %v: bucket b(r) = %v delays %d jobs, want 0", p.Rate, p.None, d)
		}
		if d := bucketDelays(t, ts, p.Rate, p.None-1e-6); p.None-1e-6 >= 1 && d == 0 {
			t.Errorf("r = %v: bucket b(r) - 1e-6 delays nobody: b(r) = %v is not the smallest", p.Rate, p.None)
		}
		if d := bucketDelays(t, ts, p.Rate, p.Target*(1+1e-9)); d > allowed {
			t.Errorf("r = %v: bucket %v delays %d > %d jobs", p.Rate, p.Target, d, allowed)
		}
		if d := bucketDelays(t, ts, p.Rate, p.Target-1e-6); p.Target-1e-6 >= 1 && d <= allowed {
			t.Errorf("r = %v: bucket %v - 1e-6 delays %d <= %d: not the smallest", p.Rate, p.Target, d, allowed)
		}
	}
	if s.Fit[2].None != peak1 { // r = 20 > 17 jobs/s: only the busiest second matters
		t.Errorf("b(20) = %v, want %v", s.Fit[2].None, peak1)
	}
}

// TestTraceStatsEveryTrace runs trace stats on every trace under
// ../shared/traces and checks the job counts of PROVENANCE.md.
func TestTraceStatsEveryTrace(t *testing.T) {
	for _, tc := range []struct {
		rel  string
		args []string
		jobs int64
		keys int
	}{
		{"nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv", []string{"--time-col", "ts_unix"}, 30_969, 0},
		{"azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv", []string{"--time-col", "TIMESTAMP", "--time-format", "datetime"}, 8_819, 0},
		{"alibaba-gentd26/lora_request_trace.csv", []string{"--time-col", "gmt_create", "--time-format", "datetime", "--key-col", "groupId"}, 26_823, 4_247},
		{"azure-functions-2019/azure_functions_2019_invocations_per_minute_sample.csv", []string{"--format", "wide", "--series", "function=func-08"}, 30_527, 0},
		// func-05 has two rows (two days): 27,056 + 52,396.
		{"azure-functions-2019/azure_functions_2019_invocations_per_minute_sample.csv", []string{"--format", "wide", "--series", "function=func-05", "--spread", "random"}, 79_452, 0},
	} {
		s := traceStatsJSON(t, append([]string{sharedTrace(t, tc.rel)}, tc.args...)...)
		if s.Jobs != tc.jobs || tc.keys > 0 && (s.Keys == nil || s.Keys.Distinct != tc.keys) {
			t.Errorf("%s: %d jobs, keys %+v; want %d jobs, %d keys", tc.rel, s.Jobs, s.Keys, tc.jobs, tc.keys)
		}
	}
}

// TestTraceStatsAccessLog: the golden report of a hand-written access log
// (plain and gzip-compressed, which must print the same figures), and its
// figure.
func TestTraceStatsAccessLog(t *testing.T) {
	out, errOut, code := ratesim(t, "trace", "stats", "testdata/access_sample.log", "--key-col", "host", "--fit", "--rates", "0.5,1,2")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	golden(t, "trace_stats_access.golden", out)
	data, _ := os.ReadFile("testdata/access_sample.log")
	var z bytes.Buffer
	w := gzip.NewWriter(&z)
	w.Write(data)
	w.Close()
	gz := filepath.Join(t.TempDir(), "access_sample.log.gz")
	if err := os.WriteFile(gz, z.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	png := filepath.Join(t.TempDir(), "access.png")
	out2, errOut, code := ratesim(t, "trace", "stats", gz, "--key-col", "host", "--fit", "--rates", "0.5,1,2", "--plot", png)
	if code != 0 {
		t.Fatalf("gz: exit %d: %s", code, errOut)
	}
	if strings.Replace(out2, gz, "testdata/access_sample.log", 1) != out {
		t.Errorf("gzip report differs:\n%s\nwant\n%s", out2, out)
	}
	if fi, err := os.Stat(png); err != nil || fi.Size() < 10_000 {
		t.Errorf("--plot: %v", err)
	}
}

// TestTraceStatsFormats reads a JSON-lines and a counts trace.
func TestTraceStatsFormats(t *testing.T) {
	dir := t.TempDir()
	jl := filepath.Join(dir, "e.jsonl")
	os.WriteFile(jl, []byte(`{"ts": "2023-11-16T23:59:59Z", "u": "a"}`+"\n"+`{"ts": "2023-11-17T00:00:01Z", "u": "b"}`+"\n"), 0o644)
	s := traceStatsJSON(t, jl, "--time-col", "ts", "--time-format", "rfc3339", "--key-col", "u")
	if s.Jobs != 2 || s.Duration != 2 || s.Keys.Distinct != 2 || s.Format != "jsonl" {
		t.Errorf("jsonl: %+v", s)
	}
	c := filepath.Join(dir, "c.csv")
	os.WriteFile(c, []byte("t,n\n0,3\n60,0\n120,2\n"), 0o644)
	s = traceStatsJSON(t, c, "--format", "counts")
	if s.Jobs != 5 || s.Duration != 150 || s.Format != "counts" {
		t.Errorf("counts: %+v", s)
	}
}

func TestTraceStatsErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.log")
	os.WriteFile(bad, []byte("h - - [01/Aug/1995:00:00:01 -0400] x\nno time here\n"), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"trace", "stats"}, "accepts 1 arg"},
		{[]string{"trace"}, "needs a subcommand"},
		{[]string{"trace", "stats", "testdata/missing.csv"}, "missing.csv"},
		{[]string{"trace", "stats", bad}, "bad.log:2: no [timestamp]"},
		{[]string{"trace", "stats", "testdata/access_sample.log", "--rates", "1"}, "--rates and --delayed apply to --fit only"},
		{[]string{"trace", "stats", "testdata/access_sample.log", "--fit", "--rates", "1,x"}, "--rates 1,x"},
		{[]string{"trace", "stats", "testdata/access_sample.log", "--fit", "--delayed", "1"}, "--delayed 1"},
		{[]string{"trace", "stats", "testdata/access_sample.log", "--format", "xml"}, "--format xml"},
		{[]string{"trace", "stats", "testdata/access_sample.log", "--key-col", "status"}, "not a CLF field"},
		{[]string{"trace", "stats", "testdata/keyed.csv", "--series", "a=b"}, "series option does not apply to format csv"},
		{[]string{"trace", "stats", "testdata/access_sample.log", "--plot", filepath.Join(t.TempDir(), "x.gif")}, "--plot"},
	} {
		_, errOut, code := ratesim(t, tc.args...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %q", tc.args, code, errOut, tc.want)
		}
	}
	_, errOut, code := ratesim(t, "trace", "stats", bad, "--skip-bad")
	if code != 0 || !strings.Contains(errOut, "skipped 1 bad line of") {
		t.Errorf("--skip-bad: exit %d, stderr %q", code, errOut)
	}
}

// TestStatsTitle: the title of trace stats --plot says what the panels
// show, of which trace and over what span, not only the file name (issue
// 15); spans are written in a reader's unit, never in e-notation.
func TestStatsTitle(t *testing.T) {
	sum := arrivals.TraceSummary{Jobs: 1891714, Duration: 2678399 * engine.Second}
	info := passInfo{origin: "1995-07-01T04:00:00Z"}
	got := statsTitle("/data/traces/nasa-jul95.tsv.gz", "tsv", info, sum, nil)
	if want := "Arrival rate and interarrival gaps of trace nasa-jul95.tsv.gz (tsv, 1891714 jobs over 31 days from 1995-07-01T04:00:00Z)"; got != want {
		t.Errorf("title %q\nwant  %q", got, want)
	}
	got = statsTitle("counts.csv", arrivals.FormatCounts, passInfo{counts: "per-second counts, spread evenly"}, arrivals.TraceSummary{Jobs: 10, Duration: 45600 * engine.Millisecond}, &burstFit{})
	if want := "Arrival rate, interarrival gaps and burstiness curve b(r) of trace counts.csv (per-second counts, spread evenly, 10 jobs over 45.6 s)"; got != want {
		t.Errorf("title %q\nwant  %q", got, want)
	}
	for d, want := range map[float64]string{45.6: "45.6 s", 599: "599 s", 1234: "20.6 min", 100000: "27.8 h", 3 * 86400: "3 days", 1096 * 86400: "1096 days", 0.5: "0.5 s"} {
		if got := spanText(d); got != want {
			t.Errorf("spanText(%v) = %q, want %q", d, got, want)
		}
	}
}
