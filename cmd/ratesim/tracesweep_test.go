package main

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestTraceSweepWholeTrace runs a split sweep over the Azure LLM code
// trace (8819 requests) with no jobs or warmup: it measures the whole
// trace, as ratesim run does. One point, r = 3, b = 10, k = 2, weighted
// dispatch with p = q = 0.5. The one bucket does not depend on the
// dispatch, so its mean delay equals run's on the same trace and bucket
// exactly (every replication reads the same trace: the mean of equal
// means); jobs in results.csv equal the trace's jobs, the warm-up is 0;
// and the sub-bucket load is the trace's mean rate (n - 1)/span split by
// p over q·r, with n and span from run.
func TestTraceSweepWholeTrace(t *testing.T) {
	path := sharedTrace(t, "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv")
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	out, stderr, code := ratesim(t, "run", "--trace", path, "--time-col", "TIMESTAMP", "--time-format", "datetime", "--rate", "3", "--burst", "10", "--k", "2", "--json")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, stderr)
	}
	var run struct {
		Jobs int64
		Span float64 `json:"span_s"`
		One  struct {
			Mean float64 `json:"mean_delay_s"`
		}
	}
	if err := json.Unmarshal([]byte(out), &run); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	spec := filepath.Join(dir, "az.yaml")
	text := fmt.Sprintf("trace:\n  path: %s\n  time_col: TIMESTAMP\n  time_format: datetime\nrate: 3\nburst: 10\nk: 2\ndispatch: weighted\nsweep:\n  p: [0.5]\n  q: [0.5]\n", abs)
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	res := filepath.Join(dir, "out")
	if _, stderr, code := ratesim(t, "sweep", spec, "-o", res, "--no-figures", "--quiet"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	var sw struct {
		Points []struct {
			Jobs, Warmup int64
			MaxSubLoad   float64 `json:"max_sub_load"`
			One          struct {
				Mean float64 `json:"mean_delay_s"`
			}
		}
	}
	data, err := os.ReadFile(filepath.Join(res, "results.json"))
	if err != nil || json.Unmarshal(data, &sw) != nil || len(sw.Points) != 1 {
		t.Fatalf("results.json: %v, %d points", err, len(sw.Points))
	}
	p := sw.Points[0]
	if run.Jobs != 8819 || p.Jobs != run.Jobs || p.Warmup != 0 {
		t.Errorf("sweep measured %d jobs after %d warm-up, run %d; want the trace's 8819 after 0", p.Jobs, p.Warmup, run.Jobs)
	}
	if p.One.Mean != run.One.Mean {
		t.Errorf("one-bucket mean: sweep %v s, run %v s; want equal", p.One.Mean, run.One.Mean)
	}
	// 0.5·λ/(0.5·3), λ = 8818 jobs over the span; the span is rounded to
	// the nanosecond in run's JSON, hence the tolerance.
	if want := 0.5 * float64(run.Jobs-1) / run.Span / 1.5; math.Abs(p.MaxSubLoad-want) > 1e-12 {
		t.Errorf("max sub-bucket load %v, want %v", p.MaxSubLoad, want)
	}
	f, err := os.Open(filepath.Join(res, "results.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 2 {
		t.Fatalf("results.csv: %v, %d rows", err, len(rows))
	}
	for i, h := range rows[0] {
		if h == "jobs" || h == "warmup" {
			want := strconv.FormatInt(p.Jobs, 10)
			if h == "warmup" {
				want = "0"
			}
			if rows[1][i] != want {
				t.Errorf("results.csv %s = %s, want %s", h, rows[1][i], want)
			}
		}
	}
}
