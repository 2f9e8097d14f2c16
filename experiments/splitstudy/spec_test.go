package splitstudy

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/internal/specfile"

	"github.com/google/go-cmp/cmp"
)

// specJSON is a spec's canonical form for comparisons.
func specJSON(t *testing.T, s *Spec) string {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestParseSpecDefaults(t *testing.T) {
	s, err := ParseSpec(strings.NewReader("load: 0.5\n"), "min.yaml")
	if err != nil {
		t.Fatal(err)
	}
	want := DefaultSpec()
	want.Load = 0.5
	if got, w := specJSON(t, s), specJSON(t, &want); got != w {
		t.Errorf("spec %s, want %s", got, w)
	}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 1 || pts[0].Load != 0.5 || pts[0].K != 2 || pts[0].RateShares[0] != 0.5 || pts[0].Jobs != 100000 {
		t.Errorf("points %+v, want one point with the defaults and load 0.5", pts)
	}
}

// TestParseSpecErrors: each bad spec is an error naming the file, the line
// and the field.
func TestParseSpecErrors(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown field", "load: 0.9\nlod: 0.9\n", []string{"bad.yaml:2", "lod"}},
		{"wrong type", "load: high\n", []string{"bad.yaml:1", "high"}},
		{"bad load", "rate: 2\nload: -1\n", []string{"bad.yaml:2", "load", "-1"}},
		{"bad dispatch", "dispatch: hash\n", []string{"bad.yaml:1", "dispatch", "hash"}},
		{"shares sum", "k: 2\nrate_shares: [0.6, 0.6]\n", []string{"bad.yaml:2", "rate_shares", "adds up to 1.2"}},
		{"shares sum, exactly", "k: 2\nrate_shares: [0.7, 0.2]\n", []string{"bad.yaml:2", "rate_shares", "adds up to 0.9, want 1"}},
		{"duplicate axis value", "sweep:\n  load: [0.5, 0.5]\n", []string{"bad.yaml:2", "sweep.load", "value 0.5 given twice"}},
		{"share count", "k: 3\nburst_shares: [0.5, 0.5]\n", []string{"bad.yaml:2", "burst_shares", "2 shares for k = 3"}},
		{"traffic without weighted", "traffic_shares: [0.7, 0.3]\n", []string{"bad.yaml:1", "weighted"}},
		{"unknown axis", "sweep:\n  load: [0.5]\n  lod: [1]\n", []string{"bad.yaml:3", "lod"}},
		{"axis not a list", "sweep:\n  load: 0.5\n", []string{"bad.yaml:2", "sweep.load", "list"}},
		{"axis bad value", "sweep:\n  k: [2, two]\n", []string{"bad.yaml:2", "two"}},
		{"p with rr", "sweep:\n  p: [0.3, 0.5]\n", []string{"bad.yaml:2", "sweep.p", "weighted"}},
		{"burst below one at a point", "burst: 4\nsweep:\n  q: [0.5, 0.2]\n", []string{"bad.yaml:3", "sweep point 1", "q=0.2", "burst"}},
		{"axis conflicts with list", "rate_shares: [0.5, 0.5]\nsweep:\n  q_rate: [0.3]\n", []string{"bad.yaml:3", "rate_shares"}},
		{"replications", "replications: 0\n", []string{"bad.yaml:1", "replications"}},
		{"two documents", "load: 0.5\n---\nload: 0.6\n", []string{"bad.yaml", "more than one"}},
		{"empty", "", []string{"bad.yaml", "empty"}},
	} {
		_, err := ParseSpec(strings.NewReader(tc.text), "bad.yaml")
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, w)
			}
		}
		if !errors.Is(err, specfile.ErrSpec) {
			t.Errorf("%s: error %v does not wrap ErrSpec", tc.name, err)
		}
	}
}

// TestPointsOrder: grids one after the other, the last axis fastest,
// shorthand shares expanded, indexes consecutive.
func TestPointsOrder(t *testing.T) {
	text := `k: 3
dispatch: weighted
sweep:
  - load: [0.5, 0.9]
    p: [0.2, 0.6]
  - q_rate: [0.5]
`
	s, err := ParseSpec(strings.NewReader(text), "order.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Index, Grid int
		Load        float64
		Traffic     []float64
		Rates       []float64
	}
	var got []row
	for _, p := range pts {
		got = append(got, row{p.Index, p.Grid, p.Load, p.TrafficShares, p.RateShares})
	}
	third := 1.0 / 3
	want := []row{
		// p = 0.2: the other two sub-buckets get (1 - 0.2)/2 = 0.4 each.
		{0, 0, 0.5, []float64{0.2, 0.4, 0.4}, []float64{third, third, third}},
		{1, 0, 0.5, []float64{0.6, 0.2, 0.2}, []float64{third, third, third}},
		{2, 0, 0.9, []float64{0.2, 0.4, 0.4}, []float64{third, third, third}},
		{3, 0, 0.9, []float64{0.6, 0.2, 0.2}, []float64{third, third, third}},
		// Grid 1: traffic shares default to the rate shares.
		{4, 1, 0.9, []float64{0.5, 0.25, 0.25}, []float64{0.5, 0.25, 0.25}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("points (-want +got):\n%s", diff)
	}
	if n := s.NumPoints(); n != 5 {
		t.Errorf("NumPoints = %d, want 5", n)
	}
}

// TestDecimalShares: q = 0.9 of b = 10 leaves 0.1 (not 1 - 0.9 =
// 0.09999999999999998), so the second sub-bucket gets exactly 1 token.
func TestDecimalShares(t *testing.T) {
	s := DefaultSpec()
	s.Sweep = Sweep{{{Name: "q", Values: []any{0.9}}}}
	pts, err := s.Points()
	if err != nil {
		t.Fatal(err)
	}
	subs, err := pts[0].Subs()
	if err != nil {
		t.Fatal(err)
	}
	if pts[0].RateShares[1] != 0.1 || subs[1].Burst.Cmp(exact.Int(1)) != 0 || subs[0].Burst.Cmp(exact.Int(9)) != 0 {
		t.Errorf("shares %v, subs %+v; want 0.9, 0.1 and bursts 9, 1", pts[0].RateShares, subs)
	}
}

// TestSpecYAMLRoundTrip: the built-in spec written as YAML reads back to
// the same spec.
func TestSpecYAMLRoundTrip(t *testing.T) {
	s, err := Builtin("split-ratio")
	if err != nil {
		t.Fatal(err)
	}
	y, err := s.YAML()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseSpec(strings.NewReader(string(y)), "roundtrip.yaml")
	if err != nil {
		t.Fatalf("%v\n%s", err, y)
	}
	if got, want := specJSON(t, back), specJSON(t, s); got != want {
		t.Errorf("round trip:\n%s\nwant\n%s", got, want)
	}
}

// TestTestdataSpecs: the example specs of the split parse (those of other
// models are their packages' to test), and the split-ratio example is the
// built-in study.
func TestTestdataSpecs(t *testing.T) {
	files, err := filepath.Glob("../../testdata/*.yaml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example specs in ../../testdata (%v)", err)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m, err := specfile.Model(data, f); err != nil || m != specfile.SplitModel {
			continue
		}
		s, err := ReadSpec(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if filepath.Base(f) == "split-ratio.yaml" {
			b, _ := Builtin("split-ratio")
			if specJSON(t, s) != specJSON(t, b) {
				t.Errorf("%s differs from the built-in split-ratio study", f)
			}
		}
	}
}

func TestParseAxis(t *testing.T) {
	a, err := ParseAxis("load=0.5, 0.9")
	if err != nil || a.Name != "load" || len(a.Values) != 2 || a.Values[1] != 0.9 {
		t.Errorf("ParseAxis = %+v, %v", a, err)
	}
	a, err = ParseAxis("dispatch=rr,weighted")
	if err != nil || a.Values[1] != "weighted" {
		t.Errorf("ParseAxis(dispatch) = %+v, %v", a, err)
	}
	for _, bad := range []string{"load", "lod=1", "k=2.5", "p=x"} {
		if _, err := ParseAxis(bad); err == nil {
			t.Errorf("ParseAxis(%q): no error", bad)
		}
	}
}

func TestReadSpecMissing(t *testing.T) {
	_, err := ReadSpec(filepath.Join(t.TempDir(), "none.yaml"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadSpec of a missing file: %v", err)
	}
}

// TestSpecWarnings: the built-in study (10^5 jobs, warm-up 10^4) warns of
// nothing short; a 200-job spec without warm-up warns; a point whose
// sub-bucket gets load 1.2 warns of overload.
func TestSpecWarnings(t *testing.T) {
	s, err := Builtin("split-ratio")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range SpecWarnings(s) {
		if strings.Contains(w, "short") {
			t.Errorf("built-in study: %s", w)
		}
	}
	short := DefaultSpec()
	sp := &short
	short.Jobs, short.Warmup = 200, 0
	if ws := SpecWarnings(sp); len(ws) == 0 || !strings.Contains(ws[0], "short") {
		t.Errorf("200 jobs without warm-up: warnings %v", ws)
	}
	over := DefaultSpec()
	over.Sweep = Sweep{{{Name: "load", Values: []any{0.5, 1.2}}}}
	found := false
	for _, w := range SpecWarnings(&over) {
		found = found || strings.Contains(w, "1 of 2 points overload")
	}
	if !found {
		t.Errorf("load 1.2: warnings %v, want one about overload", SpecWarnings(&over))
	}
}

// TestSpecWarningsGridJobs: the short-replication warning reads the jobs
// that run at each point, a grid's jobs axis included, and quotes them.
// The default spec runs 10^5 jobs after 10^4; a grid jobs=200,100000
// makes point 0 short (200 < 10^4) and point 1 not; a grid of 200 and
// 500 makes both short, each quoted; warmup=0 on the grid makes every
// point short even with enough jobs.
func TestSpecWarningsGridJobs(t *testing.T) {
	for _, tc := range []struct {
		axes []string
		want string // "" for no short-replication warning
	}{
		{[]string{"jobs=20000,100000"}, ""},
		{[]string{"jobs=200,100000"}, "1 of 2 points have short replications (point 0: 200 jobs after a warm-up of 10000)"},
		{[]string{"jobs=200,500"}, "2 of 2 points have short replications (point 0: 200 jobs after a warm-up of 10000; point 1: 500 jobs after a warm-up of 10000)"},
		{[]string{"jobs=200"}, "replications of 200 measured jobs after a warm-up of 10000 are short"},
		{[]string{"warmup=0", "load=0.5,0.9"}, "replications of 100000 measured jobs after a warm-up of 0 are short"},
	} {
		s := DefaultSpec()
		var g Grid
		for _, a := range tc.axes {
			ax, err := ParseAxis(a)
			if err != nil {
				t.Fatal(err)
			}
			g = append(g, ax)
		}
		s.Sweep = Sweep{g}
		var got string
		for _, w := range SpecWarnings(&s) {
			if strings.Contains(w, "short") {
				got = w
			}
		}
		if tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("grid %v: warning %q, want %q", tc.axes, got, tc.want)
		}
	}
}

// TestSpecModelSplit: a split spec may name its model, and no other.
func TestSpecModelSplit(t *testing.T) {
	if _, err := ParseSpec(strings.NewReader("model: split\nk: 3\n"), "s.yaml"); err != nil {
		t.Errorf("model: split: %v", err)
	}
	if _, err := ParseSpec(strings.NewReader("model: other\n"), "s.yaml"); err == nil || !strings.Contains(err.Error(), "s.yaml:1: model") {
		t.Errorf("model: other: %v", err)
	}
}
