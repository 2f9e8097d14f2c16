//go:build unix

package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// In the subprocess of these tests (RATESIM_TEST_MAIN=1), a hidden
// command "test-fatal" ends the run with a fatal runtime error no
// recover can catch: "oom" allocates and keeps 64 MiB blocks until the
// runtime cannot allocate, "panic" panics in a goroutine of its own.
func init() {
	if os.Getenv("RATESIM_TEST_MAIN") != "1" {
		return
	}
	testCommands = append(testCommands, func() *cobra.Command {
		return &cobra.Command{Use: "test-fatal", Hidden: true, Args: cobra.ExactArgs(1), RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] == "panic" {
				done := make(chan struct{})
				go func() { panic("test-fatal in a goroutine") }()
				<-done
			}
			var kept [][]byte
			for {
				b := make([]byte, 64<<20)
				for i := 0; i < len(b); i += 4096 {
					b[i] = 1
				}
				kept = append(kept, b)
			}
		}}
	})
}

// runLimited runs this test binary as ratesim with args under the shell's
// ulimit -v of limitKiB (0: none) and returns its standard error and exit
// code.
func runLimited(t *testing.T, limitKiB int, args ...string) (string, int) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := `exec "$@"`
	if limitKiB > 0 {
		script = "ulimit -v " + strconv.Itoa(limitKiB) + " && " + script
	}
	cmd := exec.Command("/bin/sh", append([]string{"-c", script, "sh", exe}, args...)...)
	cmd.Env = append(os.Environ(), "RATESIM_TEST_MAIN=1")
	var errOut strings.Builder
	cmd.Stderr = &errOut
	err = cmd.Run()
	code := cmd.ProcessState.ExitCode()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return errOut.String(), code
}

// TestOutOfMemoryIsInternal: a run that exhausts its address space (ulimit
// -v 1 GiB, so that the test needs at most that) ends in the Go runtime's
// "fatal error: out of memory", which exits 2 by itself; the supervisor
// reports it as the internal error it is, exit 3 (docs/outputs.md), with
// the runtime's report above it. Without the supervisor
// (RATESIM_SUPERVISE=0) the same run exits 2: the test can fail.
func TestOutOfMemoryIsInternal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ratesim as a subprocess")
	}
	errOut, code := runLimited(t, 1<<20, "test-fatal", "oom")
	if code != exitInternal || !strings.Contains(errOut, "fatal error: out of memory") ||
		!strings.Contains(errOut, "ratesim: internal error: out of memory: the Go runtime could not allocate") ||
		!strings.Contains(errOut, "command line: ratesim test-fatal oom") {
		t.Errorf("exit %d, want %d with the runtime's report and an internal error; stderr ends:\n%s", code, exitInternal, tail(errOut, 800))
	}
	t.Setenv("RATESIM_SUPERVISE", "0")
	if errOut, code := runLimited(t, 1<<20, "test-fatal", "oom"); code != 2 || strings.Contains(errOut, "internal error") {
		t.Errorf("unsupervised: exit %d, want the runtime's 2; stderr ends:\n%s", code, tail(errOut, 400))
	}
}

// TestGoroutinePanicIsInternal: a panic in a goroutine nobody recovers
// ends the process from the runtime (exit 2); supervised, it is exit 3.
func TestGoroutinePanicIsInternal(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ratesim as a subprocess")
	}
	errOut, code := runLimited(t, 0, "test-fatal", "panic")
	if code != exitInternal || !strings.Contains(errOut, "panic: test-fatal in a goroutine") ||
		!strings.Contains(errOut, "ratesim: internal error: the Go runtime ended the run with a fatal error") {
		t.Errorf("exit %d, want %d; stderr ends:\n%s", code, exitInternal, tail(errOut, 800))
	}
	// A usage error still exits 2, and exit codes pass through.
	if errOut, code := runLimited(t, 0, "clients", "--jobs", "-1"); code != exitUsage || strings.Contains(errOut, "internal error") {
		t.Errorf("clients --jobs -1: exit %d, %q; want 2", code, errOut)
	}
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}
