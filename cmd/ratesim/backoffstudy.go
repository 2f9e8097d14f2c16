package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/clients"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/experiments/clientstudy"
	"github.com/ratesim/ratesim/internal/atomicfile"
)

// runBackoffStudy runs ratesim sweep --builtin backoff: Brooker's study
// (clients.DefaultOCC) with the flags that apply to it.
func runBackoffStudy(cmd *cobra.Command, f *sweepFlags, args []string) error {
	if len(args) > 0 {
		return fmt.Errorf("give a SPEC file or --builtin, not both")
	}
	applies := map[string]bool{"builtin": true, "out": true, "force": true, "plot-format": true, "no-figures": true, "quiet": true,
		"threads": true, "seed": true, "replications": true}
	var bad []string
	cmd.Flags().Visit(func(fl *pflag.Flag) {
		if !applies[fl.Name] {
			bad = append(bad, "--"+fl.Name)
		}
	})
	if len(bad) > 0 {
		return fmt.Errorf("%s: not for --builtin backoff, which takes only --out, --force, --format, --no-figures, --quiet, -j, --seed and --replications", strings.Join(bad, ", "))
	}
	if err := f.check(); err != nil {
		return err
	}
	p := clients.DefaultOCC()
	changed := cmd.Flags().Changed
	if changed("seed") {
		p.Seed = f.spec.s.Seed
	}
	if changed("replications") {
		if f.spec.s.Replications < 2 {
			return flagError("replications", f.spec.s.Replications, "at least 2 runs per point (for a confidence interval)")
		}
		p.Runs = f.spec.s.Replications
	}
	if f.threads < 0 || f.threads > 4096 {
		return flagError("threads", f.threads, "between 1 and 4096 workers, or 0 for all cores")
	}
	p.Workers = f.threads
	if err := f.prepareOut("results.csv"); err != nil {
		return err
	}
	stderr := cmd.ErrOrStderr()
	if !f.quiet {
		fmt.Fprintf(stderr, "ratesim: sweep backoff: %d strategies × %d client counts × %s\n", len(p.Strategies), len(p.Clients), count(p.Runs, "run"))
	}
	pts, err := clientstudy.RunBackoffStudy(p)
	if err != nil {
		return err
	}
	csvPath := filepath.Join(f.out, "results.csv")
	if err := atomicfile.Write(cmd.Context(), csvPath, func(w io.Writer) error { return clientstudy.WriteBackoffCSV(w, pts) }); err != nil {
		return fmt.Errorf("--out %s: %w", f.out, err)
	}
	paths := []string{csvPath}
	if !f.noFigures {
		dir := filepath.Join(f.out, "figures")
		if err := os.MkdirAll(dir, 0o777); err != nil {
			return fmt.Errorf("--out %s: %w", f.out, err)
		}
		figs, err := experiments.SaveFigures(context.Background(), clientstudy.BackoffFigures(p, pts), dir, f.format)
		if err != nil {
			return fmt.Errorf("--out %s: %w", f.out, err)
		}
		paths = append(paths, figs...)
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	writeBackoffSummary(w, p, pts)
	fmt.Fprintf(w, "wrote      %s\n", strings.Join(paths, ", "))
	if w.err != nil {
		return fmt.Errorf("writing the summary: %w", w.err)
	}
	return nil
}

// writeBackoffSummary prints the points at the smallest, middle and
// largest numbers of clients.
func writeBackoffSummary(w io.Writer, p clients.OCCParams, pts []clients.OCCPoint) {
	fmt.Fprintf(w, "study      Brooker's backoff study: %d runs per point, base %v s, cap %v s, one-way delay |Normal(%g ms, %g ms)|, seed %d\n",
		p.Runs, p.Base, p.Cap, p.NetMean*1e3, p.NetSD*1e3, p.Seed)
	show := map[int]bool{p.Clients[0]: true, p.Clients[len(p.Clients)/2]: true, p.Clients[len(p.Clients)-1]: true}
	fmt.Fprintf(w, "\n%-13s %7s %-21s %s\n", "strategy", "clients", "      calls (95% CI)", "  time ms (95% CI)")
	for _, pt := range pts {
		if show[pt.Clients] {
			fmt.Fprintf(w, "%-13s %7d %10.1f ± %-8.3g %10.0f ± %.3g\n", pt.Strategy, pt.Clients, pt.Calls, pt.CallsCI, pt.TimeMs, pt.TimeCI)
		}
	}
}
