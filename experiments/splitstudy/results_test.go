package splitstudy

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
)

func decodeResults(b []byte, r *Results) error { return json.Unmarshal(b, r) }

func pointJSON(t *testing.T, p PointResult) string {
	t.Helper()
	b, err := json.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestNumJSON: NaN is null, infinities are strings, finite values round
// trip exactly.
func TestNumJSON(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{math.NaN(), "null"}, {math.Inf(1), `"+Inf"`}, {math.Inf(-1), `"-Inf"`},
		{0.1, "0.1"}, {1e-7, "1e-07"}, {123456789.125, "1.23456789125e+08"}, {0, "0"},
	} {
		b, err := json.Marshal(experiments.Num(tc.x))
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.x, b, err, tc.want)
			continue
		}
		var back experiments.Num
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if float64(back) != tc.x && !(math.IsNaN(tc.x) && math.IsNaN(float64(back))) {
			t.Errorf("round trip of %v gave %v", tc.x, back)
		}
	}
	var x experiments.Num
	if err := json.Unmarshal([]byte(`"high"`), &x); err == nil {
		t.Error(`Unmarshal("high"): no error`)
	}
}

// TestResultsFiles: the CSV has the documented header and one row per
// point with every column, and the JSON reads back to the same bytes.
func TestResultsFiles(t *testing.T) {
	s := smallSpec(t)
	s.Replications = 2
	s.Sweep = Sweep{{{Name: "load", Values: []any{0.6}}, {Name: "p", Values: []any{0.25, 0.5}}}}
	res, err := RunSweep(t.Context(), s, experiments.SweepOptions{Workers: 2}, nil)
	if err != nil {
		t.Fatal(err)
	}
	res.Version, res.GoVersion = "test", "go-test"
	dir := t.TempDir()
	cp, jp := filepath.Join(dir, "r.csv"), filepath.Join(dir, "r.json")
	if err := res.WriteFiles(cp, jp); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(cp)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	header := "point,arrivals,load,lambda_jobs_per_s,rate_tokens_per_s,burst_tokens,k,p,q_rate,q_burst,traffic_shares,rate_shares,burst_shares,dispatch,order,jobs,warmup,replications," +
		"one_mean_delay_s,one_mean_delay_ci95_s,split_mean_delay_s,split_mean_delay_ci95_s,mean_delay_ratio,mean_delay_ratio_ci95_lo,mean_delay_ratio_ci95_hi," +
		"one_p50_delay_s,one_p90_delay_s,one_p99_delay_s,one_p999_delay_s,split_p50_delay_s,split_p90_delay_s,split_p99_delay_s,split_p999_delay_s," +
		"one_delayed_fraction,split_delayed_fraction,max_sub_load,one_pk_mean_delay_s,split_pk_mean_delay_s,violations,lemma_violations"
	if got := strings.Join(recs[0], ","); got != header {
		t.Errorf("header\n%s\nwant\n%s", got, header)
	}
	if len(recs) != 3 {
		t.Fatalf("%d rows, want a header and 2 points", len(recs))
	}
	row := map[string]string{}
	for i, name := range recs[0] {
		row[name] = recs[2][i]
	}
	// Point 1: p = 0.5 at load 0.6 with r = 1; q = 0.5 (the default equal
	// split of b = 4): sub-bucket load 0.5·0.6/0.5 = 0.6.
	for k, want := range map[string]string{"point": "1", "load": "0.6", "lambda_jobs_per_s": "0.6", "p": "0.5", "q_rate": "0.5",
		"traffic_shares": "0.5;0.5", "dispatch": "weighted", "jobs": "4000", "warmup": "400", "replications": "2",
		"max_sub_load": "0.6", "split_pk_mean_delay_s": "", "violations": "0"} {
		if row[k] != want {
			t.Errorf("column %s = %q, want %q", k, row[k], want)
		}
	}
	back, err := ReadResults(jp)
	if err != nil {
		t.Fatal(err)
	}
	_, j1 := encode(t, res)
	_, j2 := encode(t, back)
	if !bytes.Equal(j1, j2) {
		t.Errorf("JSON round trip differs:\n%s\n%s", j1, j2)
	}
	if back.Spec.Sweep[0][1].Name != "p" {
		t.Errorf("sweep axes out of order after a round trip: %+v", back.Spec.Sweep)
	}
	// No temporary files are left behind.
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files in the output folder, want 2", len(ents))
	}
}

func TestReadResultsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{"schema_version": 3, "ratesim_version": "x", "surprise": 1}`), 0o644)
	if _, err := ReadResults(bad); err == nil || !strings.Contains(err.Error(), "bad.json") || !strings.Contains(err.Error(), "surprise") {
		t.Errorf("unknown field: error %v, want one naming the file and the field", err)
	}
	nospec := filepath.Join(dir, "nospec.json")
	os.WriteFile(nospec, []byte(`{"schema_version": 3, "points": []}`), 0o644)
	if _, err := ReadResults(nospec); err == nil || !strings.Contains(err.Error(), "without a spec") {
		t.Errorf("results without a spec: error %v", err)
	}
	// Results of the first layout (no schema_version, "mean_one_s") are
	// refused by version, not by their first unknown key.
	old := filepath.Join(dir, "old.json")
	os.WriteFile(old, []byte(`{"ratesim_version": "(devel)", "points": [{"mean_one_s": 1}]}`), 0o644)
	if _, err := ReadResults(old); err == nil || !strings.Contains(err.Error(), "results without a schema_version") || !strings.Contains(err.Error(), "reads 3") {
		t.Errorf("first-layout results: error %v, want one saying it has no schema_version and which this ratesim reads", err)
	}
}
