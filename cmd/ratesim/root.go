package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"regexp"
	"runtime/debug"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/ratesim/ratesim/internal/atomicfile"
	"github.com/ratesim/ratesim/internal/crash"
	"github.com/ratesim/ratesim/internal/param"
	"github.com/ratesim/ratesim/internal/version"
)

// Exit codes of every command (docs/outputs.md, "Exit codes").
const (
	exitOK          = 0   // success
	exitCheckFailed = 1   // Theorem 2 or Lemma 1 failed at some event
	exitUsage       = 2   // bad usage, bad input, or an output that cannot be written
	exitInternal    = 3   // a bug in ratesim (a Go panic): the message says what to report
	exitSignal      = 128 // + the signal's number: stopped by SIGHUP (129), SIGINT (130) or SIGTERM (143)
	exitInterrupted = exitSignal + 2
)

// stopSignals stop every command: its context is cancelled, its
// unfinished outputs are removed, and it exits 128 + the signal's number.
var stopSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM}

// stopGrace is how long a command has, after a stop signal, to return
// by itself before the process removes every temporary output file and
// exits anyway; a second signal does the same at once.
const stopGrace = 700 * time.Millisecond

// sameSignal: a signal repeated this soon after the first is the same one
// delivered twice (to the whole process group, Ctrl-C, and forwarded by
// the supervisor of internal/crash), not a second request to stop.
const sameSignal = 200 * time.Millisecond

// errCheckFailed is returned (wrapped) by a command whose theorem check
// failed; it maps to exit code 1.
var errCheckFailed = errors.New("theorem check failed")

// signalError is the cause of a context cancelled by a stop signal.
type signalError struct{ sig syscall.Signal }

func (e signalError) Error() string { return "interrupted by " + signalName(e.sig) }

func signalName(sig syscall.Signal) string {
	switch sig {
	case syscall.SIGHUP:
		return "SIGHUP"
	case syscall.SIGINT:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return sig.String()
}

// exitCode maps a command's error to the process exit code. This is the only
// place exit codes are decided; a cancelled context maps to 130 here, and
// [Execute] replaces that with 128 + the signal that cancelled it.
func exitCode(err error) int {
	var pe *crash.Error
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, &pe):
		return exitInternal
	case errors.Is(err, errCheckFailed):
		return exitCheckFailed
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	default:
		return exitUsage
	}
}

// testCommands are added to the tree by tests (a command that panics, say).
var testCommands []func() *cobra.Command

// newRootCmd builds the ratesim command tree.
func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "ratesim",
		Short: "Discrete-event simulator for token-bucket rate limiting",
		Long: `ratesim compares a token bucket (r, b) with its split into k sub-buckets
(r_l, b_l), with Σ r_l = r and Σ b_l = b, fed the same arrivals, and checks
Theorem 2 of R. Guérin, "When Two is Worse Than One" (2019), S(t) <= S^(k)(t),
and its Lemma 1 at every event.

Exit codes of every command: 0 success; 1 the theorem check failed; 2 bad
usage, bad input, or an output (standard output included) that cannot be
written; 3 internal error (a bug in ratesim: please report the message,
the version and the command line); 128 + the signal's number when stopped
by a signal: 129 SIGHUP, 130 SIGINT, 143 SIGTERM. A stopped command stops
within a second and removes its unfinished output files.

Shell completion: ratesim completion --help. Man pages: ratesim man DIR
writes one per command (ratesim.1, ratesim-run.1, ...).`,
		Version:       version.Get().String(),
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		if pe := (*param.Error)(nil); errors.As(err, &pe) {
			return pe // a parameter's own message, as when a study checks it
		}
		return fmt.Errorf("%w (see '%s --help')", wholeNumberError(c, err), c.CommandPath())
	})
	root.PersistentPreRunE = checkOutputFlags
	root.AddCommand(newRunCmd(), newVerifyCmd(), newLimitersCmd(), newClientsCmd(), newDRLCmd(), newSweepCmd(), newMergeCmd(), newPlotCmd(), newTraceCmd(), newPaperCmd(), newManCmd())
	for _, c := range testCommands {
		root.AddCommand(c())
	}
	return root
}

// Execute runs ratesim with args, writing results to stdout and diagnostics
// to stderr, and returns the exit code (see exitCode).
//
// SIGHUP, SIGINT and SIGTERM cancel the command's context: it stops,
// removes its partial output files and Execute returns 128 + the signal's
// number. A command still running stopGrace after the signal, or at a
// second signal, is not waited for: the process removes every temporary
// output file and exits with that code at once.
//
// A panic in the command (or, through [crash.Error], in one
// of its workers) is recovered: Execute prints "internal error" with what
// to report and returns 3.
func Execute(args []string, stdout, stderr io.Writer) (code int) {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	defer atomicfile.ReleaseClaims() // the output folders checkDirNotInput claimed
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, stopSignals...)
	defer signal.Stop(sigs)
	done := make(chan struct{})
	defer close(done)
	go watchSignals(sigs, done, cancel, stderr)

	defer func() {
		if v := recover(); v != nil {
			code = internalError(stderr, args, &crash.Error{Value: v, Stack: debug.Stack()})
		}
	}()
	atomicfile.Reopen() // a command run in process after one that was stopped
	out := &errWriter{w: stdout}
	root := newRootCmd()
	root.SetArgs(args)
	root.SetOut(out)
	root.SetErr(stderr)
	completeValues(root) // after SetOut: cobra's completion command keeps the writer it finds
	ran, err := root.ExecuteContextC(ctx)
	if err == nil && out.err != nil {
		err = fmt.Errorf("writing to standard output: %w", out.err)
	}
	var sig signalError
	stopped := errors.As(context.Cause(ctx), &sig)
	var pe *crash.Error
	switch {
	case errors.As(err, &pe):
		return internalError(stderr, args, pe)
	case stopped:
		atomicfile.RemoveTemporary() // and what a writer still running would start
		fmt.Fprintf(stderr, "ratesim: %v; unfinished output files were removed\n", sig)
		return exitSignal + int(sig.sig)
	case errors.Is(err, context.Canceled):
		atomicfile.RemoveTemporary()
		fmt.Fprintln(stderr, "ratesim: interrupted; unfinished output files were removed")
	case err != nil:
		fmt.Fprintln(stderr, "ratesim:", asTyped(ran, args, cliMessage(err)))
	}
	return exitCode(err)
}

// asTyped writes, in the message msg about command cmd, each flag the
// user gave by its shorthand only (-j 4) as typed, where the message names
// it by its long name (--threads 4): an error names what the user wrote.
func asTyped(cmd *cobra.Command, args []string, msg string) string {
	if cmd == nil {
		return msg
	}
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if f.Shorthand == "" || !strings.Contains(msg, "--"+f.Name+" ") {
			return
		}
		short, long := false, false
		for _, a := range args {
			if a == "--" {
				break
			}
			if a == "--"+f.Name || strings.HasPrefix(a, "--"+f.Name+"=") {
				long = true
			}
			// -j, -j4, -j=4, or the last of grouped shorthands (-vj).
			if len(a) >= 2 && a[0] == '-' && a[1] != '-' && strings.Contains(a[1:], f.Shorthand) {
				if i := strings.Index(a[1:], f.Shorthand); i == 0 || !strings.ContainsAny(a[1:1+i], "=0123456789") {
					short = true
				}
			}
		}
		if short && !long {
			msg = strings.ReplaceAll(msg, "--"+f.Name+" ", "-"+f.Shorthand+" ")
		}
	})
	return msg
}

// watchSignals cancels the command at the first stop signal and, if it
// has not returned (closed done) stopGrace later or at a second signal,
// removes every temporary output file and exits the process.
func watchSignals(sigs <-chan os.Signal, done <-chan struct{}, cancel context.CancelCauseFunc, stderr io.Writer) {
	var first signalError
	var grace <-chan time.Time
	var firstAt time.Time
	for {
		select {
		case <-done:
			return
		case s := <-sigs:
			sig, _ := s.(syscall.Signal)
			if grace == nil {
				first, firstAt = signalError{sig}, time.Now()
				cancel(first)
				grace = time.After(stopGrace)
				continue
			}
			if sig == first.sig && time.Since(firstAt) < sameSignal {
				continue // the same signal twice: to the process group and forwarded by the supervisor
			}
		case <-grace:
		}
		atomicfile.RemoveTemporary()
		fmt.Fprintf(stderr, "ratesim: %v; stopped at once, unfinished output files were removed\n", first)
		os.Exit(exitSignal + int(first.sig))
	}
}

// internalError reports a panic: what happened, where, and what to send
// with a bug report. It returns exitInternal.
func internalError(stderr io.Writer, args []string, pe *crash.Error) int {
	quoted := []string{"ratesim"}
	for _, a := range args {
		quoted = append(quoted, shellQuote(a))
	}
	fmt.Fprintf(stderr, `ratesim: internal error: %v
This is a bug in ratesim, not a problem with your input. Please report it
with this whole message, the version and the command line:
  version:      %s
  command line: %s
%s`, pe.Value, version.Get().String(), strings.Join(quoted, " "), pe.Stack)
	return exitInternal
}

// jsonHeader opens every JSON output: the layout's version and the
// ratesim that wrote it (docs/outputs.md, "JSON outputs").
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

// badFloatArg matches pflag's error for a value a float flag cannot parse.
var badFloatArg = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: strconv\.ParseFloat`)

// badIntArg matches pflag's error for a value an integer flag cannot parse.
var badIntArg = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: strconv\.Parse(?:Int|Uint)`)

// badValueArg matches pflag's error for a value one of our flag.Values
// (durationFlag, exactFloatFlag) refuses, whose message starts "want ".
var badValueArg = regexp.MustCompile(`^invalid argument "(.*)" for "(?:-\w, )?--([\w-]+)" flag: want (.*)$`)

// wholeNumberError rewrites pflag's error for an integer flag given
// something else (such as --limit 0.5) into what would fit: the flag,
// its value, and a whole number as its usage describes; other errors are
// returned as they are.
func wholeNumberError(c *cobra.Command, err error) error {
	if m := badFloatArg.FindStringSubmatch(err.Error()); m != nil {
		want := "a decimal number"
		if fl := c.Flags().Lookup(m[2]); fl != nil {
			want += " (--" + fl.Name + ": " + fl.Usage + ")"
		}
		if strings.Contains(m[1], "/") {
			want += "; this flag takes decimals, each used exactly as written (fractions such as 10/3 are taken by run, limiters, clients and drl)"
		}
		return flagError(m[2], m[1], want)
	}
	if m := badValueArg.FindStringSubmatch(err.Error()); m != nil {
		return flagError(m[2], m[1], m[3]) // a flag.Value of ours: its error says what fits
	}
	m := badIntArg.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	want := "a whole number"
	if fl := c.Flags().Lookup(m[2]); fl != nil {
		want += " (--" + fl.Name + ": " + fl.Usage + ")"
	}
	return flagError(m[2], m[1], want)
}
