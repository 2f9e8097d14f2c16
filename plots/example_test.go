package plots_test

import (
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/ratesim/ratesim/plots"
)

// This example draws the split/one delay ratio against the traffic share p
// with a 95% confidence band, and saves it as SVG (the extension chooses
// the format).
func ExampleLinePlot() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	p := []float64{0.3, 0.4, 0.5, 0.6, 0.7}
	fig := &plots.LinePlot{
		Title:   "Split/one mean delay ratio",
		Caption: "b = 2 split 1 + 1, load 0.5, 10 replications; seed 1",
		XLabel:  "traffic share p of sub-bucket 1",
		YLabel:  "split/one mean delay ratio",
		Lines: []plots.Line{{
			Label: "q = 0.5",
			X:     p,
			Y:     []float64{11.8, 7.9, 6.6, 7.7, 11.9},
			Lo:    []float64{11.5, 7.7, 6.5, 7.5, 11.6},
			Hi:    []float64{12.1, 8.1, 6.8, 7.9, 12.2},
			Marks: true,
		}},
	}
	if err := fig.Save(filepath.Join(dir, "ratio.svg")); err != nil {
		log.Fatal(err)
	}
	fmt.Println("saved ratio.svg")
	// Output: saved ratio.svg
}

// This example draws a heat map of a ratio over (p, q) on a log colour
// scale, with one cell masked.
func ExampleHeatMap() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	fig := &plots.HeatMap{
		Title:   "Split/one mean delay ratio",
		Caption: "made-up values; seed 1",
		XLabel:  "traffic share p of sub-bucket 1",
		YLabel:  "rate share q of sub-bucket 1",
		ZLabel:  "ratio (log scale)",
		X:       []float64{0.25, 0.5, 0.75},
		Y:       []float64{0.25, 0.5, 0.75},
		Z: [][]float64{
			{3, 9, 40},
			{8, 3, 8},
			{40, 9, 3},
		},
		Masked:    [][]bool{{false, false, true}, {false, false, false}, {true, false, false}},
		MaskLabel: "a sub-bucket overloaded",
		LogZ:      true,
		Diagonal:  "p = q",
	}
	if err := fig.Save(filepath.Join(dir, "heat.png")); err != nil {
		log.Fatal(err)
	}
	fmt.Println("saved heat.png")
	// Output: saved heat.png
}

// This example stacks the accrued delays of the two systems over their
// gap, with the run's description as the caption and its provenance as
// the footer: plots draws both as given and adds no text of its own.
func ExampleStack() {
	dir, err := os.MkdirTemp("", "plots")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	t := []float64{0, 10, 20, 30}
	one := []float64{0, 2, 5, 6}
	split := []float64{0, 3, 7, 9}
	fig := &plots.Stack{
		Title:   "Accrued delay",
		Caption: "Poisson arrivals, load 0.9; one bucket (1, 10), split 2 × (0.5, 5); seed 1",
		Footer:  "ratesim v0.6.0",
		Heights: []float64{1.6, 1},
		Panels: []*plots.LinePlot{
			{XLabel: "time t (s)", YLabel: "accrued delay (s)", Lines: []plots.Line{
				{Label: "S(t), one bucket", X: t, Y: one, Color: 0},
				{Label: "S^(k)(t), split", X: t, Y: split, Color: 1},
			}},
			{XLabel: "time t (s)", YLabel: "gap (s)", Lines: []plots.Line{
				{Label: "S^(k)(t) − S(t)", X: t, Y: []float64{0, 1, 2, 3}, Color: 2},
			}},
		},
	}
	if err := fig.Save(filepath.Join(dir, "accrued.pdf")); err != nil {
		log.Fatal(err)
	}
	fmt.Println("saved accrued.pdf")
	// Output: saved accrued.pdf
}
