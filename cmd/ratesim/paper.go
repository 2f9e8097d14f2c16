package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/report"
)

// paperFlags are the flags of ratesim paper.
type paperFlags struct {
	out     string
	quick   bool
	seed    uint64
	traces  string
	threads int
	quiet   bool
	compare string
}

func newPaperCmd() *cobra.Command {
	f := &paperFlags{}
	cmd := &cobra.Command{
		Use:   "paper",
		Short: "Reproduce the note: a Markdown report with every figure and table regenerated",
		Long: `Paper runs the experiments behind each claim of R. Guérin, "When Two is
Worse Than One" (2019), and a few beyond it, and writes --out/README.md
with its figures (SVG and PNG) in --out/figures and the sweep specs and
inputs its commands read in --out/specs and --out/data. Every table and
figure names the ratesim command that regenerates it.

The report depends only on the ratesim version, --seed and --quick. It is
written whole or not at all: files are staged beside --out and moved in
when all are done. Files of --out that the report does not write are left
alone.

--quick is the small version for CI (under a minute on one core): the same
sections, noisier numbers; its last section says which of its conclusions
differ from those of the full version in --compare. The full version takes
a few minutes on two cores. Both list their conclusions in
--out/conclusions.json.

Exit codes: 0 success, 1 a theorem check failed, 2 bad usage or input, 130
interrupted (nothing is written).`,
		Example: `  ratesim paper
  ratesim paper --quick --out /tmp/paper`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg := report.Config{Out: f.out, Quick: f.quick, Seed: f.seed, Traces: f.traces, Workers: f.threads, Compare: f.compare}
			if !f.quiet {
				cfg.Log = cmd.ErrOrStderr()
			}
			if f.threads < 0 || f.threads > 4096 {
				return flagError("threads", f.threads, "between 1 and 4096 workers, or 0 for all cores")
			}
			if st, err := os.Stat(f.traces); err != nil || !st.IsDir() {
				fmt.Fprintf(cmd.ErrOrStderr(), "ratesim: warning: --traces %s is not a folder here: the report leaves out every real trace, with a note; run from the repository's root beside ../shared/traces, or give --traces FOLDER\n", f.traces)
			}
			return report.Write(cmd.Context(), cfg)
		},
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "paper", "output folder: README.md, figures/, specs/, data/")
	fl.BoolVar(&f.quick, "quick", false, "the small version (CI): fewer jobs, replications and instances")
	fl.Uint64VarP(&f.seed, "seed", "s", 1, "root seed of every random stream")
	fl.StringVar(&f.traces, "traces", "../shared/traces", "folder of the real traces (absent traces are left out, with a note)")
	fl.IntVarP(&f.threads, "threads", "j", 0, "sweeps and searches run in parallel; 0, the default, means all cores; the report does not depend on it")
	fl.BoolVarP(&f.quiet, "quiet", "q", false, "no progress on standard error")
	fl.StringVar(&f.compare, "compare", "paper", "with --quick: the folder of a full version whose conclusions (conclusions.json) the quick version compares its own with")
	markOutput(cmd, "out", outputFolder)
	return cmd
}
