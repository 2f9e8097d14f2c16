package arrivals_test

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
)

func ExampleNewTrace() {
	const trace = `ts_unix,client
1700000000.0,alice
1700000000.3,bob
1700000001,alice
`
	tr, err := arrivals.NewTrace(strings.NewReader(trace), "example.csv", arrivals.TraceOptions{
		TimeCol: "ts_unix",
		KeyCol:  "client",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		a, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("line %d: T = %v s, key %d (%s, hash %016x)\n", a.Line, a.T, a.Key, tr.KeyName(a.Key), a.Hash)
	}
	ns, _ := tr.Origin()
	fmt.Println("origin:", ns, "ns since the epoch,", time.Unix(0, ns).UTC())
	// Output:
	// line 2: T = 0 s, key 1 (alice, hash 508b2abb65a03907)
	// line 3: T = 0.3 s, key 2 (bob, hash 004d4419134a0a54)
	// line 4: T = 1 s, key 1 (alice, hash 508b2abb65a03907)
	// origin: 1700000000000000000 ns since the epoch, 2023-11-14 22:13:20 +0000 UTC
}

// This example shows the error for a trace that goes back in time, and the
// two ways to accept such a trace.
func ExampleTraceOptions() {
	const trace = "t\n1700000010\n1700000012\n1700000011\n"
	for _, opt := range []arrivals.TraceOptions{{}, {Sort: true}, {SkipBad: true}} {
		tr, err := arrivals.NewTrace(strings.NewReader(trace), "late.csv", opt)
		if err != nil {
			fmt.Println(err)
			continue
		}
		var ts []engine.Time
		for {
			a, err := tr.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					fmt.Println(err)
					fmt.Println("out of order:", errors.Is(err, arrivals.ErrOutOfOrder))
				}
				break
			}
			ts = append(ts, a.T)
		}
		fmt.Printf("Sort %v, SkipBad %v: %v, skipped %d\n", opt.Sort, opt.SkipBad, ts, tr.Skipped())
	}
	// Output:
	// arrivals: late.csv:4: time 1700000011 is earlier than the previous arrival 1700000012 (line 3); use Sort to sort the trace or SkipBad to skip such lines
	// out of order: true
	// Sort false, SkipBad false: [0 2], skipped 0
	// Sort true, SkipBad false: [0 1 2], skipped 0
	// Sort false, SkipBad true: [0 2], skipped 1
}

func ExampleOpen() {
	tr, err := arrivals.Open("testdata/small.tsv", arrivals.TraceOptions{TimeCol: "ts_unix"})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer tr.Close()
	for {
		a, err := tr.Next()
		if err != nil {
			break
		}
		fmt.Println(a.Line, a.T)
	}
	_, err = arrivals.Open("testdata/small.tsv", arrivals.TraceOptions{TimeCol: "time"})
	fmt.Println(err)
	// Output:
	// 2 0
	// 3 4
	// 4 4
	// arrivals: testdata/small.tsv:1: time column "time" is not in the header: the header has 2 columns: "ts_unix", "client"
}

func ExampleTraceError() {
	_, err := arrivals.NewTrace(strings.NewReader(""), "empty.csv", arrivals.TraceOptions{})
	var te *arrivals.TraceError
	if errors.As(err, &te) {
		fmt.Printf("file %s, line %d, empty: %v\n", te.File, te.Line, errors.Is(err, arrivals.ErrEmpty))
	}
	fmt.Println(err)
	// Output:
	// file empty.csv, line 1, empty: true
	// arrivals: empty.csv:1: empty trace: want a header line naming the columns
}
