package arrivals

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// fuzzFormats are the time formats FuzzTrace picks from.
var fuzzFormats = []string{"unix", "unix-ms", "unix-us", "unix-ns", "datetime", "rfc3339", "02/Jan/2006:15:04:05 -0700"}

// lineErr matches a message that names the fuzz file and a line >= 1.
var lineErr = regexp.MustCompile(`^arrivals: fuzz\.csv:[1-9][0-9]*: `)

// FuzzTrace reads arbitrary input and checks that the reader does not
// panic, that every error names the file and a line, and that the arrivals
// it does yield start at 0 and never go back in time.
func FuzzTrace(f *testing.F) {
	for _, seed := range []struct {
		data       string
		format     uint8
		sort, skip bool
		cols       uint8
	}{
		{"ts\n1\n2\n", 0, false, false, 0},
		{"", 0, false, false, 0},
		{"t\n", 0, true, false, 0},
		{"t\n1700000000.0\n1700000000.3\n", 0, false, false, 0},
		{"t,k,s\n3,a,0\n1,b,1\n2,c,x\n", 0, true, true, 3},
		{"t,k,s\n3,a,0\n1,b,1\n2,c,x\n", 0, false, false, 3},
		{"t\n1e9\n-\n.\n9223372037\n-9223372036.854775808\n", 0, false, true, 0},
		{"t\n1.1234567891\n", 1, false, false, 0},
		{"t\n2024-02-29 23:59:59.999999999\n2024-03-01 00:00:00\n", 4, false, false, 0},
		{"t\n2023-11-16T18:17:03Z\n2023-11-16T19:17:04.5+01:00\n", 5, false, false, 0},
		{"t\n01/Aug/1995:00:00:01 -0400\n", 6, false, false, 0},
		{"a,b\n1,2\n3\n\"x\n", 0, false, true, 1},
		{"a\tb\n1\t\"2\n3\t4\n", 0, false, false, 2},
		{"\uFEFFt\r\n5\r\n4\r\n", 0, false, false, 0},
		{"1\n0\n3\n2\n", 0, true, true, 0},                             // counts read as a trace
		{"id,ts\na1,1700000000\n", 0, false, false, 1},                 // the time column is the second
		{"t\n2024-11-15 16:57:50\n1700000000000\n", 0, false, true, 0}, // other formats
		{"t\n" + strings.Repeat("x\n", 30) + "5\n", 0, false, true, 0}, // too many bad lines
	} {
		f.Add(seed.data, seed.format, seed.sort, seed.skip, seed.cols)
	}
	f.Fuzz(func(t *testing.T, data string, format uint8, sort, skip bool, cols uint8) {
		opt := TraceOptions{
			TimeFormat: fuzzFormats[int(format)%len(fuzzFormats)],
			Sort:       sort,
			SkipBad:    skip,
		}
		if cols&1 != 0 {
			opt.KeyCol = "2"
		}
		if cols&2 != 0 {
			opt.SubCol = "3"
		}
		check := func(err error) {
			t.Helper()
			if !lineErr.MatchString(err.Error()) {
				t.Fatalf("error %q does not name fuzz.csv and a line", err)
			}
			var te *TraceError
			if !errors.As(err, &te) || te.Line < 1 {
				t.Fatalf("error %v is not a *TraceError with a line", err)
			}
		}
		tr, err := NewTrace(strings.NewReader(data), "fuzz.csv", opt)
		if err != nil {
			check(err)
			return
		}
		prev := engine.Time(0)
		for i := 0; ; i++ {
			a, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				check(err)
				if _, err2 := tr.Next(); err2 != err {
					t.Fatalf("Next after %v = %v, want the same error", err, err2)
				}
				break
			}
			if i == 0 && a.T != 0 || a.T < prev || a.Line < 2 {
				t.Fatalf("arrival %d = %+v after T %v: want T0 = 0, non-decreasing, Line >= 2", i, a, prev)
			}
			prev = a.T
		}
		if e := tr.FirstSkipped(); e != nil {
			check(e)
		}
	})
}

// FuzzOneColumn compares the one-column fast path of a CSV trace of
// decimal times (Trace.readLine) with the general path on the same input:
// the same arrivals, lines and errors, with and without SkipBad.
func FuzzOneColumn(f *testing.F) {
	for _, s := range []string{"t\n1\n2\n", "t\n1700000000.123456\n1700000000.2\n", "t\n 5 \n\"6\"\n7,8\n9;\n",
		"t\r\n1.5\r\n\r\n-2\n+.5\n.\n5.\n", "t\n1.1234567891\n\u00a03\u00a0\n", "t;x\n1\n", "t\n9223372036.854775807\n9223372036.854775808\n"} {
		f.Add(s, false, uint8(0))
		f.Add(s, true, uint8(1))
	}
	f.Fuzz(func(t *testing.T, data string, skip bool, unit uint8) {
		opt := TraceOptions{SkipBad: skip, TimeFormat: fuzzFormats[int(unit)%4]}
		read := func(fast bool) []string {
			tr, err := NewTrace(strings.NewReader(data), "fuzz.csv", opt)
			if err != nil {
				return []string{err.Error()}
			}
			if !fast {
				tr.oneDecimal = false
			}
			var out []string
			for range 1000 {
				a, err := tr.Next()
				if err != nil {
					out = append(out, err.Error())
					break
				}
				out = append(out, fmt.Sprint(a.T, a.Line, a.Sub, a.Key))
			}
			return append(out, fmt.Sprint(tr.Skipped()))
		}
		if fast, general := read(true), read(false); !slices.Equal(fast, general) {
			t.Errorf("fast path %q\ngeneral path %q", fast, general)
		}
	})
}
