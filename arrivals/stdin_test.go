package arrivals

import (
	"errors"
	"strings"
	"testing"
)

// useStdin makes Open("-") read input, as if it were standard input, and
// forgets any earlier reading of it.
func useStdin(t *testing.T, input string) {
	t.Helper()
	old := stdin
	stdin = strings.NewReader(input)
	stdinUsed.Store(false)
	t.Cleanup(func() { stdin = old; stdinUsed.Store(false) })
}

// TestOpenStdin: "-" reads standard input (not a file called "-"), names
// it "stdin" in errors, and refuses a second reading with ErrOnePass
// instead of returning an empty trace.
func TestOpenStdin(t *testing.T) {
	useStdin(t, "t\n1700000000\n1700000000.5\nx\n")
	tr, err := Open("-", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := tr.Next()
	b, _ := tr.Next()
	if a.T != 0 || b.T != 500*ms {
		t.Errorf("arrivals at %v and %v s, want 0 and 0.5", a.T, b.T)
	}
	if _, err := tr.Next(); err == nil || !strings.HasPrefix(err.Error(), `arrivals: stdin:4: bad time "x"`) {
		t.Errorf("bad line: error = %v, want one naming stdin:4", err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	_, err = Open("-", TraceOptions{})
	if !errors.Is(err, ErrOnePass) || !strings.Contains(err.Error(), "arrivals: stdin: standard input was already read: it can be read only once") {
		t.Errorf("second Open(-): error = %v, want ErrOnePass", err)
	}
	// Gzip and Sort work on standard input: both read it once.
	useStdin(t, gzipped(t, "t\n3\n1\n2\n"))
	tr, err = Open("-", TraceOptions{Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	all, err := readAll(tr)
	if err != nil || len(all) != 3 || all[2].T != 2*s1 {
		t.Errorf("sorted gzip from stdin: %v, %v", times(all), err)
	}
}

// TestCheckRereadable: a regular file can be read twice; standard input
// and a named pipe cannot, and the error says so.
func TestCheckRereadable(t *testing.T) {
	if err := CheckRereadable("testdata/small.tsv"); err != nil {
		t.Errorf("regular file: %v, want nil", err)
	}
	if err := CheckRereadable("-"); !errors.Is(err, ErrOnePass) || !strings.Contains(err.Error(), "standard input can be read only once, and this reads the trace twice") {
		t.Errorf("stdin: %v, want ErrOnePass", err)
	}
	if err := CheckRereadable("testdata/no-such-file"); err == nil || errors.Is(err, ErrOnePass) {
		t.Errorf("missing file: %v, want the stat error", err)
	}
}
