package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/drl"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/plots"
)

// drlSweepable are the flags of ratesim drl that --sweep may vary.
var drlSweepable = []string{"nodes", "rate", "burst", "load", "dispatch", "rtt", "fail", "sync-period", "batch-limit",
	"sync-delay", "loss", "local", "lease-size", "lease-ttl", "estimate-interval", "smoothing", "exchange", "fanout", "store-cache", "seed"}

// drlAxis is one --sweep axis.
type drlAxis struct {
	name   string
	values []string
}

func parseDRLSweeps(sweeps []string) ([]drlAxis, error) {
	var axes []drlAxis
	for _, sw := range sweeps {
		name, vals, ok := strings.Cut(sw, "=")
		if !ok || !slices.Contains(drlSweepable, name) || vals == "" {
			return nil, flagError("sweep", sw, "NAME=V1,V2,... with NAME one of "+strings.Join(drlSweepable, ", "))
		}
		for _, a := range axes {
			if a.name == name {
				return nil, flagError("sweep", sw, "each parameter swept once ("+name+" is repeated)")
			}
		}
		axes = append(axes, drlAxis{name: name, values: strings.Split(vals, ",")})
	}
	return axes, nil
}

// drlPoint is one point of a sweep: the axis values and each design's
// summary.
type drlPoint struct {
	Params  map[string]string `json:"-"`
	Values  map[string]any    `json:"params"` // Params in the JSON: numbers for numeric values ("nodes": 4), strings for others ("rtt": "1ms")
	Input   string            `json:"input"`
	Designs []drl.Summary     `json:"designs"`
}

// jsonValue returns v as a JSON number when it is a plain decimal number
// ("4", "1.5"), and as the string otherwise ("1ms", "10/3", "owner").
func jsonValue(v string) any {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsInf(x, 0) || math.IsNaN(x) || strings.ContainsAny(v, "xXpP_") {
		return v
	}
	return json.Number(strconv.FormatFloat(x, 'g', -1, 64))
}

func runDRLSweep(cmd *cobra.Command, f *drlFlags) error {
	axes, err := parseDRLSweeps(f.sweeps)
	if err != nil {
		return err
	}
	n := 1
	for _, a := range axes {
		n *= len(a.values)
		if n > 10000 {
			return flagError("sweep", strings.Join(f.sweeps, " "), "at most 10000 points")
		}
	}
	var points []drlPoint
	var names []string
	idx := make([]int, len(axes))
	for range n {
		p := drlPoint{Params: map[string]string{}}
		for i, a := range axes {
			v := a.values[idx[i]]
			if err := cmd.Flags().Set(a.name, v); err != nil {
				return flagError("sweep", a.name+"="+v, fmt.Sprintf("a valid --%s (%v)", a.name, err))
			}
			p.Params[a.name] = v
		}
		spec, ns, err := f.spec(cmd)
		if err != nil {
			return fmt.Errorf("sweep point %s: %w", pointName(axes, p.Params), err)
		}
		names = ns
		sums, _, input, _, err := f.runDesigns(cmd, spec, ns)
		if err != nil {
			return fmt.Errorf("sweep point %s: %w", pointName(axes, p.Params), err)
		}
		p.Input, p.Designs = input, sums
		points = append(points, p)
		for i := len(idx) - 1; i >= 0; i-- { // the last axis varies fastest
			if idx[i]++; idx[i] < len(axes[i].values) {
				break
			}
			idx[i] = 0
		}
	}
	var figures []string
	if f.plotDir != "" {
		if err := os.MkdirAll(f.plotDir, 0o755); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
		if figures, err = experiments.SaveFiguresContext(cmd.Context(), drlSweepFigures(axes, names, points, points[0].Input), f.plotDir, f.plotFormat); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		out := struct {
			jsonHeader
			Axes    []string   `json:"axes"`
			Points  []drlPoint `json:"points"`
			Figures []string   `json:"figures,omitempty"`
		}{jsonHeader: newJSONHeader(), Points: points, Figures: figures}
		for _, a := range axes {
			out.Axes = append(out.Axes, a.name)
		}
		for i := range out.Points {
			p := &out.Points[i]
			p.Values = make(map[string]any, len(p.Params))
			for k, v := range p.Params {
				p.Values[k] = jsonValue(v)
			}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		enc.Encode(out)
	} else {
		writeDRLSweepTable(w, axes, points, figures)
	}
	if w.err != nil {
		return fmt.Errorf("writing the result: %w", w.err)
	}
	return nil
}

func pointName(axes []drlAxis, params map[string]string) string {
	var parts []string
	for _, a := range axes {
		parts = append(parts, a.name+"="+params[a.name])
	}
	return strings.Join(parts, ", ")
}

func writeDRLSweepTable(w io.Writer, axes []drlAxis, points []drlPoint, figures []string) {
	if len(points) > 0 {
		fmt.Fprintf(w, "input      %s (at the first point)\n", points[0].Input)
	}
	fmt.Fprintf(w, "sweep      %d points: ", len(points))
	for i, a := range axes {
		if i > 0 {
			fmt.Fprint(w, " × ")
		}
		fmt.Fprintf(w, "%s %s", a.name, strings.Join(a.values, ", "))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w)
	for _, a := range axes {
		fmt.Fprintf(w, "%-*s ", max(len(a.name), 11), a.name)
	}
	fmt.Fprintf(w, "%-7s %9s %9s %10s %10s  %9s %8s  %9s\n", "design", "admitted", "rejected", "mean (s)", "p99 (s)", "overshoot", "time > R", "messages")
	for _, p := range points {
		for _, d := range p.Designs {
			for _, a := range axes {
				fmt.Fprintf(w, "%-*s ", max(len(a.name), 11), p.Params[a.name])
			}
			fmt.Fprintf(w, "%-7s %9d %9d %10.4g %10.4g  %9.3f %7.2f%%  %9d\n", d.Design, d.Admitted, d.Rejected, d.Mean, d.P99, d.Overshoot, 100*d.OverRate, d.Messages)
		}
	}
	for i, p := range figures {
		if i == 0 {
			fmt.Fprintf(w, "\nfigures    %s\n", p)
		} else {
			fmt.Fprintf(w, "           %s\n", p)
		}
	}
}

// axisNumber returns a swept value as a number for a figure's x axis:
// durations in seconds, plain numbers as they are; false when it is
// neither.
func axisNumber(v string) (float64, bool) {
	if x, err := strconv.ParseFloat(v, 64); err == nil {
		return x, true
	}
	if d, err := drl.ParseDuration(v); err == nil {
		return d.Seconds(), true
	}
	return 0, false
}

// drlSweepFigures draws, for a sweep of one numeric axis, the worst
// overshoot and the mean delay of each design against it.
func drlSweepFigures(axes []drlAxis, names []string, points []drlPoint, caption string) []experiments.NamedFigure {
	if len(axes) != 1 {
		return nil
	}
	a := axes[0]
	xs := make([]float64, len(points))
	for i, p := range points {
		x, ok := axisNumber(p.Params[a.name])
		if !ok {
			return nil
		}
		xs[i] = x
	}
	order := make([]int, len(points))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		switch {
		case xs[i] < xs[j]:
			return -1
		case xs[i] > xs[j]:
			return 1
		}
		return 0
	})
	label := a.name
	switch a.name {
	case "sync-period", "sync-delay", "rtt", "lease-ttl", "estimate-interval":
		label = "--" + a.name + " (s)"
	default:
		label = "--" + a.name
	}
	over := &plots.LinePlot{Title: "Worst overshoot versus " + a.name, XLabel: label, YLabel: "α*(d)/(B + R·d), worst d and key", Caption: caption}
	delay := &plots.LinePlot{Title: "Mean delay versus " + a.name, XLabel: label, YLabel: "mean delay (s)", Caption: caption}
	for di, n := range names {
		var x, yo, yd []float64
		for _, i := range order {
			x = append(x, xs[i])
			yo = append(yo, points[i].Designs[di].Overshoot)
			yd = append(yd, points[i].Designs[di].Mean)
		}
		over.Lines = append(over.Lines, plots.Line{Label: n, X: x, Y: yo, Marks: true, Color: di})
		delay.Lines = append(delay.Lines, plots.Line{Label: n, X: x, Y: yd, Marks: true, Color: di})
	}
	if len(xs) > 0 {
		lo, hi := slices.Min(xs), slices.Max(xs)
		over.Lines = append(over.Lines, plots.Line{Label: "the promise", X: []float64{lo, hi}, Y: []float64{1, 1}, Dashed: true, Color: -1})
	}
	return []experiments.NamedFigure{{Name: "drl-sweep-overshoot", Figure: over}, {Name: "drl-sweep-delay", Figure: delay}}
}
