package arrivals

import (
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/ratesim/ratesim/engine"
)

// readTrace reads every arrival of input; err is the error that ended the
// stream (nil at io.EOF) or NewTrace's error.
func readTrace(t *testing.T, input, name string, opt TraceOptions) (*Trace, []Arrival, error) {
	t.Helper()
	tr, err := NewTrace(strings.NewReader(input), name, opt)
	if err != nil {
		return nil, nil, err
	}
	var all []Arrival
	for {
		a, err := tr.Next()
		if err == io.EOF {
			return tr, all, nil
		}
		if err != nil {
			return tr, all, err
		}
		all = append(all, a)
	}
}

// times returns the T of each arrival.
func times(all []Arrival) []engine.Time {
	var ts []engine.Time
	for _, a := range all {
		ts = append(ts, a.T)
	}
	return ts
}

// origin returns tr.Origin() as a time.Time, or the zero time.
func origin(tr *Trace) time.Time {
	ns, ok := tr.Origin()
	if !ok {
		return time.Time{}
	}
	return time.Unix(0, ns)
}

// Units for the expected times of the trace tests.
const (
	ns = engine.Nanosecond
	us = engine.Microsecond
	ms = engine.Millisecond
	s1 = engine.Second
)

// TestTraceFormats reads every time format: each want is the exact
// difference from the first arrival in nanoseconds, worked out by hand.
func TestTraceFormats(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		opt         TraceOptions
		want        []engine.Time // since the first arrival
		origin      time.Time
	}{
		{"unix integer", "ts\n100\n101\n101\n105\n", TraceOptions{},
			[]engine.Time{0, s1, s1, 5 * s1}, time.Unix(100, 0)},
		{"unix decimal 0.3", "ts\n1700000000.0\n1700000000.3\n", TraceOptions{TimeFormat: "unix"},
			[]engine.Time{0, 300 * ms}, time.Unix(1_700_000_000, 0)},
		{"unix negative", "ts\n-1.5\n0\n2.25\n", TraceOptions{},
			[]engine.Time{0, 1500 * ms, 3750 * ms}, time.Unix(-2, 500_000_000)},
		{"unix spaces", "ts , x\n 7 ,a\n8.5,b\n", TraceOptions{},
			[]engine.Time{0, 1500 * ms}, time.Unix(7, 0)},
		{"unix-ms", "ms\n1700000000000\n1700000000000.5\n1700000000300\n", TraceOptions{TimeFormat: "unix-ms"},
			[]engine.Time{0, 500 * us, 300 * ms}, time.Unix(1_700_000_000, 0)},
		{"unix-us", "us\n1700000000000000\n1700000000000001.5\n", TraceOptions{TimeFormat: "unix-us"},
			[]engine.Time{0, 1500 * ns}, time.Unix(1_700_000_000, 0)},
		{"unix-ns", "ns\n1700000000000000000\n1700000000300000000\n1700000000300000001\n", TraceOptions{TimeFormat: "unix-ns"},
			[]engine.Time{0, 300 * ms, 300*ms + 1}, time.Unix(1_700_000_000, 0)},
		{"datetime", "t\n2024-11-15 16:57:50\n2024-11-15 18:16:14\n", TraceOptions{TimeFormat: "datetime"},
			[]engine.Time{0, 4704 * s1}, time.Date(2024, 11, 15, 16, 57, 50, 0, time.UTC)}, // 1 h 18 min 24 s
		{"datetime fraction", "t\n2023-11-16 18:17:03.9799600\n2023-11-16 18:17:04.0319600\n", TraceOptions{TimeFormat: "datetime"},
			[]engine.Time{0, 52 * ms}, time.Date(2023, 11, 16, 18, 17, 3, 979_960_000, time.UTC)},
		{"datetime leap day", "t\n2024-02-28 23:59:59.5\n2024-02-29 00:00:00\n2024-03-01 00:00:00.000000001\n", TraceOptions{TimeFormat: "datetime"},
			[]engine.Time{0, 500 * ms, 86400*s1 + 500*ms + 1}, time.Date(2024, 2, 28, 23, 59, 59, 500_000_000, time.UTC)},
		{"rfc3339 zones", "t\n2023-11-16T18:17:03Z\n2023-11-16T19:17:04.5+01:00\n", TraceOptions{TimeFormat: "rfc3339"},
			[]engine.Time{0, 1500 * ms}, time.Date(2023, 11, 16, 18, 17, 3, 0, time.UTC)}, // 19:17:04.5+01:00 is 18:17:04.5Z
		{"layout with zone", "t\n01/Aug/1995:00:00:01 -0400\n01/Aug/1995:04:00:03 +0000\n", TraceOptions{TimeFormat: "02/Jan/2006:15:04:05 -0700"},
			[]engine.Time{0, 2 * s1}, time.Date(1995, 8, 1, 4, 0, 1, 0, time.UTC)}, // 00:00:01-0400 is 04:00:01Z
		{"layout without zone is UTC", "t\n2024/11/15 16:57\n2024/11/15 16:59\n", TraceOptions{TimeFormat: "2006/01/02 15:04"},
			[]engine.Time{0, 120 * s1}, time.Date(2024, 11, 15, 16, 57, 0, 0, time.UTC)},
	} {
		tr, all, err := readTrace(t, tc.input, "f.csv", tc.opt)
		if err != nil {
			t.Errorf("%s: error %v", tc.name, err)
			continue
		}
		if diff := cmp.Diff(tc.want, times(all)); diff != "" {
			t.Errorf("%s: times (-want +got):\n%s", tc.name, diff)
		}
		for i, a := range all {
			if a.Line != i+2 || a.Key != 0 || a.Sub != -1 {
				t.Errorf("%s: arrival %d = %+v, want Line %d, Key 0, Sub -1", tc.name, i, a, i+2)
			}
		}
		if got, ok := tr.Origin(); !ok || got != tc.origin.UnixNano() {
			t.Errorf("%s: Origin() = %d, %v, want %d (%v)", tc.name, got, ok, tc.origin.UnixNano(), tc.origin)
		}
		if tr.Count() != len(tc.want) {
			t.Errorf("%s: Count() = %d, want %d", tc.name, tr.Count(), len(tc.want))
		}
	}
}

// TestTraceZeroPointThree is the exactness case on its own: the
// difference of two large decimal times is exactly 300000000 ns (and its
// report in seconds the float64 nearest 0.3), not
// float64(1700000000.3) - float64(1700000000.0).
func TestTraceZeroPointThree(t *testing.T) {
	_, all, err := readTrace(t, "t\n1700000000.0\n1700000000.3\n", "f.csv", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := all[1].T; got != 300*ms || got.Seconds() != 0.3 {
		t.Errorf("T = %d ns (%.20g s), want 300000000 ns (0.3 s)", got, got.Seconds())
	}
	late, early := 1700000000.3, 1700000000.0 // float64 variables, not exact constants
	if naive := late - early; naive == 0.3 {
		t.Errorf("float64 subtraction gave 0.3 too; the test no longer shows the problem")
	}
}

func TestTraceColumns(t *testing.T) {
	input := "\uFEFFid,t,sub\nalice,1,0\nbob,2, 3 \nalice,3,1\n"
	_, all, err := readTrace(t, input, "k.csv", TraceOptions{TimeCol: "T", KeyCol: "1", SubCol: "sub"})
	if err != nil {
		t.Fatal(err)
	}
	hash := func(s string) uint64 {
		h := fnv.New64a()
		h.Write([]byte(s))
		return h.Sum64()
	}
	want := []Arrival{
		{T: 0, Key: 1, Hash: hash("alice"), Sub: 0, Line: 2},
		{T: s1, Key: 2, Hash: hash("bob"), Sub: 3, Line: 3},
		{T: 2 * s1, Key: 1, Hash: hash("alice"), Sub: 1, Line: 4},
	}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	// The BOM is stripped, so the first column is found by name.
	if _, _, err := readTrace(t, input, "k.csv", TraceOptions{TimeCol: "t", KeyCol: "id"}); err != nil {
		t.Errorf("KeyCol \"id\" after a BOM: %v", err)
	}
}

func TestTraceDelimiters(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		opt         TraceOptions
		want        []engine.Time
	}{
		{"x.tsv", "t\tc\n1\ta,b\n2\tc\n", TraceOptions{}, []engine.Time{0, s1}},
		{"x.txt", "t\tc\n1\ta\n2\tc\n", TraceOptions{}, []engine.Time{0, s1}},
		{"x.csv", "t;c\n1;a\n2;c\n", TraceOptions{Delimiter: ';'}, []engine.Time{0, s1}},
		{"x.tsv", "t\tc\n1\tsay \"hi\"\n2\tc\n", TraceOptions{}, []engine.Time{0, s1}}, // literal quotes in TSV
		{"x.csv", "t,c\n1,\"a,\nb\"\n2,c\n", TraceOptions{}, []engine.Time{0, s1}},     // quoted newline in CSV
	} {
		_, all, err := readTrace(t, tc.input, tc.name, tc.opt)
		if err != nil {
			t.Errorf("%s %q: %v", tc.name, tc.input, err)
			continue
		}
		if diff := cmp.Diff(tc.want, times(all)); diff != "" {
			t.Errorf("%s %q: times (-want +got):\n%s", tc.name, tc.input, diff)
		}
	}
	// The line after a quoted newline is numbered by the file.
	_, all, _ := readTrace(t, "t,c\n1,\"a,\nb\"\n2,c\n", "x.csv", TraceOptions{})
	if len(all) == 2 && all[1].Line != 4 {
		t.Errorf("line after a two-line record = %d, want 4", all[1].Line)
	}
}

// TestTraceErrors checks each kind of bad input: the message names the file
// and line and says what was expected, and errors.Is sees the sentinel.
func TestTraceErrors(t *testing.T) {
	for _, tc := range []struct {
		name, input string
		opt         TraceOptions
		want        string // substring of the message, after "arrivals: "
		is          error
	}{
		{"empty", "", TraceOptions{}, "e.csv:1: empty trace: want a header line", ErrEmpty},
		{"blank", "\n\r\n\n", TraceOptions{}, "e.csv:1: empty trace", ErrEmpty},
		{"header only", "t\n", TraceOptions{}, "e.csv:2: no arrivals after the header", ErrNoArrivals},
		{"header only, no newline", "ts,x", TraceOptions{}, "e.csv:2: no arrivals after the header", ErrNoArrivals},
		{"header only, sorted", "t\n", TraceOptions{Sort: true}, "e.csv:2: no arrivals after the header", ErrNoArrivals},
		{"unknown column", "ts,client\n1,a\n", TraceOptions{TimeCol: "time"},
			`e.csv:1: time column "time" is not in the header: the header has 2 columns: "ts", "client"`, ErrColumn},
		{"index out of range", "ts,client\n1,a\n", TraceOptions{KeyCol: "3"},
			`e.csv:1: key column 3 is out of range: columns are numbered from 1 to 2: the header has 2 columns: "ts", "client"`, ErrColumn},
		{"index 0", "ts\n1\n", TraceOptions{SubCol: "0"}, "e.csv:1: sub column 0 is out of range", ErrColumn},
		{"bad number", "t\n1\nabc\n", TraceOptions{},
			`e.csv:3: bad time "abc" in column "t": not a decimal number; want Unix seconds such as 1700000000 or 1700000000.25`, ErrBadField},
		{"empty time", "t,x\n1,a\n,b\n", TraceOptions{}, `e.csv:3: bad time "" in column "t": not a decimal number`, ErrBadField},
		{"too fine", "t\n1.1234567891\n", TraceOptions{},
			`e.csv:2: bad time "1.1234567891" in column "t": 10 fractional digits: at most 9 fit in whole nanoseconds`, ErrBadField},
		{"too fine ms", "t\n1.1234567\n", TraceOptions{TimeFormat: "unix-ms"},
			`e.csv:2: bad time "1.1234567" in column "t": 7 fractional digits: at most 6 fit in whole nanoseconds; want Unix milliseconds`, ErrBadField},
		{"out of range", "t\n9223372037\n", TraceOptions{},
			`e.csv:2: bad time "9223372037" in column "t": outside the range of int64 nanoseconds since 1970`, ErrBadField},
		{"bad datetime", "t\n2024-11-15 16:57:50\n2024-11-15T16:57:51\n", TraceOptions{TimeFormat: "datetime"},
			`e.csv:3: bad time "2024-11-15T16:57:51" in column "t": not of the form YYYY-MM-DD HH:MM:SS[.fffffffff]; want YYYY-MM-DD HH:MM:SS`, ErrBadField},
		{"no such date", "t\n2023-02-29 00:00:00\n", TraceOptions{TimeFormat: "datetime"},
			`e.csv:2: bad time "2023-02-29 00:00:00" in column "t": no such date or time of day`, ErrBadField},
		{"bad rfc3339", "t\n2023-11-16 18:17:03\n", TraceOptions{TimeFormat: "rfc3339"},
			`e.csv:2: bad time "2023-11-16 18:17:03" in column "t": cannot parse " 18:17:03" as "T"; want RFC 3339`, ErrBadField},
		{"bad layout", "t\n01/Aug/1995:00:00:01\n", TraceOptions{TimeFormat: "02/Jan/2006:15:04:05 -0700"},
			`e.csv:2: bad time "01/Aug/1995:00:00:01" in column "t": cannot parse "" as "-0700"; want the Go time layout "02/Jan/2006:15:04:05 -0700"`, ErrBadField},
		{"bad sub", "t,s\n1,0\n2,-1\n", TraceOptions{SubCol: "s"},
			`e.csv:3: bad sub-bucket index "-1" in column "s": want a non-negative integer such as 0 or 3`, ErrBadField},
		{"sub not a number", "t,s\n1,x\n", TraceOptions{SubCol: "2"}, `e.csv:2: bad sub-bucket index "x"`, ErrBadField},
		{"too few fields", "a,b\n1,2\n3\n", TraceOptions{}, "e.csv:3: wrong number of fields: want 2 as in the header, separated by ','", csvErrFieldCount},
		{"too many fields", "a\tb\n1\t2\n3\t4\t5\n", TraceOptions{}, `e.csv:3: wrong number of fields: want 2 as in the header, separated by '\t'`, csvErrFieldCount},
		{"bare quote", "t,x\n1,a\"b\n", TraceOptions{}, "e.csv:2: malformed line: bare \" in non-quoted-field at column 4", csvErrBareQuote},
		{"unknown format", "t\n1\n", TraceOptions{TimeFormat: "unixms"}, `e.csv: unknown time format "unixms": want unix, unix-ms`, ErrOptions},
		{"bad delimiter", "t\n1\n", TraceOptions{Delimiter: '"'}, `e.csv: invalid delimiter '"'`, ErrOptions},
	} {
		_, _, err := readTrace(t, tc.input, "e.csv", tc.opt)
		if err == nil {
			t.Errorf("%s: error = nil, want %q", tc.name, tc.want)
			continue
		}
		if got := err.Error(); !strings.HasPrefix(got, "arrivals: ") || !strings.Contains(got, tc.want) {
			t.Errorf("%s: error =\n\t%q\nwant it to contain\n\t%q", tc.name, got, tc.want)
		}
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: errors.Is(%v, %v) = false, want true", tc.name, err, tc.is)
		}
		var te *TraceError
		if !errors.As(err, &te) || te.File != "e.csv" {
			t.Errorf("%s: error %v is not a *TraceError for e.csv", tc.name, err)
		}
	}
}

// TestTraceOutOfOrder checks the whole message and that a failed Next
// leaves the state unchanged and repeats the error.
func TestTraceOutOfOrder(t *testing.T) {
	input := "ts_unix\tclient\n807256800\ta\n807256805\tb\n807256801\tc\n807256806\td\n"
	tr, err := NewTrace(strings.NewReader(input), "nasa.tsv", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tr.Next()
	tr.Next()
	orig, count := origin(tr), tr.Count()
	_, err = tr.Next()
	want := "arrivals: nasa.tsv:4: time 807256801 is earlier than the previous arrival 807256805 (line 3); " +
		"use --sort to sort the trace or --skip-bad to skip such lines"
	if err == nil || phrased(err) != want {
		t.Fatalf("Next error =\n\t%v\nwant\n\t%v", err, want)
	}
	if !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("errors.Is(err, ErrOutOfOrder) = false, want true")
	}
	var te *TraceError
	if errors.As(err, &te); te.Line != 4 || te.Text != "807256801" {
		t.Errorf("TraceError Line, Text = %d, %q, want 4, %q", te.Line, te.Text, "807256801")
	}
	for i := range 2 {
		if _, err2 := tr.Next(); err2 != err {
			t.Errorf("Next %d after the error = %v, want the same error", i, err2)
		}
	}
	if tr.Count() != count || !origin(tr).Equal(orig) || tr.Skipped() != 0 {
		t.Errorf("after the error Count, Origin, Skipped = %d, %v, %d, want %d, %v, 0",
			tr.Count(), origin(tr), tr.Skipped(), count, orig)
	}
}

func TestTraceSort(t *testing.T) {
	tr, all, err := readTrace(t, "t,id\n3,a\n1,b\n2,c\n1,d\n", "s.csv", TraceOptions{Sort: true, KeyCol: "id"})
	if err != nil {
		t.Fatal(err)
	}
	// Stable: the two arrivals at time 1 keep file order (lines 3, 5).
	wantLines := []int{3, 5, 4, 2}
	var gotLines []int
	for _, a := range all {
		gotLines = append(gotLines, a.Line)
	}
	if diff := cmp.Diff(wantLines, gotLines); diff != "" {
		t.Errorf("lines (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]engine.Time{0, 0, s1, 2 * s1}, times(all)); diff != "" {
		t.Errorf("times (-want +got):\n%s", diff)
	}
	if !origin(tr).Equal(time.Unix(1, 0)) {
		t.Errorf("Origin() = %v, want 1 s after the epoch", origin(tr))
	}
	// A sorted trace knows its origin before the first Next.
	tr, _ = NewTrace(strings.NewReader("t\n3\n1\n"), "s.csv", TraceOptions{Sort: true})
	if ns, ok := tr.Origin(); !ok || ns != 1e9 {
		t.Errorf("sorted trace before Next: Origin() = %d, %v, want 1e9 ns", ns, ok)
	}
	tr, _ = NewTrace(strings.NewReader("t\n3\n1\n"), "s.csv", TraceOptions{})
	if ns, ok := tr.Origin(); ok {
		t.Errorf("streamed trace before Next: Origin() = %d, true, want false", ns)
	}
	// With Sort, bad lines are reported by NewTrace.
	if _, err := NewTrace(strings.NewReader("t\n3\nx\n1\n"), "s.csv", TraceOptions{Sort: true}); err == nil ||
		!strings.Contains(err.Error(), `s.csv:3: bad time "x"`) {
		t.Errorf("NewTrace with Sort on a bad line: error = %v, want s.csv:3: bad time", err)
	}
}

func TestTraceSkipBad(t *testing.T) {
	input := "t\n5\nx\n3\n6\n1,2\n7\n"
	tr, all, err := readTrace(t, input, "b.csv", TraceOptions{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	// Lines 3 (bad time), 4 (3 < 5, out of order) and 6 (two fields) are skipped.
	want := []Arrival{{T: 0, Sub: -1, Line: 2}, {T: s1, Sub: -1, Line: 5}, {T: 2 * s1, Sub: -1, Line: 7}}
	if diff := cmp.Diff(want, all); diff != "" {
		t.Errorf("arrivals (-want +got):\n%s", diff)
	}
	if tr.Skipped() != 3 {
		t.Errorf("Skipped() = %d, want 3", tr.Skipped())
	}
	if err := tr.FirstSkipped(); err == nil || !strings.Contains(err.Error(), `b.csv:3: bad time "x"`) {
		t.Errorf("FirstSkipped() = %v, want the b.csv:3 bad time error", err)
	}

	// Sorted and skipping: out-of-order lines are sorted, bad ones skipped.
	tr, all, err = readTrace(t, input, "b.csv", TraceOptions{SkipBad: true, Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]engine.Time{0, 2 * s1, 3 * s1, 4 * s1}, times(all)); diff != "" || tr.Skipped() != 2 {
		t.Errorf("sorted: Skipped() = %d, want 2; times (-want +got):\n%s", tr.Skipped(), diff)
	}

	// Nothing usable: the end is an error that shows the first bad line.
	_, _, err = readTrace(t, "t\nx\ny\n", "b.csv", TraceOptions{SkipBad: true})
	wantMsg := `b.csv:4: no arrivals after the header: all 2 data lines were skipped as bad; the first, line 2: bad time "x"`
	if err == nil || !strings.Contains(err.Error(), wantMsg) || !errors.Is(err, ErrNoArrivals) {
		t.Errorf("all bad: error = %v, want ErrNoArrivals containing %q", err, wantMsg)
	}

	// No skipped line: FirstSkipped is a nil error, not a typed nil.
	tr, _, _ = readTrace(t, "t\n1\n", "b.csv", TraceOptions{SkipBad: true})
	if err := tr.FirstSkipped(); err != nil {
		t.Errorf("FirstSkipped() = %v, want nil", err)
	}
}

func TestOpen(t *testing.T) {
	tr, err := Open("testdata/small.tsv", TraceOptions{TimeCol: "ts_unix", KeyCol: "client"})
	if err != nil {
		t.Fatal(err)
	}
	var all []Arrival
	for {
		a, err := tr.Next()
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
		all = append(all, a)
	}
	if diff := cmp.Diff([]engine.Time{0, 4 * s1, 4 * s1}, times(all)); diff != "" {
		t.Errorf("times (-want +got):\n%s", diff)
	}
	if all[0].Key != all[2].Key || all[0].Key == all[1].Key {
		t.Errorf("keys = %x, want the first and last equal (host-000001), the middle different", []uint64{all[0].Key, all[1].Key, all[2].Key})
	}
	if err := tr.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if err := tr.Close(); err != nil {
		t.Errorf("second Close() = %v, want nil", err)
	}

	_, err = Open("testdata/no-such-file.csv", TraceOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "arrivals: open testdata/no-such-file.csv") {
		t.Errorf("Open of a missing file: error = %v, want arrivals: open testdata/no-such-file.csv ...", err)
	}
	_, err = Open("testdata/small.tsv", TraceOptions{TimeCol: "time"})
	if err == nil || !strings.Contains(err.Error(), "testdata/small.tsv:1: time column") {
		t.Errorf("Open with a missing column: error = %v", err)
	}
}

// TestTraceLongSpan checks a span beyond 2^53 ns (104 days), which a
// float64 clock could not hold to the nanosecond, and spans at the ends of
// the range: 1677 to 1969 fits, 1677 to 2262 (more than 2^63 ns) does
// not.
func TestTraceLongSpan(t *testing.T) {
	_, all, err := readTrace(t, "t\n0\n123456789.012345678\n", "l.csv", TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := all[1].T, 123456789*s1+12345678; got != want {
		t.Errorf("T = %d ns, want %d ns", got, want)
	}
	_, all, err = readTrace(t, "t\n-9223372036.854775808\n-1\n", "l.csv", TraceOptions{})
	if err != nil || len(all) != 2 || all[1].T != 9223372035854775808 {
		t.Errorf("1677 to 1969: %v, %v; want T = 9223372035854775808 ns", times(all), err)
	}
	for _, opt := range []TraceOptions{{}, {Sort: true}} {
		_, all, err = readTrace(t, "t\n-9223372036\n9223372036\n", "l.csv", opt)
		if !errors.Is(err, ErrBadField) || !strings.Contains(err.Error(), "l.csv:3: time 2262-04-11T23:47:16Z is more than 292 years after the first arrival (line 2, 1677-09-21T00:12:44Z)") || len(all) != 1 {
			t.Errorf("sort %v: 1677 to 2262: %d arrivals, error %v, want one arrival and ErrBadField at line 3", opt.Sort, len(all), err)
		}
	}
}

// An I/O error ends the stream with the file and line.
type failReader struct{ data string }

func (f *failReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, errors.New("disk on fire")
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

func TestTraceReadError(t *testing.T) {
	tr, err := NewTrace(&failReader{data: "t\n1\n2\n"}, "io.csv", TraceOptions{SkipBad: true})
	if err != nil {
		t.Fatal(err)
	}
	tr.Next()
	tr.Next()
	_, err = tr.Next()
	if err == nil || !strings.Contains(err.Error(), "io.csv:4: read error: disk on fire") {
		t.Errorf("error = %v, want io.csv:4: read error: disk on fire (not skipped)", err)
	}
}

// BenchmarkTraceSynthetic reads a generated CSV trace of 10,000 lines
// with millisecond decimal times and a key column.
func BenchmarkTraceSynthetic(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("ts,client\n")
	for i := range 10_000 {
		fmt.Fprintf(&sb, "%d.%03d,client-%d\n", 1_700_000_000+i/1000, i%1000, i%37)
	}
	benchReadTrace(b, sb.String(), "syn.csv", TraceOptions{KeyCol: "client"})
}

// BenchmarkTraceOneColumn reads the performance issue's case: a one-column
// CSV of decimal Unix timestamps with microseconds (100,000 lines about a
// second apart), streamed as `ratesim run --trace` reads it. MB/s is the
// figure the target (>= 150 MB/s on one core) is stated in.
func BenchmarkTraceOneColumn(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("t\n")
	for i := range 100_000 {
		fmt.Fprintf(&sb, "%d.%06d\n", 1_700_000_000+i, (i*7919)%1_000_000)
	}
	benchReadTrace(b, sb.String(), "one.csv", TraceOptions{})
}

// benchReadTrace reads input as the trace name to its end, b.N times,
// reporting MB/s.
func benchReadTrace(b *testing.B, input, name string, opt TraceOptions) {
	b.SetBytes(int64(len(input)))
	b.ReportAllocs()
	for b.Loop() {
		tr, err := NewTrace(strings.NewReader(input), name, opt)
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
		}
	}
}
