//go:build unix

package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/spf13/cobra"

	"github.com/ratesim/ratesim/internal/crash"
)

// TestMain runs main instead of the tests when RATESIM_TEST_MAIN is set,
// so that tests can run ratesim as a subprocess (to send it signals)
// without building it.
func TestMain(m *testing.M) {
	if os.Getenv("RATESIM_TEST_MAIN") == "1" {
		main()
	}
	os.Exit(m.Run())
}

// subprocess is ratesim started as a child process in dir.
type subprocess struct {
	cmd         *exec.Cmd
	out, errOut bytes.Buffer
	exited      chan struct{}
}

func startRatesim(t *testing.T, dir string, args ...string) *subprocess {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &subprocess{cmd: exec.Command(exe, args...), exited: make(chan struct{})}
	p.cmd.Dir = dir
	p.cmd.Env = append(os.Environ(), "RATESIM_TEST_MAIN=1")
	p.cmd.Stdout, p.cmd.Stderr = &p.out, &p.errOut
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { p.cmd.Wait(); close(p.exited) }()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	return p
}

// waitFor polls ready until it holds; it fails the test if the process
// exits first or a minute passes.
func (p *subprocess) waitFor(t *testing.T, what string, ready func() bool) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for !ready() {
		select {
		case <-p.exited:
			t.Fatalf("ratesim exited (%v) before %s:\n%s", p.cmd.ProcessState, what, p.errOut.String())
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no %s after a minute", what)
		}
	}
}

// anyFile reports whether a file matching pattern exists.
func anyFile(pattern string) func() bool {
	return func() bool {
		m, _ := filepath.Glob(pattern)
		return len(m) > 0
	}
}

// temporaries lists the atomicfile temporary files left under dir.
func temporaries(t *testing.T, dir string) []string {
	var left []string
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(d.Name(), ".tmp") {
			left = append(left, path)
		}
		return nil
	})
	return left
}

// stopLimit is how long a stopped command may take to exit in these
// tests. ratesim itself exits within stopGrace (0.7 s) of a signal; the
// margin is for a test machine loaded by other tests.
const stopLimit = 5 * time.Second

// TestSignalsStopEveryCommand runs each command as a subprocess, sends
// SIGINT, SIGTERM or SIGHUP in the middle of a given phase, and checks
// that it exits with 128 + the signal's number promptly and leaves no
// temporary file.
func TestSignalsStopEveryCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ratesim as a subprocess")
	}
	// A sweep's results with many figures, for the figure phases of plot,
	// merge and sweep.
	base := t.TempDir()
	figArgs := []string{"--jobs", "200", "--warmup", "0", "--replications", "2", "-q",
		"--grid", "burst=6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25", "--grid", "k=2,3", "--grid", "load=0.5,0.9"}
	if _, errOut, code := ratesim(t, append([]string{"sweep", "--no-figures", "-o", filepath.Join(base, "s")}, figArgs...)...); code != 0 {
		t.Fatalf("sweep for the figure phases: exit %d: %s", code, errOut)
	}
	results := filepath.Join(base, "s", "results.json")
	for i := 1; i <= 2; i++ {
		if _, errOut, code := ratesim(t, append([]string{"sweep", "--shard", fmt.Sprintf("%d/2", i), "-o", filepath.Join(base, "shards")}, figArgs...)...); code != 0 {
			t.Fatalf("shard %d: exit %d: %s", i, code, errOut)
		}
	}
	shards, _ := filepath.Glob(filepath.Join(base, "shards", "shard-*.json"))

	type phase struct {
		name  string
		args  []string
		fifo  bool                         // the trace is a FIFO fed endlessly
		ready func(dir string) func() bool // nil: the process has started
	}
	figure := func(sub string) func(dir string) func() bool {
		return func(dir string) func() bool { return anyFile(filepath.Join(dir, sub, "*.png")) }
	}
	started := func(string) func() bool {
		at := time.Now()
		return func() bool { return time.Since(at) > 300*time.Millisecond }
	}
	phases := []phase{
		{"verify", []string{"verify", "--instances", "30000000"}, false, started}, // hours of work, under verify's bound of 38461538 instances
		{"run writing --jobs-out", []string{"run", "--jobs", "1000000000", "--jobs-out", "jobs.csv"}, false,
			func(dir string) func() bool { return anyFile(filepath.Join(dir, ".jobs.csv.tmp-*")) }},
		{"run --sort loading", []string{"run", "--trace", "fifo.csv", "--sort"}, true, nil},
		{"limiters loading", []string{"limiters", "--trace", "fifo.csv", "--sort"}, true, nil},
		{"trace stats", []string{"trace", "stats", "fifo.csv"}, true, nil},
		{"sweep replications", []string{"sweep", "--jobs", "100000000", "-q", "-o", "sw"}, false, started},
		{"sweep figures", append([]string{"sweep", "-o", "sw"}, figArgs...), false, figure("sw/figures")},
		{"plot figures", []string{"plot", results, "--out", "figs"}, false, figure("figs")},
		{"merge figures", append([]string{"merge", "-o", "m"}, shards...), false, figure("m/figures")},
	}
	signals := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP}
	for i, ph := range phases {
		sig := signals[i%len(signals)]
		t.Run(ph.name, func(t *testing.T) {
			dir := t.TempDir()
			if ph.fifo {
				feedFIFO(t, filepath.Join(dir, "fifo.csv"))
			}
			p := startRatesim(t, dir, ph.args...)
			if ph.fifo {
				// Loading: the feeder has written well past the reader's buffer.
				time.Sleep(300 * time.Millisecond)
			}
			if ph.ready != nil {
				p.waitFor(t, ph.name, ph.ready(dir))
			}
			sent := time.Now()
			if err := p.cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			select {
			case <-p.exited:
			case <-time.After(stopLimit):
				t.Fatalf("%v: still running %v after the signal", sig, stopLimit)
			}
			took := time.Since(sent)
			st := p.cmd.ProcessState.Sys().(syscall.WaitStatus)
			if st.Signaled() || st.ExitStatus() != 128+int(sig) {
				t.Errorf("%v: %v, want exit %d\n%s", sig, p.cmd.ProcessState, 128+int(sig), p.errOut.String())
			}
			if !strings.Contains(p.errOut.String(), "interrupted by") {
				t.Errorf("%v: stderr does not say it was interrupted:\n%s", sig, p.errOut.String())
			}
			if left := temporaries(t, dir); len(left) > 0 {
				t.Errorf("%v: temporary files left: %v", sig, left)
			}
			t.Logf("%v: exit %d after %v", sig, st.ExitStatus(), took)
		})
	}
}

// feedFIFO makes a named pipe at path and writes an endless CSV trace
// into it until the test ends.
func feedFIFO(t *testing.T, path string) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	stop := make(chan struct{})
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		w.WriteString("t\n")
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			for j := range 1000 {
				fmt.Fprintf(w, "%d\n", i*1000+j)
			}
			if err := w.Flush(); err != nil {
				return // the reader has gone
			}
		}
	}()
	t.Cleanup(func() {
		close(stop)
		// Unblock an open that no reader will match.
		if f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		<-done
	})
}

// TestStopGraceExits: a command that ignores its context is not waited
// for: stopGrace after the signal the process ends anyway, with the signal's
// code and no temporary file. ratesim plot of a results file read from a
// FIFO that never ends blocks in a read that no context check reaches.
func TestStopGraceExits(t *testing.T) {
	if testing.Short() {
		t.Skip("runs ratesim as a subprocess")
	}
	dir := t.TempDir()
	fifo := filepath.Join(dir, "results.json")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	// Hold the FIFO open for writing without writing, so the read blocks.
	go func() {
		if f, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			t.Cleanup(func() { f.Close() })
		}
	}()
	p := startRatesim(t, dir, "plot", fifo, "--out", "figs")
	time.Sleep(300 * time.Millisecond)
	p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopLimit):
		t.Fatalf("still running %v after SIGTERM", stopLimit)
	}
	if code := p.cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d, want 143\n%s", code, p.errOut.String())
	}
}

// TestPanicIsAnInternalError: a panic in a command, or one recovered in
// a worker goroutine and returned as an crash.Error, exits 3
// with "internal error", the version and the command line to report; it
// is never mistaken for bad usage (2).
func TestPanicIsAnInternalError(t *testing.T) {
	testCommands = append(testCommands, func() *cobra.Command {
		return &cobra.Command{Use: "panic-now", RunE: func(*cobra.Command, []string) error {
			var m map[string]int
			m["x"]++ // a nil-map write: a runtime error, as a bug would be
			return nil
		}}
	}, func() *cobra.Command {
		return &cobra.Command{Use: "panic-worker", RunE: func(*cobra.Command, []string) error {
			return fmt.Errorf("point 3: %w", &crash.Error{Value: "index out of range [5] with length 5", Stack: []byte("goroutine 7 [running]:\n")})
		}}
	})
	defer func() { testCommands = testCommands[:len(testCommands)-2] }()
	for _, c := range []struct{ cmd, want string }{
		{"panic-now", "assignment to entry in nil map"},
		{"panic-worker", "index out of range [5] with length 5"},
	} {
		out, errOut, code := ratesim(t, c.cmd, "arg with space")
		if code != exitInternal || out != "" {
			t.Errorf("%s: exit %d, stdout %q; want %d", c.cmd, code, out, exitInternal)
		}
		for _, want := range []string{"ratesim: internal error: ", c.want, "version:", "command line: ratesim " + c.cmd + " 'arg with space'", "goroutine"} {
			if !strings.Contains(errOut, want) {
				t.Errorf("%s: stderr lacks %q:\n%s", c.cmd, want, errOut)
			}
		}
	}
	var pe *crash.Error
	if !errors.As(fmt.Errorf("x: %w", &crash.Error{Value: 1}), &pe) || exitCode(pe) != exitInternal {
		t.Error("exitCode of a wrapped PanicError is not exitInternal")
	}
}
