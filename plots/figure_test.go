package plots

import (
	"bytes"
	"encoding/xml"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// figures returns one figure of each kind, on small made-up data.
func figures() map[string]Figure {
	x := []float64{0.1, 0.2, 0.3, 0.4, 0.5}
	y := []float64{5, 2, 1.5, 2, 5}
	lo := []float64{4, 1.8, 1.4, 1.8, 4}
	hi := []float64{6, 2.2, 1.6, 2.2, 6}
	lines := &LinePlot{Title: "Ratio", Caption: "test data; seed 1", XLabel: "share p", YLabel: "ratio", LogY: true,
		XTicks: x, Lines: []Line{{Label: "q = 0.3", X: x, Y: y, Lo: lo, Hi: hi, Marks: true}, {Label: "formula", Dashed: true, Color: -1}}}
	stack := &Stack{Title: "Accrued delay", Caption: "test data; seed 1", Panels: []*LinePlot{
		{XLabel: "t (s)", YLabel: "S (s)", Lines: []Line{{Label: "S", X: x, Y: x}}},
		{XLabel: "t (s)", YLabel: "gap (s)", Lines: []Line{{Label: "gap", X: x, Y: y, Step: true, Color: 2}}},
	}}
	heat := &HeatMap{Title: "Ratio over (p, q)", Caption: "test data; seed 1", XLabel: "p", YLabel: "q", ZLabel: "ratio",
		X: []float64{0.25, 0.5, 0.75}, Y: []float64{0.25, 0.75},
		Z:      [][]float64{{1.5, 3, math.NaN()}, {math.Inf(1), 2, 1.2}},
		Masked: [][]bool{{false, false, true}, {false, false, false}}, MaskLabel: "overloaded", LogZ: true, Diagonal: "p = q"}
	return map[string]Figure{"lines": lines, "stack": stack, "heat": heat}
}

// TestSaveFormats: every figure saves as a valid PNG (decoded, of the
// documented size at 200 dpi), SVG (well-formed XML with an svg root) and
// PDF (header and trailer), chosen by the extension; no temporary file is
// left behind.
func TestSaveFormats(t *testing.T) {
	dir := t.TempDir()
	for name, f := range figures() {
		for _, ext := range Formats {
			path := filepath.Join(dir, name+"."+ext)
			if err := f.Save(path); err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			switch ext {
			case "png":
				cfg, err := png.DecodeConfig(bytes.NewReader(data))
				if err != nil {
					t.Errorf("%s: %v", path, err)
				} else if cfg.Width != 1280 {
					t.Errorf("%s: %d pixels wide, want 1280 (6.4 in at 200 dpi)", path, cfg.Width)
				}
			case "svg":
				var root struct{ XMLName xml.Name }
				if err := xml.Unmarshal(data, &root); err != nil || root.XMLName.Local != "svg" {
					t.Errorf("%s: root %v, %v; want svg", path, root.XMLName, err)
				}
			case "pdf":
				if !bytes.HasPrefix(data, []byte("%PDF-")) || !bytes.Contains(data[len(data)-32:], []byte("%%EOF")) {
					t.Errorf("%s: not a PDF", path)
				}
			}
		}
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 9 {
		t.Errorf("%d files, want 9 (no temporary files)", len(ents))
	}
}

func TestSaveErrors(t *testing.T) {
	dir := t.TempDir()
	f := figures()["lines"]
	if err := f.Save(filepath.Join(dir, "x.gif")); err == nil || !strings.Contains(err.Error(), "x.gif") {
		t.Errorf("gif: error %v, want one naming the file", err)
	}
	if err := f.Save(filepath.Join(dir, "missing", "x.png")); err == nil || !strings.HasPrefix(err.Error(), "plots: ") || !strings.Contains(err.Error(), "x.png") {
		t.Errorf("missing folder: error %v, want a plots error naming the file", err)
	}
	bad := &LinePlot{Lines: []Line{{X: []float64{1, 2}, Y: []float64{1}}}}
	if err := bad.Save(filepath.Join(dir, "bad.png")); err == nil {
		t.Error("x and y of different lengths: no error")
	}
	hm := &HeatMap{X: []float64{1, 2}, Y: []float64{1}, Z: [][]float64{{1}}}
	if err := hm.Save(filepath.Join(dir, "bad.png")); err == nil {
		t.Error("heat map row of the wrong length: no error")
	}
	if _, err := os.Stat(filepath.Join(dir, "bad.png")); err == nil {
		t.Error("a failed Save left a file")
	}
}

// readable writes the exponent mark of a number label as a caret:
// "5×10^−4".
func readable(s string) string { return strings.ReplaceAll(s, expMark, "^") }

// TestConstantBurstCurve is the regression test for the hang: a b(r)
// curve that is 1 at every rate made the log axis [1, 1], which gonum
// widened to [0, 2], and the log ticks started at log10(0) and never
// ended. The axis is now [0.1, 10], a decade each side.
func TestConstantBurstCurve(t *testing.T) {
	f := traceFigure()
	f.Rates, f.Burst, f.BurstTarget = []float64{1, 2, 3}, []float64{1, 1, 1}, nil
	if err := f.Save(filepath.Join(t.TempDir(), "b.png")); err != nil {
		t.Fatal(err)
	}
	pn, err := (&LinePlot{LogX: true, LogY: true, Lines: []Line{{X: f.Rates, Y: f.Burst}}}).build(&markBook{})
	if err != nil {
		t.Fatal(err)
	}
	if got := [2]float64{pn.p.Y.Min, pn.p.Y.Max}; !close(got[0], 0.1) || !close(got[1], 10) {
		t.Errorf("y axis %v, want [0.1, 10]", got)
	}
}

// TestSingleDuration is the regression test for the panic "Values must
// be greater than 0 for a log scale": a limiters figure with the single
// duration 0.5 s made the log x axis [0.5, 0.5], which gonum widened to
// [-0.5, 1.5]. The axis is now [0.05, 5].
func TestSingleDuration(t *testing.T) {
	st, err := ArrivalCurves{Limiters: []LimiterCurve{{Name: "a", D: []float64{0.5}, Jobs: []float64{3}, Promise: []float64{3}, PromiseName: "b"}}}.Figure()
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Save(filepath.Join(t.TempDir(), "a.png")); err != nil {
		t.Fatal(err)
	}
	panels, err := st.build()
	if err != nil {
		t.Fatal(err)
	}
	if got := [2]float64{panels[0].p.X.Min, panels[0].p.X.Max}; !close(got[0], 0.05) || !close(got[1], 5) {
		t.Errorf("x axis %v, want [0.05, 5]", got)
	}
}

// TestZeroDelays: the delay tail when no job waited (every delay 0, so
// every P(delay > x) is left out) draws empty axes with a note.
func TestZeroDelays(t *testing.T) {
	lp := &LinePlot{Title: "Delay tail", XLabel: "delay (s)", YLabel: "P(delay > x)", LogY: true,
		Lines: []Line{{Label: "one bucket", X: []float64{0}, Y: []float64{math.NaN()}, Step: true}}}
	path := filepath.Join(t.TempDir(), "tail.svg")
	if err := lp.Save(path); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(path)
	if !strings.Contains(string(svg), "no finite values") {
		t.Error("tail.svg lacks the note \"no finite values\"")
	}
}

// TestCaptionAndFooter: the caption and the footer are drawn as given,
// and plots adds no text of its own under a figure (no version).
func TestCaptionAndFooter(t *testing.T) {
	dir := t.TempDir()
	lp := &LinePlot{Title: "T", Caption: "the caption", Footer: "ratesim v0.6.0 (abc1234)",
		Lines: []Line{{Label: "a", X: []float64{1, 2}, Y: []float64{1, 2}}}}
	path := filepath.Join(dir, "with.svg")
	if err := lp.Save(path); err != nil {
		t.Fatal(err)
	}
	svg, _ := os.ReadFile(path)
	for _, want := range []string{"the caption", "ratesim v0.6.0 (abc1234)"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("with.svg lacks %q", want)
		}
	}
	lp.Footer = ""
	path = filepath.Join(dir, "without.svg")
	if err := lp.Save(path); err != nil {
		t.Fatal(err)
	}
	svg, _ = os.ReadFile(path)
	if strings.Contains(string(svg), "ratesim") || strings.Contains(string(svg), "devel") {
		t.Error("without.svg names ratesim or a version that the caller did not pass")
	}
}

// TestSaveThroughSymlink: Save writes through internal/atomicfile: the
// link stays and its target gets the figure.
func TestSaveThroughSymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "fig-v2.png")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "fig.png")
	if err := os.Symlink("fig-v2.png", link); err != nil {
		t.Fatal(err)
	}
	if err := figures()["lines"].Save(link); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link: %v", link, err)
	}
	data, _ := os.ReadFile(target)
	if _, err := png.DecodeConfig(bytes.NewReader(data)); err != nil {
		t.Errorf("the link's target is not the figure: %v", err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 2 {
		t.Errorf("%d files, want the link and its target", len(ents))
	}
}
