package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/splitstudy"
)

type plotFlags struct {
	out    string
	format string
}

func newPlotCmd() *cobra.Command {
	f := &plotFlags{}
	cmd := &cobra.Command{
		Use:   "plot RESULTS.json",
		Short: "Draw the figures of a sweep from its results file, without re-running it",
		Long: `Plot reads the results of ratesim sweep or ratesim merge (results.json; a
results.csv is read through the .json beside it) and draws their figures
into --out: for each group of points that differ only in the last two axes
of their grid, a heat map of the split/one mean delay ratio when those axes
are the traffic share p and a rate or burst share q, the ratio against the
last axis with 95% confidence bands, and both systems' mean delays with the
Pollaczek-Khinchine prediction where every sub-bucket is an M/D/1 queue.
Every figure has a title, axes with units, a legend and a caption line with
the parameters and the seed. The format is --plot-format (png, svg or pdf).

Exit codes: 0 success, 2 bad usage or input, 3 internal error, 128 + the
signal's number when stopped (130 for SIGINT).`,
		Example: `  ratesim plot ratesim-sweep/results.json --out figs --plot-format pdf`,
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runPlot(cmd, f, args[0]) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "folder for the figures (default: figures/ beside RESULTS)")
	markOutput(cmd, "out", outputFolder)
	fl.StringVar(&f.format, "plot-format", "png", "figure format: png, svg or pdf")
	return cmd
}

func runPlot(cmd *cobra.Command, f *plotFlags, path string) error {
	if !validFormat(f.format) {
		return flagError("plot-format", f.format, "png, svg or pdf")
	}
	if strings.HasSuffix(path, ".csv") {
		path = strings.TrimSuffix(path, ".csv") + ".json"
	}
	var res *splitstudy.Results
	var table *experiments.Table
	var err error
	if tableModel(path) != "" {
		table, err = experiments.ReadTable(path)
	} else {
		res, err = splitstudy.ReadResults(path)
	}
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = filepath.Join(filepath.Dir(path), "figures")
	}
	if err := checkDirNotInput("out", out, []string{"*." + f.format}, path); err != nil {
		return err
	}
	if err := os.MkdirAll(out, 0o777); err != nil {
		return flagError("out", out, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	var figs []experiments.NamedFigure
	points := 0
	if table != nil {
		m, ok := studyModels[table.Model]
		if !ok {
			return fmt.Errorf("%s: results of model %q, which this ratesim does not know", path, table.Model)
		}
		figs, points = m.figures(table, table.Name), len(table.Points)
	} else {
		figs, points = splitstudy.Named(splitstudy.SweepFigures(res)), len(res.Points)
	}
	paths, err := experiments.SaveFigures(cmd.Context(), figs, out, f.format)
	if err != nil {
		return err
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	fmt.Fprintf(w, "plotted    %d points of %s: %d figures in %s\n", points, path, len(paths), out)
	if len(paths) == 0 {
		fmt.Fprintf(w, "           (a figure draws a swept numeric parameter with at least two values against the others; these results have none)\n")
	}
	for _, p := range paths {
		fmt.Fprintf(w, "           %s\n", p)
	}
	return w.err
}

// runPlotFlags are the flags of ratesim run --plot.
type runPlotFlags struct {
	dir    string
	format string
	window string
}

// options validates the flags and returns the series options, before the
// run starts.
func (p *runPlotFlags) options(engine bool) (splitstudy.SeriesOptions, error) {
	var opt splitstudy.SeriesOptions
	if !validFormat(p.format) {
		return opt, flagError("plot-format", p.format, "png, svg or pdf")
	}
	if p.dir == "" {
		if p.window != "" {
			return opt, fmt.Errorf("--plot-window applies with --plot DIR")
		}
		return opt, nil
	}
	if engine {
		return opt, fmt.Errorf("--plot works on the fast path: leave out --engine")
	}
	if p.window != "" {
		a, b, ok := strings.Cut(p.window, ":")
		from, err1 := plotSeconds(a) // the one duration grammar
		to, err2 := plotSeconds(b)
		if !ok || err1 != nil || err2 != nil || !(from >= 0) || !(to > from) || !finitePositive(to) {
			return opt, flagError("plot-window", p.window, "FROM:TO in seconds or with units with 0 <= FROM < TO, e.g. 0:200 or 1m:5m")
		}
		opt.From, opt.To = from, to
	}
	if err := os.MkdirAll(p.dir, 0o777); err != nil {
		return opt, flagError("plot", p.dir, fmt.Sprintf("a folder that can be created (%v)", err))
	}
	return opt, nil
}

// writeRunFigures draws the single-run figures into the --plot folder and
// returns their paths.
func (p *runPlotFlags) write(ctx context.Context, ser *splitstudy.Series, caption string) ([]string, error) {
	return experiments.SaveFigures(ctx, splitstudy.RunFigures(ser, caption), p.dir, p.format)
}

// plotSeconds reads one end of --plot-window, an instant in the duration
// grammar (engine.ParseSeconds), as float64 seconds for the figure's axis.
func plotSeconds(s string) (float64, error) {
	secs, inf, err := engine.ParseSeconds(s)
	if err != nil {
		return 0, err
	}
	if inf {
		return 0, fmt.Errorf("%q: want a finite instant", s)
	}
	f, _ := secs.Float64()
	return f, nil
}
