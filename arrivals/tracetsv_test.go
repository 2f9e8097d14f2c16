package arrivals

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// fnvKey is the Key the reader gives a key field s.
func fnvKey(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}

// TestTraceTSVQuoteStartsField is the tester's case: in TSV a field that
// starts with a quote is text, so the quote does not swallow the lines
// after it. encoding/csv with LazyQuotes read one arrival here, silently.
func TestTraceTSVQuoteStartsField(t *testing.T) {
	const input = "t\tx\n0\t\"a\n1\tb\"c\n2\td\n"
	want := []Arrival{
		{T: 0, Key: 1, Hash: fnvKey(`"a`), Sub: -1, Line: 2},
		{T: s1, Key: 2, Hash: fnvKey(`b"c`), Sub: -1, Line: 3},
		{T: 2 * s1, Key: 3, Hash: fnvKey("d"), Sub: -1, Line: 4},
	}
	for _, tc := range []struct {
		name string
		opt  TraceOptions
	}{
		{"x.tsv", TraceOptions{KeyCol: "x"}},                   // by extension
		{"x.txt", TraceOptions{KeyCol: "x"}},                   // by the header's tabs
		{"x.csv", TraceOptions{KeyCol: "x", Delimiter: '\t'}},  // by option
		{"x.tsv", TraceOptions{KeyCol: "x", Sort: true}},       // read whole
		{"x.tsv", TraceOptions{KeyCol: "x", SkipBad: true}},    // nothing to skip
		{"x.tsv", TraceOptions{KeyCol: "x", TimeCol: "\"t\""}}, // a quoted name is not a header name
	} {
		tr, all, err := readTrace(t, input, tc.name, tc.opt)
		if tc.opt.TimeCol != "" {
			if !errors.Is(err, ErrColumn) {
				t.Errorf("%s %+v: error = %v, want ErrColumn", tc.name, tc.opt, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s %+v: %v", tc.name, tc.opt, err)
			continue
		}
		if diff := cmp.Diff(want, all); diff != "" {
			t.Errorf("%s %+v: arrivals (-want +got):\n%s", tc.name, tc.opt, diff)
		}
		if tr.Skipped() != 0 {
			t.Errorf("%s %+v: Skipped() = %d, want 0", tc.name, tc.opt, tr.Skipped())
		}
	}
	// Quotes in the header are text too.
	_, all, err := readTrace(t, "\"t\"\tx\n5\t\"\n", "q.tsv", TraceOptions{TimeCol: `"t"`})
	if err != nil || len(all) != 1 || all[0].Line != 2 {
		t.Errorf(`header "t": arrivals %+v, error %v, want one on line 2`, all, err)
	}
}

// TestTraceTSVLines checks line numbers around CRLF line ends, blank lines
// and a last line without a newline, and that TSV skips blank lines as the
// CSV reader does.
func TestTraceTSVLines(t *testing.T) {
	const tsv = "\r\nt\tx\r\n0\ta\r\n\r\n1\tb\r\n\n\n2\tc\r"
	wantLines := []int{3, 5, 8}
	for _, tc := range []struct{ name, input string }{
		{"l.tsv", tsv},
		{"l.csv", strings.ReplaceAll(tsv, "\t", ",")},
	} {
		tr, all, err := readTrace(t, tc.input, tc.name, TraceOptions{KeyCol: "x"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var lines []int
		for _, a := range all {
			lines = append(lines, a.Line)
		}
		if diff := cmp.Diff(wantLines, lines); diff != "" {
			t.Errorf("%s: lines (-want +got):\n%s", tc.name, diff)
		}
		// The CR is not part of the last key.
		if got, want := all[len(all)-1].Hash, fnvKey("c"); got != want {
			t.Errorf("%s: last key = %x, want %x (the hash of %q)", tc.name, got, want, "c")
		}
		if _, err := tr.Next(); err != io.EOF {
			t.Errorf("%s: Next at the end = %v, want io.EOF", tc.name, err)
		}
	}
	// A CR inside a line is data, in both formats.
	for _, name := range []string{"r.tsv", "r.csv"} {
		input := strings.ReplaceAll("t\tx\n1\ta\rb\n", "\t", map[string]string{"r.tsv": "\t", "r.csv": ","}[name])
		_, all, err := readTrace(t, input, name, TraceOptions{KeyCol: "x"})
		if err != nil || len(all) != 1 || all[0].Hash != fnvKey("a\rb") {
			t.Errorf("%s: arrivals %+v, error %v, want one with the key %q", name, all, err, "a\rb")
		}
	}
}

// TestTraceTSVErrors checks that TSV reports bad lines as CSV does, with
// the exact line.
func TestTraceTSVErrors(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		opt         TraceOptions
		want        string
		is          error
	}{
		{"too few fields", "t\tx\n1\ta\n\n2\n", TraceOptions{},
			`e.tsv:4: wrong number of fields: want 2 as in the header, separated by '\t'`, csvErrFieldCount},
		{"quote then too few", "t\tx\n1\t\"a\n2\n3\tb\"\n", TraceOptions{},
			`e.tsv:3: wrong number of fields: want 2 as in the header, separated by '\t'`, csvErrFieldCount},
		{"bad time", "t\tx\n1\ta\n\"2\"\tb\n", TraceOptions{},
			`e.tsv:3: bad time "\"2\"" in column "t": not a decimal number`, ErrBadField},
		{"bad sub", "t\ts\n1\t0\n2\t 99999999999999999999 \n", TraceOptions{SubCol: "s"},
			`e.tsv:3: bad sub-bucket index "99999999999999999999" in column "s"`, ErrBadField},
		{"out of order", "t\tx\n5\ta\n\n4\tb\n", TraceOptions{},
			`e.tsv:4: time 4 is earlier than the previous arrival 5 (line 2)`, ErrOutOfOrder},
		{"header only", "t\tx\r\n\r\n", TraceOptions{}, "e.tsv:2: no arrivals after the header", ErrNoArrivals},
		{"blank", "\n\r\n", TraceOptions{}, "e.tsv:1: empty trace", ErrEmpty},
	} {
		_, _, err := readTrace(t, tc.input, "e.tsv", tc.opt)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.is) {
			t.Errorf("%s: error = %v, want %v containing %q", tc.name, err, tc.is, tc.want)
		}
		var pe *csv.ParseError
		if tc.is == csvErrFieldCount && !errors.As(err, &pe) {
			t.Errorf("%s: error %v does not wrap a *csv.ParseError", tc.name, err)
		}
	}
	// SkipBad skips a short line and reads on.
	tr, all, err := readTrace(t, "t\tx\n1\t\"a\n2\n3\tb\"\n", "e.tsv", TraceOptions{SkipBad: true})
	if err != nil || len(all) != 2 || all[1].Line != 4 || tr.Skipped() != 1 {
		t.Errorf("SkipBad: arrivals %+v, Skipped %d, error %v, want lines 2 and 4, one skipped", all, tr.Skipped(), err)
	}
	// An I/O error names the line being read.
	tr, err = NewTrace(&failReader{data: "t\tx\n1\ta\n2\tb"}, "io.tsv", TraceOptions{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	tr.Next()
	if _, err := tr.Next(); err == nil || !strings.Contains(err.Error(), "io.tsv:3: read error: disk on fire") {
		t.Errorf("error = %v, want io.tsv:3: read error: disk on fire", err)
	}
}

// TestTraceTSVLongLine reads a line longer than the reader's buffer.
func TestTraceTSVLongLine(t *testing.T) {
	long := strings.Repeat("k", 200<<10)
	input := "t\tkey\n1\ta\n2\t" + long + "\n3\tb\n"
	_, all, err := readTrace(t, input, "long.tsv", TraceOptions{KeyCol: "key"})
	if err != nil {
		t.Fatal(err)
	}
	want := []Arrival{
		{T: 0, Key: 1, Hash: fnvKey("a"), Sub: -1, Line: 2},
		{T: s1, Key: 2, Hash: fnvKey(long), Sub: -1, Line: 3},
		{T: 2 * s1, Key: 3, Hash: fnvKey("b"), Sub: -1, Line: 4},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
}

// TestTraceTSVNoAlloc guards the per-line cost of TSV: a good line with a
// decimal or datetime time, a key and a sub-bucket allocates nothing.
func TestTraceTSVNoAlloc(t *testing.T) {
	const lines = 2000
	for _, tc := range []struct{ format, time string }{
		{"unix", "1700000000.25"},
		{"datetime", "2023-11-16 18:17:03.9799600"},
	} {
		var sb strings.Builder
		sb.WriteString("t\tclient\tsub\n")
		for i := range lines {
			fmt.Fprintf(&sb, " %s \tclient-%d\t%d\n", tc.time, i%37, i%4)
		}
		tr, err := NewTrace(strings.NewReader(sb.String()), "a.tsv", TraceOptions{TimeFormat: tc.format, KeyCol: "client", SubCol: "sub"})
		if err != nil {
			t.Fatal(err)
		}
		if n := testing.AllocsPerRun(lines-10, func() {
			if _, err := tr.Next(); err != nil {
				t.Fatal(err)
			}
		}); n != 0 {
			t.Errorf("%s: %v allocations per line, want 0", tc.format, n)
		}
	}
}

// FuzzTSVReader compares the TSV reader with encoding/csv on input
// without quotes, where the two must agree on every record and line.
func FuzzTSVReader(f *testing.F) {
	for _, s := range []string{
		"a\tb\n1\t2\n",
		"\r\n\na\r\n\r\r\n\tx\t\r",
		"a\rb\t\n\n\n c \t",
		"é\t\u00a0\n",
		"\r",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data string) {
		if strings.Contains(data, `"`) {
			return // encoding/csv would read quotes; TSV has none
		}
		cr := csv.NewReader(strings.NewReader(data))
		cr.Comma = '\t'
		cr.FieldsPerRecord = -1
		tr := &tsvReader{br: bufio.NewReaderSize(strings.NewReader(data), 16)}
		for {
			want, werr := cr.Read()
			got, gerr := tr.read()
			if werr == io.EOF || gerr == io.EOF {
				if werr != gerr {
					t.Fatalf("end: tsvReader %v, csv %v", gerr, werr)
				}
				return
			}
			if werr != nil || gerr != nil {
				t.Fatalf("tsvReader error %v, csv error %v", gerr, werr)
			}
			var gs []string
			for _, g := range got {
				gs = append(gs, string(g))
			}
			if diff := cmp.Diff(want, gs); diff != "" {
				t.Fatalf("line %d: fields (-csv +tsvReader):\n%s", tr.line, diff)
			}
			if line, _ := cr.FieldPos(0); line != tr.line {
				t.Fatalf("record %q: line %d, csv says %d", gs, tr.line, line)
			}
		}
	})
}
