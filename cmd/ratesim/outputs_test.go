package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutputNeverReplacesInput: every output (a file, or a file an output
// folder would receive) that is an input, by its name, a symbolic link or
// a hard link, is refused with exit 2 naming the flag, before anything is
// written, and the input is left as it was.
func TestOutputNeverReplacesInput(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "seq.csv")
	os.WriteFile(trace, []byte("t\n0\n1\n2\n"), 0o644)
	// The trace under a figure's name, and links to it.
	png := filepath.Join(dir, "t.png")
	os.WriteFile(png, []byte("t\n0\n1\n2\n"), 0o644)
	sym, hard := filepath.Join(dir, "sym.png"), filepath.Join(dir, "hard.csv")
	if err := os.Symlink(trace, sym); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(trace, hard); err != nil {
		t.Fatal(err)
	}
	// A sweep whose results are inputs of merge and plot.
	sw := filepath.Join(dir, "sw")
	if _, errOut, code := ratesim(t, "sweep", "--jobs", "100", "--warmup", "0", "--replications", "2", "-q", "--grid", "load=0.5,0.9", "--shard", "1/1", "-o", sw); code != 0 {
		t.Fatalf("sweep: %d %s", code, errOut)
	}
	shard := filepath.Join(sw, "shard-1-of-1.json")
	if _, errOut, code := ratesim(t, "merge", shard, "-o", sw); code != 0 {
		t.Fatalf("merge: %d %s", code, errOut)
	}
	results := filepath.Join(sw, "results.json")
	// A shard named results.json, and results named as a figure.
	m := filepath.Join(dir, "m")
	os.Mkdir(m, 0o755)
	shardAsResults := filepath.Join(m, "results.json")
	b, _ := os.ReadFile(shard)
	os.WriteFile(shardAsResults, b, 0o644)
	os.Mkdir(filepath.Join(dir, "figures"), 0o755)
	if err := os.Symlink(shard, filepath.Join(dir, "figures", "ratio-grid0.png")); err != nil {
		t.Fatal(err)
	}
	figs := filepath.Join(dir, "figs")
	os.Mkdir(figs, 0o755)
	figInput := filepath.Join(figs, "ratio-grid0.png")
	b, _ = os.ReadFile(results)
	os.WriteFile(figInput, b, 0o644)

	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"trace", "stats", png, "--format", "csv", "--plot", png}, "--plot"},
		{[]string{"trace", "stats", trace, "--plot", sym}, "--plot"},
		{[]string{"run", "--trace", trace, "--jobs-out", hard}, "--jobs-out"},
		{[]string{"run", "--trace", trace, "--jobs-out", sym}, "--jobs-out"},
		{[]string{"run", "--trace", png, "--format", "csv", "--plot", dir}, "--plot"},
		{[]string{"limiters", "--trace", png, "--format", "csv", "--plot", dir}, "--plot"},
		{[]string{"merge", shardAsResults, "-o", m, "--force"}, "-o " + m}, // named as typed
		{[]string{"merge", shard, "-o", dir, "--force"}, "-o " + dir},      // a figure's name is a link to the shard
		{[]string{"plot", figInput, "--out", figs}, "--out"},
	} {
		before := map[string][]byte{}
		for _, p := range []string{trace, png, shard, results, shardAsResults, figInput} {
			before[p], _ = os.ReadFile(p)
		}
		out, errOut, code := ratesim(t, c.args...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.flag) || !strings.Contains(errOut, "input") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 naming %s and the input", c.args, code, out, errOut, c.flag)
		}
		for p, b := range before {
			if after, _ := os.ReadFile(p); !bytes.Equal(after, b) {
				t.Errorf("%v replaced the input %s", c.args, p)
			}
		}
	}
}

// TestStdoutWriteErrors: every command whose report cannot be written to
// standard output fails with exit 2 and says so.
func TestStdoutWriteErrors(t *testing.T) {
	trace := writeTrace(t, "0", "0", "1")
	for _, args := range [][]string{
		{"verify", "--instances", "10", "--out", t.TempDir()},
		{"limiters", "--jobs", "100"},
		{"trace", "stats", trace},
		{"run", "--trace", trace, "--jobs-out", "-"},
		{"sweep", "--print-spec"},
	} {
		var errOut bytes.Buffer
		if code := Execute(args, failingWriter{}, &errOut); code != 2 || !strings.Contains(errOut.String(), "device full") {
			t.Errorf("%v to a failing writer: exit %d, %q", args, code, errOut.String())
		}
	}
}

// TestSweepTooLargeForMemory: a grid of 2^24 points (4096 × 4096) would
// keep 2^24 · 8 KiB = 128 GiB of results: it is refused up front with the
// estimate, before any point is built, and the overflow of jobs + warmup
// is named as such.
func TestSweepTooLargeForMemory(t *testing.T) {
	have, ok := physicalMemory()
	if !ok || have >= 1<<24*sweepBytesPerPoint {
		t.Skip("the machine's memory is unknown or large enough for the grid")
	}
	var b1, b2 strings.Builder
	for i := range 4096 {
		if i > 0 {
			b1.WriteByte(',')
			b2.WriteByte(',')
		}
		fmt.Fprintf(&b1, "%d", i+2)
		fmt.Fprintf(&b2, "%g", float64(i+1)/10000)
	}
	out := filepath.Join(t.TempDir(), "sw")
	_, errOut, code := ratesim(t, "sweep", "--grid", "burst="+b1.String(), "--grid", "load="+b2.String(), "-o", out)
	if code != 2 || !strings.Contains(errOut, "16777216 points") || !strings.Contains(errOut, "137 GB") {
		t.Errorf("exit %d, %q; want 2 with the estimate", code, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused sweep created its folder")
	}
	_, errOut, code = ratesim(t, "sweep", "--jobs", "9223372036854775807", "-o", out)
	if code != 2 || !strings.Contains(errOut, "jobs + warmup overflows") {
		t.Errorf("--jobs MaxInt64: exit %d, %q", code, errOut)
	}
}
