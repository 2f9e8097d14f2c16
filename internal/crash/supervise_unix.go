//go:build unix

package crash

import (
	"errors"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"runtime/debug"
	"syscall"
)

// forwarded are the signals the supervisor passes on to its child.
var forwarded = []os.Signal{syscall.SIGHUP, syscall.SIGINT, syscall.SIGTERM}

// Supervise makes a fatal runtime error (Go's "fatal error: out of
// memory", an unrecovered panic in a goroutine, a stack overflow), which
// the runtime ends with exit 2 and no way to recover, reportable as the
// internal error it is. Called first in main, it starts the program
// again as a child process with the same arguments, standard files and
// environment, forwards SIGHUP, SIGINT and SIGTERM to it, waits,
// and returns (code, true): the child's exit code, or, when the child
// died of a fatal error (exit 2 with a crash report on its crash pipe)
// or of SIGKILL, what report returns for it. In the child (and when the
// environment sets RATESIM_SUPERVISE=0, or the executable cannot be
// found or started) it returns (0, false) and the caller runs the
// program itself; in the child the runtime's crash report is copied to
// the supervisor (runtime/debug.SetCrashOutput) beside standard error.
//
// A child killed by another signal makes the supervisor end by the same
// signal. The child gets SIGTERM if the supervisor dies first (Linux).
func Supervise(report func(Fatal) int) (code int, supervised bool) {
	if os.Getenv(EnvChild) == "1" {
		os.Unsetenv(EnvChild)
		syscall.CloseOnExec(crashFD) // not inherited by what the child starts
		f := os.NewFile(crashFD, "crash pipe")
		if f != nil && debug.SetCrashOutput(f, debug.CrashOptions{}) == nil {
			noteMu.Lock()
			notePip = f
			noteMu.Unlock()
		}
		return 0, false
	}
	if os.Getenv(EnvOff) == "0" {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w} // descriptor 3 = crashFD
	cmd.Env = append(os.Environ(), EnvChild+"=1")
	cmd.SysProcAttr = childAttr()
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, forwarded...)
	if err := cmd.Start(); err != nil {
		signal.Stop(sigs)
		r.Close()
		w.Close()
		return 0, false
	}
	w.Close()
	text := make(chan []byte, 1)
	go func() {
		b, _ := io.ReadAll(io.LimitReader(r, maxCrashText))
		io.Copy(io.Discard, r)
		text <- b
	}()
	waited := make(chan error, 1)
	go func() { waited <- cmd.Wait() }()
	var werr error
	for loop := true; loop; {
		select {
		case s := <-sigs:
			cmd.Process.Signal(s)
		case werr = <-waited:
			loop = false
		}
	}
	signal.Stop(sigs)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return 3, true // cannot happen: Wait after a successful Start
	}
	ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
	switch {
	case ws.Signaled() && ws.Signal() == syscall.SIGKILL:
		f := parseFatal(<-text)
		f.Killed, f.OutOfMemory = true, true
		return report(f), true
	case ws.Signaled():
		signal.Reset(ws.Signal())
		syscall.Kill(os.Getpid(), ws.Signal())
		return 128 + int(ws.Signal()), true
	case ws.ExitStatus() == 2:
		if f := parseFatal(<-text); f.Text != "" {
			return report(f), true
		}
	}
	return ws.ExitStatus(), true
}
