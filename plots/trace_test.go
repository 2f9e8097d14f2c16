package plots

import (
	"bytes"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// traceFigure is a TraceFigure on made-up data: a rate series, the gap
// distribution of exponential gaps of mean 1 s with 20% ties, and a
// burstiness curve.
func traceFigure() *TraceFigure {
	f := &TraceFigure{Title: "test.csv", Caption: "test data", RateWidth: 60, MeanRate: 1, GapMean: 1, TieFraction: 0.2}
	for i := range 100 {
		f.RateCounts = append(f.RateCounts, int64(60+10*(i%7)))
	}
	for k := range 181 {
		x := math.Pow(10, float64(k)/10-9)
		f.GapEdges = append(f.GapEdges, x)
		f.GapCCDF = append(f.GapCCDF, 0.8*math.Exp(-x))
	}
	f.Rates = []float64{1.1, 1.5, 2, 5}
	f.Burst = []float64{400, 60, 20, 8}
	f.BurstTarget = []float64{380, 40, 10, 4}
	f.TargetLabel = "at most 1% wait"
	return f
}

// TestTraceFigure saves the figure as PNG (decoded: 1280 pixels wide at
// 200 dpi, three panels tall) and SVG, and without the optional panels.
func TestTraceFigure(t *testing.T) {
	dir := t.TempDir()
	for name, f := range map[string]*TraceFigure{
		"full":    traceFigure(),
		"no-fit":  func() *TraceFigure { f := traceFigure(); f.Rates = nil; return f }(),
		"no-gaps": func() *TraceFigure { f := traceFigure(); f.GapEdges, f.GapCCDF = nil, nil; f.Rates = nil; return f }(),
	} {
		path := filepath.Join(dir, name+".png")
		if err := f.Save(path); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		cfg, err := png.DecodeConfig(bytes.NewReader(data))
		if err != nil || cfg.Width != 1280 || cfg.Height < 600 {
			t.Errorf("%s: %v, %dx%d; want a 1280-pixel-wide PNG", name, err, cfg.Width, cfg.Height)
		}
		if err := f.Save(filepath.Join(dir, name+".svg")); err != nil {
			t.Errorf("%s.svg: %v", name, err)
		}
	}
	svg, _ := os.ReadFile(filepath.Join(dir, "full.svg"))
	for _, want := range []string{"arrival rate (jobs/s)", "P(gap &gt; x)", "token rate r (tokens/s)", "bucket size b (tokens)",
		"at most 1% wait", "trace (20% of gaps are 0)", "exponential, same mean", "per 1 min bin", "test data"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("full.svg lacks %q", want)
		}
	}
	if err := (&TraceFigure{}).Save(filepath.Join(dir, "empty.png")); err == nil {
		t.Error("an empty figure: error = nil")
	}
	if err := traceFigure().Save(filepath.Join(dir, "x.gif")); err == nil {
		t.Error("a .gif: error = nil")
	}
}

func TestTimeUnit(t *testing.T) {
	for _, tc := range []struct {
		d    float64
		unit string
	}{{10, "s"}, {3600, "min"}, {46321, "h"}, {23 * 86400, "days"}} {
		if u, _ := timeUnit(tc.d); u != tc.unit {
			t.Errorf("timeUnit(%v) = %s, want %s", tc.d, u, tc.unit)
		}
	}
	for _, tc := range []struct {
		s    float64
		want string
	}{{0.02, "20 ms"}, {2, "2 s"}, {60, "1 min"}, {7200, "2 h"}, {86400, "1 d"}, {90, "90 s"}} {
		if got := fmtSeconds(tc.s); got != tc.want {
			t.Errorf("fmtSeconds(%v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}
