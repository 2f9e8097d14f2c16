package main

import (
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/experiments/splitstudy"
	"github.com/spf13/cobra"
)

func newMergeCmd() *cobra.Command {
	f := &outputFlags{}
	cmd := &cobra.Command{
		Use:   "merge SHARD.json...",
		Short: "Combine the shards of a sweep into the results of one run",
		Long: `Merge reads the results of the shards of one sweep (ratesim sweep --shard i/n
writes shard-i-of-n.json) and writes results.csv and results.json to --out:
byte for byte the files a single run of the whole sweep writes, since each
replication is seeded from (seed, point, replication) alone. It also draws
the figures, as sweep does.

The shards must come from the same spec, seed and ratesim build, hold
disjoint points and together cover every point; otherwise merge names the
problem and writes nothing.

Exit codes: 0 success, 1 the theorem check failed at some point, 2 bad
usage or input, 3 internal error, 128 + the signal's number when stopped.`,
		Example: `  ratesim merge shards/shard-*.json -o merged`,
		Args:    cobra.MinimumNArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runMerge(cmd, f, args) },
	}
	f.register(cmd, "figures/")
	return cmd
}

func runMerge(cmd *cobra.Command, f *outputFlags, args []string) error {
	if err := f.check(); err != nil {
		return err
	}
	if m := tableModel(args[0]); m != "" {
		return mergeTables(cmd, f, args)
	}
	var parts []*splitstudy.Results
	for _, path := range args {
		if err := cmd.Context().Err(); err != nil {
			return err
		}
		if strings.HasSuffix(path, ".csv") {
			return fmt.Errorf("%s: give the shards' .json files (they hold the spec and full-precision statistics)", path)
		}
		r, err := splitstudy.ReadResults(path)
		if err != nil {
			return err
		}
		parts = append(parts, r)
	}
	res, err := splitstudy.Merge(parts)
	if err != nil {
		return err
	}
	if err := f.checkNotInputs("results", []string{"results.csv", "results.json"}, args...); err != nil {
		return err
	}
	if err := f.prepareOut("results.csv", "results.json"); err != nil {
		return err
	}
	paths, nfig, err := f.writeResults(cmd.Context(), res, "results", true)
	if err != nil {
		return err
	}
	w := &errWriter{w: cmd.OutOrStdout()}
	var viol, lemma uint64
	for _, p := range res.Points {
		viol += p.Violations
		lemma += p.LemmaViolations
	}
	fmt.Fprintf(w, "merged     %s, %s; %s, %s\n", count(len(parts), "shard"), count(len(res.Points), "point"), count(viol, "violation"), count(lemma, "Lemma 1 violation"))
	fmt.Fprintf(w, "wrote      %s", strings.Join(paths[:2], ", "))
	if nfig > 0 {
		fmt.Fprintf(w, ", %d %s figures in %s", nfig, f.format, paths[2])
	}
	fmt.Fprintln(w)
	if w.err != nil {
		return fmt.Errorf("writing the summary: %w", w.err)
	}
	if viol+lemma > 0 {
		return fmt.Errorf("%w: %d Theorem 2 and %d Lemma 1 violations", errCheckFailed, viol, lemma)
	}
	return nil
}
