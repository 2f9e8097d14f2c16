package main

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPlotCommand draws the figures of a results file without running
// anything, in SVG, and the CSV path finds the JSON beside it.
func TestPlotCommand(t *testing.T) {
	out := filepath.Join(t.TempDir(), "s")
	if _, stderr, code := ratesim(t, "sweep", smallSpec, "-o", out, "--quiet", "--no-figures"); code != 0 {
		t.Fatalf("sweep: exit %d: %s", code, stderr)
	}
	figs := filepath.Join(out, "svg")
	stdout, stderr, code := ratesim(t, "plot", filepath.Join(out, "results.csv"), "--out", figs, "--plot-format", "svg")
	if code != 0 || !strings.Contains(stdout, "6 figures") {
		t.Fatalf("plot: exit %d, %s %s", code, stdout, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(figs, "*.svg"))
	if len(files) != 6 {
		t.Fatalf("%d SVG files, want 6", len(files))
	}
	for _, f := range files {
		var root struct{ XMLName xml.Name }
		if err := xml.Unmarshal(readFile(t, f), &root); err != nil || root.XMLName.Local != "svg" {
			t.Errorf("%s: %v, root %v", f, err, root.XMLName)
		}
	}
	// The default folder is figures/ beside the results.
	if _, _, code := ratesim(t, "plot", filepath.Join(out, "results.json")); code != 0 {
		t.Fatalf("plot with the default folder: exit %d", code)
	}
	if files, _ := filepath.Glob(filepath.Join(out, "figures", "heatmap-*.png")); len(files) != 2 {
		t.Errorf("heat maps %v, want 2", files)
	}
}

// TestRunPlot: run --plot writes the four single-run figures and leaves
// the summary exactly as without --plot.
func TestRunPlot(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "figs")
	args := []string{"run", "--trace", "testdata/four_at_zero.csv", "--rate", "1", "--burst", "2", "--sub", "0.5:1,0.5:1"}
	plain, _, code := ratesim(t, args...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	withPlot, stderr, code := ratesim(t, append(args, "--plot", dir)...)
	if code != 0 {
		t.Fatalf("--plot: exit %d: %s", code, stderr)
	}
	if withPlot != plain {
		t.Errorf("--plot changed the summary:\n%s\nwant\n%s", withPlot, plain)
	}
	if !strings.Contains(stderr, "wrote 4 figures") {
		t.Errorf("stderr %q", stderr)
	}
	for _, name := range []string{"latency-cdf", "latency-ccdf", "accrued-delay", "queue"} {
		f, err := os.Open(filepath.Join(dir, name+".png"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.DecodeConfig(f); err != nil {
			t.Errorf("%s: %v", name, err)
		}
		f.Close()
	}
	// PDF by --plot-format, with an explicit window.
	if _, stderr, code := ratesim(t, append(args, "--plot", dir, "--plot-format", "pdf", "--plot-window", "0:3")...); code != 0 {
		t.Fatalf("pdf: exit %d: %s", code, stderr)
	}
	if b := readFile(t, filepath.Join(dir, "queue.pdf")); !bytes.HasPrefix(b, []byte("%PDF-")) {
		t.Error("queue.pdf is not a PDF")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--plot", dir, "--engine"}, "--engine"},
		{[]string{"--plot", dir, "--plot-window", "5:1"}, "--plot-window"},
		{[]string{"--plot-window", "0:1"}, "--plot"},
		{[]string{"--plot", dir, "--plot-format", "gif"}, "--plot-format"},
	} {
		_, stderr, code := ratesim(t, append(args, tc.args...)...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, %q; want 2 naming %s", tc.args, code, stderr, tc.want)
		}
	}
}
