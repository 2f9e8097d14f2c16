package drlstudy

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/internal/specfile"
)

func parseStudy(t *testing.T, y string) *Study {
	t.Helper()
	s, err := ParseStudy(strings.NewReader(y), "s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func runStudy(t *testing.T, s *Study, workers int) *experiments.Table {
	t.Helper()
	tab, err := experiments.RunModel(context.Background(), s.Name, ModelName, s, experiments.SweepOptions{Workers: workers})
	if err != nil {
		t.Fatal(err)
	}
	return tab
}

// With T = 0 and no message delay every hit reaches the owner at once,
// so reconcile decides as the one bucket (TestSyncZeroPeriodIsOneBucket, job
// by job): at every point of a sweep over N and the load, in every
// replication, the reconcile rows equal the one rows (messages aside).
func TestStudySyncZeroIsOne(t *testing.T) {
	s := parseStudy(t, `
model: drl
drl: {designs: "one,reconcile", police: true, sync_period: 0, sync_delay: 0, jobs: 800}
replications: 2
sweep:
  nodes: [1, 2, 5]
  load: [0.8, 1.5]
`)
	tab := runStudy(t, s, 2)
	if len(tab.Rows) != 12 {
		t.Fatalf("%d rows, want 2 designs × 6 points", len(tab.Rows))
	}
	for i := 0; i < len(tab.Rows); i += 2 {
		one, sync := tab.Rows[i], tab.Rows[i+1]
		if one[1] != "one" || sync[1] != "reconcile" {
			t.Fatalf("rows %d, %d: designs %v, %v", i, i+1, one[1], sync[1])
		}
		for c, name := range tab.Columns {
			if strings.HasPrefix(name, "messages") {
				continue
			}
			if c > 1 && !same(one[c], sync[c]) {
				t.Errorf("point %v: %s: sync %v, one %v", one[2:4], name, sync[c], one[c])
			}
		}
	}
}

func same(a, b any) bool {
	x, ok1 := a.(float64)
	y, ok2 := b.(float64)
	if ok1 && ok2 && math.IsNaN(x) && math.IsNaN(y) {
		return true
	}
	return a == b
}

// A study's results are a function of the spec and seed: the same bytes
// on one worker and on two.
func TestStudyWorkers(t *testing.T) {
	y := `
name: w
model: drl
drl: {designs: "one,static,reconcile,store", police: true, jobs: 500, rtt: "uniform:1ms:3ms", sync_delay: "lognormal:2ms:0.5", loss: 0.1}
replications: 3
seed: 9
sweep: {sync_period: [0, 10ms, 1s], nodes: [2, 4]}
`
	var out [2][]byte
	for i, w := range []int{1, 2} {
		tab := runStudy(t, parseStudy(t, y), w)
		var b bytes.Buffer
		if err := tab.WriteCSV(&b); err != nil {
			t.Fatal(err)
		}
		if err := tab.WriteJSON(&b); err != nil {
			t.Fatal(err)
		}
		out[i] = b.Bytes()
	}
	if !bytes.Equal(out[0], out[1]) {
		t.Errorf("-j1 and -j2 differ:\n%s\n%s", out[0], out[1])
	}
	// Independent replications: the spread of the reconcile row over the 3
	// seeds is not 0 (Poisson arrivals differ), so the CI is > 0.
	tab := runStudy(t, parseStudy(t, y), 2)
	if c := tab.Column("admitted_ci95"); !(tab.Rows[0][c].(float64) > 0) {
		t.Errorf("admitted_ci95 %v, want > 0 over independent replications", tab.Rows[0][c])
	}
}

// A study of one point, one replication, is Params.Run with the seed
// experiments.ReplicationSeed(seed, 0, 0).
func TestStudyOnePointIsRun(t *testing.T) {
	s := parseStudy(t, `
model: drl
drl: {designs: "one,static,lease", nodes: 3, burst: 30, load: 1.1, jobs: 700, police: true}
seed: 5
`)
	tab := runStudy(t, s, 1)
	p := DefaultParams()
	p.Designs, p.Nodes, p.Burst, p.Load, p.Jobs, p.Police = "one,static,lease", 3, "30", 1.1, 700, true
	p.Seed = experiments.ReplicationSeed(5, 0, 0)
	c, err := p.Run(context.Background(), false)
	if err != nil {
		t.Fatal(err)
	}
	for i, sum := range c.Summaries {
		r := tab.Rows[i][1:] // after the point column
		want := []any{sum.Design, float64(sum.Admitted), float64(sum.Rejected), sum.Mean, sum.P99, sum.Overshoot, float64(sum.ShaperDelayed), sum.OverRate, float64(sum.Messages)}
		for j, w := range want {
			if !same(r[j], w) {
				t.Errorf("%s: %s = %v, want %v", sum.Design, tab.Columns[j+1], r[j], w)
			}
		}
	}
}

func TestStudyErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"model: drl\ndrl:\n  nodes: 2\n  sync_perid: 1s\n", "s.yaml:4: field sync_perid is not a drl parameter"},
		{"model: drl\nreplicas: 2\n", "s.yaml:2: field replicas is not a field of a drl spec"},
		{"model: drl\ndrl:\n  sync_period: 1.5ns\n", "s.yaml:3: sync_period 1.5ns: want a duration that fits (finer than 1 ns: 1ns or 2ns fit)"},
		{"model: drl\ndrl:\n  nodes: four\n", "s.yaml:3: nodes four: want a whole number"},
		{"model: drl\ndrl: {burst: 4}\nsweep:\n  nodes: [2, 4,\n    8]\n", "s.yaml:2: drl.burst: at sweep point 2 (nodes=8): 4: want a burst of at least one token per node"},
		{"model: drl\nsweep:\n  sync_period: [0, -1s]\n", "s.yaml:3: sweep.sync_period: at sweep point 1 (sync_period=-1s): -1s: want a duration"},
		{"model: drl\nsweep:\n  nodes: [2, x]\n", "s.yaml:3: sweep.nodes: x: want a whole number"},
		{"model: drl\nsweep:\n  designs: [one]\n", "s.yaml:3: sweep: unknown parameter \"designs\""},
		{"model: drl\nreplications: 0\n", "s.yaml:2: replications: 0, want between 1"},
		{"model: drl\ndrl:\n  trace: {path: x, bad: 1}\n", "s.yaml:3: field bad is not a trace field"},
		{"model: drl\ndrl:\n  rate: 10/0\n", "s.yaml:3: rate 10/0: want a decimal or a fraction p/q"},
		{"model: drl\ndrl:\n  trace: {format: csv}\n", "s.yaml:3: drl.trace: the trace block has no path"},
	} {
		_, err := ParseStudy(strings.NewReader(c.yaml), "s.yaml")
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: error %v, want %q", c.yaml, err, c.want)
		}
		if err != nil && !errors.Is(err, specfile.ErrSpec) && !errors.Is(err, drl.ErrSpec) {
			t.Errorf("%q: %v wraps neither specfile.ErrSpec nor drl.ErrSpec", c.yaml, err)
		}
	}
}

// The figures of a study: one pair per value of the other axes, the x
// axis the first numeric one, CI bands with replications.
func TestSweepFigures(t *testing.T) {
	tab := runStudy(t, parseStudy(t, `
model: drl
drl: {designs: "one,static,reconcile", police: true, jobs: 300}
replications: 2
sweep: {sync_period: [0, 100ms, inf], nodes: [2, 4]}
`), 2)
	figs := SweepFigures(tab, "c")
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
	}
	want := "drl-sweep-overshoot-nodes-2 drl-sweep-delay-nodes-2 drl-sweep-overshoot-nodes-4 drl-sweep-delay-nodes-4"
	if strings.Join(names, " ") != want {
		t.Fatalf("figures %v, want %s", names, want)
	}
}

// A trace is read whole unless jobs is given, as ratesim drl --trace.
func TestStudyTraceJobs(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/t.csv", []byte("time\n1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseStudy(strings.NewReader("model: drl\ndrl:\n  trace:\n    path: "+dir+"/none.csv\n"), "s.yaml"); err == nil || !strings.Contains(err.Error(), "s.yaml:3: drl.trace: ") {
		t.Errorf("a missing trace: %v", err)
	}
	for _, c := range []struct {
		extra string
		want  int64
	}{{"", 0}, {"  jobs: 50\n", 50}} {
		s := parseStudy(t, "model: drl\ndrl:\n  trace: {path: "+dir+"/t.csv}\n"+c.extra)
		if got := s.Point(0).Jobs; got != c.want {
			t.Errorf("%q: jobs %d, want %d", c.extra, got, c.want)
		}
	}
}

// The example specs of model drl in ../../testdata parse.
func TestTestdataStudies(t *testing.T) {
	files, _ := filepath.Glob("../../testdata/*.yaml")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if m, _ := specfile.Model(data, f); m != ModelName {
			continue
		}
		n++
		if _, err := ReadStudy(f); err != nil {
			t.Error(err)
		}
	}
	if n == 0 {
		t.Error("no drl example spec in ../../testdata")
	}
}
