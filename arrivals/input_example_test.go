package arrivals_test

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
)

// This example shows the hint of an error: the trace's times are
// datetimes, read as Unix seconds. A caller can print the message, or use
// the hint's option and value in its own words.
func ExampleHint() {
	_, err := arrivals.NewTrace(strings.NewReader("t\n2024-11-15 16:57:50\n"), "d.csv", arrivals.TraceOptions{Sort: true})
	fmt.Println(err)
	var h *arrivals.Hint
	if errors.As(err, &h) {
		fmt.Printf("set %s to %q\n", h.Option, h.Value)
	}
	fmt.Println(errors.Is(err, arrivals.ErrBadField), errors.Is(err, arrivals.ErrTimeFormat))
	// Output:
	// arrivals: d.csv:2: bad time "2024-11-15 16:57:50" in column "t": not a decimal number; want Unix seconds such as 1700000000 or 1700000000.25; "2024-11-15 16:57:50" looks like a datetime (YYYY-MM-DD HH:MM:SS): try TimeFormat="datetime"
	// set TimeFormat to "datetime"
	// true true
}

// This example aligns windows of 1 minute to the absolute clock (edges at
// k·60 s since the Unix epoch), as window limiters do, from the trace's
// origin: the first edge after the origin 1700000030 s is 1700000040 s
// (= 28333334·60 s), 10 s into the trace.
func ExampleTrace_Origin() {
	const trace = "t\n1700000030\n1700000039.999999999\n1700000040\n"
	tr, _ := arrivals.NewTrace(strings.NewReader(trace), "w.csv", arrivals.TraceOptions{})
	const w = 60 * engine.Second
	for {
		a, err := tr.Next()
		if err != nil {
			break
		}
		origin, _ := tr.Origin()
		abs := origin + int64(a.T) // exact Unix ns
		fmt.Printf("T = %v s: window %d\n", a.T, abs/int64(w))
	}
	origin, _ := tr.Origin()
	next := (origin/int64(w) + 1) * int64(w)
	fmt.Printf("first edge at T = %v s\n", engine.Time(next-origin))
	// Output:
	// T = 0 s: window 28333333
	// T = 9.999999999 s: window 28333333
	// T = 10 s: window 28333334
	// first edge at T = 10 s
}

// This example refuses to read standard input twice: a statistic and a
// fit each read the trace, so the command checks first.
func ExampleCheckRereadable() {
	err := arrivals.CheckRereadable("-")
	fmt.Println(err)
	fmt.Println(errors.Is(err, arrivals.ErrOnePass))
	fmt.Println(arrivals.CheckRereadable("testdata/small.tsv"))
	// Output:
	// arrivals: stdin: standard input can be read only once, and this reads the trace twice: save the trace to a file and give its path
	// true
	// <nil>
}
