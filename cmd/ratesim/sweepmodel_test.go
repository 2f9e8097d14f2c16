package main

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/experiments"
)

func writeSpec(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "spec.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readCSV(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// A DRL spec of one point and one replication gives the numbers ratesim
// drl prints with the same flags and the replication's seed,
// experiments.ReplicationSeed(seed, 0, 0).
func TestSweepDRLOnePointIsDRL(t *testing.T) {
	spec := writeSpec(t, `
name: one-point
model: drl
drl:
  designs: one,static,sync
  load: 0.95
  jobs: 2000
  sync_delay: 5ms
  sync_period: 10ms
seed: 3
`)
	out := filepath.Join(t.TempDir(), "o")
	_, errOut, code := ratesim(t, "sweep", spec, "-o", out, "-q", "--no-figures")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	seed := experiments.ReplicationSeed(3, 0, 0)
	res := drlJSONRun(t, "--designs", "one,static,sync", "--load", "0.95", "--jobs", "2000", "--sync-delay", "5ms",
		"--sync-period", "10ms", "--seed", strconv.FormatUint(seed, 10))
	if len(rows) != 1+len(res.Designs) {
		t.Fatalf("%d rows, want a header and %d", len(rows), len(res.Designs))
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	for i, d := range res.Designs {
		r := rows[i+1]
		if d.Mean == 0 {
			t.Errorf("%s: mean delay 0: a shaping run should delay some jobs", d.Design)
		}
		for _, c := range []struct {
			name string
			want float64
		}{{"admitted", float64(d.Admitted)}, {"rejected", float64(d.Rejected)}, {"mean_delay_s", d.Mean}, {"p99_delay_s", d.P99}, {"worst_overshoot", d.Overshoot}} {
			got, err := strconv.ParseFloat(r[col(c.name)], 64)
			if r[col("design")] != d.Design || err != nil || got != c.want {
				t.Errorf("%s %s: sweep %q, drl %v", d.Design, c.name, r[col(c.name)], c.want)
			}
		}
	}
}

const drlSweepSpec = `
model: drl
drl: {designs: "one,static,sync", police: true, load: 1.2, jobs: 400, sync_delay: "uniform:1ms:5ms"}
replications: 2
seed: 4
sweep:
  sync_period: [0, 10ms, 1s]
  nodes: [2, 4]
`

// Same seed, same bytes, on one worker or two; and the two shards of the
// sweep hold the rows of the whole one.
func TestSweepDRLWorkersAndShards(t *testing.T) {
	spec := writeSpec(t, drlSweepSpec)
	var files [2][]byte
	dirs := [2]string{}
	for i, j := range []string{"1", "2"} {
		dirs[i] = filepath.Join(t.TempDir(), "o"+j)
		_, errOut, code := ratesim(t, "sweep", spec, "-o", dirs[i], "-q", "--no-figures", "-j", j)
		if code != 0 {
			t.Fatalf("-j %s: exit %d: %s", j, code, errOut)
		}
		for _, n := range []string{"results.csv", "results.json"} {
			b, err := os.ReadFile(filepath.Join(dirs[i], n))
			if err != nil {
				t.Fatal(err)
			}
			files[i] = append(files[i], b...)
		}
	}
	if !bytes.Equal(files[0], files[1]) {
		t.Errorf("-j1 and -j2 wrote different results")
	}
	whole := readCSV(t, filepath.Join(dirs[0], "results.csv"))
	var union [][]string
	sh := filepath.Join(t.TempDir(), "shards")
	for _, s := range []string{"1/2", "2/2"} {
		_, errOut, code := ratesim(t, "sweep", spec, "-o", sh, "-q", "--shard", s)
		if code != 0 {
			t.Fatalf("--shard %s: exit %d: %s", s, code, errOut)
		}
		recs := readCSV(t, filepath.Join(sh, "shard-"+s[:1]+"-of-2.csv"))
		union = append(union, recs[1:]...)
	}
	// Merged, the shards give the whole sweep's files, byte for byte.
	merged := filepath.Join(t.TempDir(), "merged")
	_, errOut, code := ratesim(t, "merge", filepath.Join(sh, "shard-1-of-2.json"), filepath.Join(sh, "shard-2-of-2.json"), "-o", merged, "--no-figures")
	if code != 0 {
		t.Fatalf("merge: exit %d: %s", code, errOut)
	}
	for _, n := range []string{"results.csv", "results.json"} {
		a, _ := os.ReadFile(filepath.Join(dirs[0], n))
		b, _ := os.ReadFile(filepath.Join(merged, n))
		if !bytes.Equal(a, b) {
			t.Errorf("merged %s differs from the whole sweep's:\n%s\n%s", n, a, b)
		}
	}
	// ratesim plot draws the study's figures from its results: a pair per
	// value of nodes, against sync_period.
	out, errOut, code := ratesim(t, "plot", filepath.Join(merged, "results.json"), "--out", filepath.Join(t.TempDir(), "f"), "--plot-format", "svg")
	if code != 0 || !strings.Contains(out, "plotted    6 points") || !strings.Contains(out, "drl-sweep-overshoot-nodes-4.svg") {
		t.Errorf("plot: exit %d, %s%s", code, out, errOut)
	}
	key := func(r []string) string { return strings.Join(r, ",") }
	var a, b []string
	for _, r := range whole[1:] {
		a = append(a, key(r))
	}
	for _, r := range union {
		b = append(b, key(r))
	}
	slices.Sort(a)
	slices.Sort(b)
	if !slices.Equal(a, b) {
		t.Errorf("the shards' rows are not the whole sweep's:\n%v\n%v", a, b)
	}
}

func TestSweepDRLErrors(t *testing.T) {
	good := writeSpec(t, drlSweepSpec)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{writeSpec(t, "model: drl\ndrl:\n  nodes: 2\n  sync_perod: 1s\n")}, "spec.yaml:4: field sync_perod is not a drl parameter"},
		{[]string{writeSpec(t, "model: drl\nsweep:\n  rtt: [1ms, 2 xs]\n")}, "spec.yaml:3: sweep.rtt: at sweep point 1 (rtt=2 xs): 2 xs: want a delay"},
		{[]string{writeSpec(t, "model: dr1\n")}, `model "dr1": want one of split, clients, drl`},
		{[]string{good, "--resume", "--force"}, "--resume keeps the finished points"},
		{[]string{good, "--k", "3"}, "--k applies to split specs"},
	} {
		_, errOut, code := ratesim(t, append(append([]string{"sweep"}, c.args...), "-o", t.TempDir(), "-q")...)
		if code != exitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
}

// A trace block reads the trace as ratesim drl --trace does, keys
// included.
func TestSweepDRLTrace(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.csv")
	var b strings.Builder
	b.WriteString("time,key\n")
	for i := range 600 {
		// Three keys, the first twice as often, 40 jobs/s in all.
		fmt.Fprintf(&b, "%d.%03d,k%d\n", i/40, (i%40)*25, []int{0, 0, 1, 2}[i%4])
	}
	if err := os.WriteFile(trace, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := writeSpec(t, `
model: drl
drl:
  designs: one,static,store
  dispatch: hash
  police: true
  rate: 8
  burst: 8
  trace: {path: `+trace+`, key_col: key}
`)
	out := filepath.Join(dir, "o")
	if _, errOut, code := ratesim(t, "sweep", spec, "-o", out, "-q", "--no-figures"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	rows := readCSV(t, filepath.Join(out, "results.csv"))
	res := drlJSONRun(t, "--designs", "one,static,store", "--dispatch", "hash", "--police", "--rate", "8", "--burst", "8",
		"--trace", trace, "--key-col", "key", "--seed", strconv.FormatUint(experiments.ReplicationSeed(1, 0, 0), 10))
	ad := slices.Index(rows[0], "admitted")
	for i, d := range res.Designs {
		if d.Keys != 3 || d.Jobs != 600 {
			t.Errorf("%s: %d keys, %d jobs; want 3 and 600", d.Design, d.Keys, d.Jobs)
		}
		if rows[i+1][ad] != strconv.FormatInt(d.Admitted, 10) {
			t.Errorf("%s: sweep admitted %s, drl %d", d.Design, rows[i+1][ad], d.Admitted)
		}
	}
}

// --resume keeps the points an interrupted run finished and runs the
// others: the files are those of one uninterrupted run, byte for byte.
func TestSweepDRLResume(t *testing.T) {
	spec := writeSpec(t, drlSweepSpec)
	whole := filepath.Join(t.TempDir(), "whole")
	if _, errOut, code := ratesim(t, "sweep", spec, "-o", whole, "-q", "--no-figures"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	// An interrupted run: the points 0, 1 and 4 only.
	part := filepath.Join(t.TempDir(), "part")
	os.MkdirAll(part, 0o755)
	tab, err := experiments.ReadTable(filepath.Join(whole, "results.json"))
	if err != nil {
		t.Fatal(err)
	}
	keep := []int{0, 1, 4}
	var rows [][]any
	for _, r := range tab.Rows {
		if slices.Contains(keep, int(r[0].(float64))) {
			rows = append(rows, r)
		}
	}
	tab.Points, tab.Rows, tab.Interrupted = keep, rows, true
	if err := tab.WriteFiles(filepath.Join(part, "results.csv"), filepath.Join(part, "results.json")); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := ratesim(t, "sweep", spec, "-o", part, "--resume", "--no-figures", "--progress-every", "0")
	if code != 0 || !strings.Contains(errOut, "resumed: 3 finished, 3 to run") {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, n := range []string{"results.csv", "results.json"} {
		a, _ := os.ReadFile(filepath.Join(whole, n))
		b, _ := os.ReadFile(filepath.Join(part, n))
		if !bytes.Equal(a, b) {
			t.Errorf("resumed %s differs from the whole sweep's", n)
		}
	}
	// Another spec (one more replication) does not resume these results.
	other := writeSpec(t, strings.Replace(drlSweepSpec, "replications: 2", "replications: 3", 1))
	_, errOut, code = ratesim(t, "sweep", other, "-o", part, "--resume", "-q")
	if code != exitUsage || !strings.Contains(errOut, "--resume") || !strings.Contains(errOut, "another spec") {
		t.Errorf("resuming another spec: exit %d, %s", code, errOut)
	}
}
