package main

import (
	"encoding/json"
	"errors"
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
	"github.com/ratesim/ratesim/experiments/drlstudy"
	"github.com/ratesim/ratesim/internal/specfile"
)

// drlSweepable are the flags of ratesim drl that --sweep may vary: the
// study's parameters declared sweepable (drlstudy.Table), and the seed.
var drlSweepable = func() []string {
	var out []string
	for _, k := range drlstudy.Table.Sweepable() {
		out = append(out, strings.ReplaceAll(k, "_", "-"))
	}
	return append(out, "seed")
}()

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
		values := strings.Split(vals, ",")
		for i, v := range values {
			if slices.Contains(values[:i], v) {
				return nil, flagError("sweep", sw, "each value once ("+v+" is repeated)")
			}
		}
		axes = append(axes, drlAxis{name: name, values: values})
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
	p, err := f.params(cmd)
	if err != nil {
		return err
	}
	var sa []drlstudy.StringAxis
	for _, a := range axes {
		sa = append(sa, drlstudy.StringAxis{Name: strings.ReplaceAll(a.name, "-", "_"), Values: a.values})
	}
	study, err := drlstudy.NewStudy(p, sa)
	if err != nil {
		return drlStudyFlagError(err)
	}
	points, input, err := runDRLPoints(cmd, study, axes)
	if err != nil {
		return err
	}
	var figures []string
	if f.plotDir != "" {
		if err := os.MkdirAll(f.plotDir, 0o777); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
		caption := input
		if spec, designs, err := p.Spec(); err == nil {
			var swept []string
			for _, a := range axes {
				swept = append(swept, a.name)
			}
			caption = drlstudy.Caption(spec, designs, input, swept...)
		}
		if figures, err = experiments.SaveFigures(cmd.Context(), drlSweepFigures(study, axes, points, caption), f.plotDir, f.plotFormat); err != nil {
			return fmt.Errorf("--plot %s: %w", f.plotDir, err)
		}
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	if f.json {
		writeDRLSweepJSON(w, axes, points, figures)
	} else {
		writeDRLSweepTable(w, axes, points, figures)
	}
	if w.err != nil {
		return fmt.Errorf("writing the result: %w", w.err)
	}
	return nil
}

// runDRLPoints runs every point of a --sweep study in turn and returns
// their summaries and the input of the first.
func runDRLPoints(cmd *cobra.Command, study *drlstudy.Study, axes []drlAxis) ([]drlPoint, string, error) {
	var points []drlPoint
	var input string
	said := map[string]bool{}
	for i := range study.NumPoints() {
		pp := study.Point(i)
		for _, why := range pp.AllLeftOut() {
			if !said[why] {
				said[why] = true
				fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: --designs all leaves out %s\n", why)
			}
		}
		c, err := pp.Run(cmd.Context(), false)
		params := map[string]string{}
		for _, a := range axes {
			params[a.name] = study.Value(i, strings.ReplaceAll(a.name, "-", "_"))
		}
		if err != nil {
			return nil, "", fmt.Errorf("sweep point %s: %w", pointName(axes, params), paramFlagError(err))
		}
		if i == 0 {
			input = c.Input
		}
		points = append(points, drlPoint{Params: params, Input: c.Input, Designs: c.Summaries})
	}
	return points, input, nil
}

// writeDRLSweepJSON writes the --json output of a --sweep.
func writeDRLSweepJSON(w io.Writer, axes []drlAxis, points []drlPoint, figures []string) {
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
}

// drlStudyFlagError names the flag of an error of drlstudy.NewStudy: the
// swept value (--sweep NAME=V) or the flag the value came from.
func drlStudyFlagError(err error) error {
	var se *specfile.Error
	if !errors.As(err, &se) {
		return err
	}
	var pt *drlstudy.PointError
	var pe *drl.ParamError
	name := strings.ReplaceAll(strings.TrimPrefix(strings.TrimPrefix(se.Field, "sweep."), "drl."), "_", "-")
	switch {
	case errors.As(err, &pt) && errors.As(err, &pe):
		flag := strings.ReplaceAll(pe.Param, "_", "-")
		if strings.HasPrefix(se.Field, "sweep.") {
			return fmt.Errorf("sweep point %s: --sweep %s=%v: want %s", strings.ReplaceAll(pt.Label, "_", "-"), flag, pe.Value, pe.Want)
		}
		return fmt.Errorf("sweep point %s: %w", strings.ReplaceAll(pt.Label, "_", "-"), flagError(flag, pe.Value, pe.Want))
	case strings.HasPrefix(se.Field, "sweep."):
		return flagError("sweep", name, fmt.Sprintf("a valid --%s (%v)", name, se.Err))
	}
	return err
}

// drlSweepFigures draws the figures of a --sweep (drlstudy.SweepFigures) from
// the table of its points.
func drlSweepFigures(study *drlstudy.Study, axes []drlAxis, points []drlPoint, caption string) []experiments.NamedFigure {
	t := &experiments.Table{Columns: append([]string{"point"}, study.Columns()...)}
	for i, p := range points {
		rows, err := study.Rows(i, []any{drlstudy.ReplicationOf(p.Designs, p.Input)})
		if err != nil {
			return nil
		}
		for _, r := range rows {
			t.Rows = append(t.Rows, append([]any{float64(i)}, r...))
		}
	}
	return drlstudy.SweepFigures(t, caption)
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
	// The design column is 7 wide, or as wide as the longest name run.
	dw := 7
	for _, p := range points {
		for _, d := range p.Designs {
			dw = max(dw, len(d.Design))
		}
	}
	fmt.Fprintf(w, "%-*s %9s %9s %10s %10s  %9s %9s %8s  %9s\n", dw, "design", "admitted", "rejected", "mean (s)", "p99 (s)", "overshoot", "excess", "time > R", "messages")
	for _, p := range points {
		for _, d := range p.Designs {
			for _, a := range axes {
				fmt.Fprintf(w, "%-*s ", max(len(a.name), 11), p.Params[a.name])
			}
			fmt.Fprintf(w, "%-*s %9d %9d %10.4g %10.4g  %9.4f %9.4g %7.2f%%  %9d\n", dw, d.Design, d.Admitted, d.Rejected, d.Mean, d.P99, d.Overshoot, d.Excess, 100*d.OverRate, d.Messages)
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
