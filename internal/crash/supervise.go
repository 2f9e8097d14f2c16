package crash

import (
	"bytes"
	"io"
	"os"
	"strings"
	"sync"
)

// EnvChild marks the process that [Supervise] starts; EnvOff, set to
// "0", runs the program without a supervisor.
const (
	EnvChild = "RATESIM_SUPERVISED"
	EnvOff   = "RATESIM_SUPERVISE"
)

// crashFD is the descriptor on which a supervised child receives the
// pipe to its supervisor: the runtime writes its fatal errors there
// (runtime/debug.SetCrashOutput) and [Note] writes notes.
const crashFD = 3

// maxCrashText bounds what the supervisor keeps of its child's crash
// output and notes: the first 64 KiB.
const maxCrashText = 64 << 10

// Fatal is what a supervised child left on its crash pipe when the
// runtime ended it with a fatal error (exit 2 with a crash report), or
// when it was killed by SIGKILL.
type Fatal struct {
	// Text is the runtime's report (first 64 KiB): "fatal error: out of
	// memory" and the stacks, or an unrecovered panic.
	Text string
	// OutOfMemory is true when the runtime could not allocate, or the
	// child was killed by SIGKILL (what the kernel's out-of-memory killer
	// sends).
	OutOfMemory bool
	// Killed is true when the child was killed by SIGKILL.
	Killed bool
	// Notes are the child's [Note] lines in order: the estimates it made
	// before it started its work.
	Notes []string
}

var (
	noteMu  sync.Mutex
	notePip *os.File // the crash pipe of a supervised child, nil otherwise
)

// Note records, for the supervisor, a line that a later crash report
// should quote: an estimate the run made before it started ("clients:
// about 1.2 GB of state for 10000000 users"). Without a supervisor it
// does nothing.
func Note(line string) {
	noteMu.Lock()
	defer noteMu.Unlock()
	if notePip != nil {
		io.WriteString(notePip, "ratesim-note: "+strings.ReplaceAll(line, "\n", " ")+"\n")
	}
}

// parseFatal splits what a child wrote on its crash pipe into notes and
// the runtime's report.
func parseFatal(text []byte) Fatal {
	var f Fatal
	var rest bytes.Buffer
	for _, line := range strings.SplitAfter(string(text), "\n") {
		if s, ok := strings.CutPrefix(line, "ratesim-note: "); ok {
			f.Notes = append(f.Notes, strings.TrimSuffix(s, "\n"))
			continue
		}
		rest.WriteString(line)
	}
	f.Text = rest.String()
	f.OutOfMemory = strings.Contains(f.Text, "out of memory") || thrownByAllocator(f.Text)
	return f
}

// thrownByAllocator reports whether a crash report's first stack shows
// runtime.throw called by the runtime's memory allocator: the crash
// output holds the stacks but not the "fatal error: out of memory" line,
// which goes to standard error only. The allocator's functions are those
// of runtime/malloc.go, mcache.go, mcentral.go, mheap.go and mem_*.go
// (Go 1.26): mallocgc*, (*mcache), (*mcentral), (*mheap), (*pageAlloc),
// sysMap, sysAlloc, persistentalloc.
func thrownByAllocator(text string) bool {
	_, after, ok := strings.Cut(text, "runtime.throw(")
	if !ok {
		return false
	}
	lines := strings.Split(after, "\n")
	if len(lines) < 3 {
		return false
	}
	caller := strings.TrimSpace(lines[2]) // throw's line, its file, then its caller
	for _, fn := range []string{"runtime.mallocgc", "runtime.(*mcache).", "runtime.(*mcentral).", "runtime.(*mheap).", "runtime.(*pageAlloc).", "runtime.sysMap", "runtime.sysAlloc", "runtime.persistentalloc", "runtime.(*linearAlloc)."} {
		if strings.HasPrefix(caller, fn) {
			return true
		}
	}
	return false
}
