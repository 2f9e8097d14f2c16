package experiments

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
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
		b, err := json.Marshal(Num(tc.x))
		if err != nil || string(b) != tc.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tc.x, b, err, tc.want)
			continue
		}
		var back Num
		if err := json.Unmarshal(b, &back); err != nil {
			t.Fatal(err)
		}
		if float64(back) != tc.x && !(math.IsNaN(tc.x) && math.IsNaN(float64(back))) {
			t.Errorf("round trip of %v gave %v", tc.x, back)
		}
	}
	var x Num
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
	res, err := RunSweep(t.Context(), s, SweepOptions{Workers: 2})
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
		"mean_one_s,mean_one_ci95_s,mean_split_s,mean_split_ci95_s,ratio,ratio_ci95_lo,ratio_ci95_hi," +
		"p50_one_s,p90_one_s,p99_one_s,p999_one_s,p50_split_s,p90_split_s,p99_split_s,p999_split_s," +
		"delayed_one,delayed_split,max_sub_load,pk_one_s,pk_split_s,violations,lemma_violations"
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
		"max_sub_load": "0.6", "pk_split_s": "", "violations": "0"} {
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
	os.WriteFile(bad, []byte(`{"ratesim_version": "x", "surprise": 1}`), 0o644)
	if _, err := ReadResults(bad); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("unknown field: error %v, want one naming the file", err)
	}
	nospec := filepath.Join(dir, "nospec.json")
	os.WriteFile(nospec, []byte(`{"points": []}`), 0o644)
	if _, err := ReadResults(nospec); err == nil {
		t.Error("results without a spec: no error")
	}
}
