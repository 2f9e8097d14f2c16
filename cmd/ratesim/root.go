package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/internal/version"
)

// Exit codes of every command.
const (
	exitOK          = 0   // success
	exitCheckFailed = 1   // Theorem 2 or Lemma 1 failed at some event
	exitUsage       = 2   // bad usage or bad input
	exitInterrupted = 130 // stopped by SIGINT or SIGTERM (128 + SIGINT), outputs discarded
)

// errCheckFailed is returned (wrapped) by a command whose theorem check
// failed; it maps to exit code 1.
var errCheckFailed = errors.New("theorem check failed")

// exitCode maps a command's error to the process exit code. This is the only
// place exit codes are decided.
func exitCode(err error) int {
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errCheckFailed):
		return exitCheckFailed
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	default:
		return exitUsage
	}
}

// newRootCmd builds the ratesim command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ratesim",
		Short: "Discrete-event simulator for token-bucket rate limiting",
		Long: `ratesim compares a token bucket (r, b) with its split into k sub-buckets
(r_l, b_l), with Σ r_l = r and Σ b_l = b, fed the same arrivals, and checks
Theorem 2 of R. Guérin, "When Two is Worse Than One" (2019), S(t) <= S^(k)(t),
and its Lemma 1 at every event.

Exit codes: 0 success, 1 the theorem check failed, 2 bad usage or bad input,
130 interrupted (SIGINT or SIGTERM; partial outputs are removed).`,
		Version:       version.Get().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return fmt.Errorf("%w (see '%s --help')", err, c.CommandPath())
	})
	root.AddCommand(newRunCmd(), newVerifyCmd(), newLimitersCmd(), newSweepCmd(), newMergeCmd(), newPlotCmd(), newTraceCmd(), newDRLCmd())
	return root
}

// Execute runs ratesim with args, writing results to stdout and diagnostics
// to stderr, and returns the exit code. SIGINT and SIGTERM cancel the run's
// context: a run stops, removes its partial output files and returns 130.
func Execute(args []string, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	switch {
	case errors.Is(err, context.Canceled):
		fmt.Fprintln(stderr, "ratesim: interrupted; unfinished output files were removed")
	case err != nil:
		fmt.Fprintln(stderr, "ratesim:", err)
	}
	return exitCode(err)
}

// jsonHeader opens every JSON output: the layout's version and the
// ratesim that wrote it (README, "JSON outputs").
type jsonHeader struct {
	Schema  int    `json:"schema_version"`
	Version string `json:"ratesim_version"`
}

func newJSONHeader() jsonHeader {
	return jsonHeader{Schema: version.Schema, Version: version.Get().Version}
}

// count writes n and a noun, plural unless n is 1: "1 violation",
// "0 violations".
func count[N ~int | ~int64 | ~uint64](n N, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
