package arrivals

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestColumn(t *testing.T) {
	header := []string{"ts", " Client ", "sub", "TS2", "ts2", "dup", "dup"}
	for _, tc := range []struct {
		spec    string
		want    int
		wantErr string
	}{
		{"", -1, ""},
		{"ts", 0, ""},
		{"1", 0, ""},
		{"7", 6, ""},
		{"Client", 1, ""}, // header names are trimmed
		{"client", 1, ""}, // case-insensitive when unique
		{"TS2", 3, ""},    // exact match beats case-folding
		{"dup", -1, `time column "dup" is ambiguous: the header names 2 columns "dup" (columns 6, 7); give the one meant by its 1-based index, such as 6`},
		{"6", 5, ""}, // a duplicate by its index
		{"Ts2", -1, "more than one column"},
		{"0", -1, "time column 0 is out of range: columns are numbered from 1 to 7"},
		{"8", -1, "time column 8 is out of range"},
		{"99999999999999999999", -1, "out of range"},
		{"time", -1, `time column "time" is not in the header: the header has 7 columns: "ts", " Client ", "sub"`},
	} {
		got, msg := column(tc.spec, "time", header)
		switch {
		case tc.wantErr == "" && (msg != "" || got != tc.want):
			t.Errorf("column(%q) = %d, %q, want %d", tc.spec, got, msg, tc.want)
		case tc.wantErr != "" && !strings.Contains(msg, tc.wantErr):
			t.Errorf("column(%q) message = %q, want one containing %q", tc.spec, msg, tc.wantErr)
		}
	}
}

func TestListColumnsLong(t *testing.T) {
	var h []string
	for i := range 1445 {
		h = append(h, fmt.Sprint(i))
	}
	got := listColumns(h)
	if want := `the header has 1445 columns: "0", "1",`; !strings.HasPrefix(got, want) {
		t.Errorf("listColumns = %q, want prefix %q", got, want)
	}
	if want := `"19", and 1425 more`; !strings.HasSuffix(got, want) {
		t.Errorf("listColumns = %q, want suffix %q", got, want)
	}
}

func TestChooseDelimiter(t *testing.T) {
	for _, tc := range []struct {
		name, header string
		want         rune
	}{
		{"x.tsv", "a,b", '\t'},
		{"X.TSV", "a", '\t'},
		{"x.tab", "a", '\t'},
		{"x.csv", "a,b", ','},
		{"x.csv", "a\tb", '\t'},  // tabs and no commas
		{"x.csv", "a\tb,c", ','}, // commas win over tabs
		{"-", "a", ','},
		{"trace", "a\tb", '\t'},
	} {
		if got := chooseDelimiter(tc.name, []byte(tc.header)); got != tc.want {
			t.Errorf("chooseDelimiter(%q, %q) = %q, want %q", tc.name, tc.header, got, tc.want)
		}
	}
}

func TestPeekHeader(t *testing.T) {
	long := strings.Repeat("x", 100) + "\tb"
	for _, tc := range []struct{ in, want string }{
		{"a\tb\n1\t2\n", "a\tb"},
		{"\r\n\na,b\r\n1,2\n", "a,b\r"},
		{"a\tb", "a\tb"},
		{"", ""},
		{long + "\n1\t2\n", long[:64]}, // longer than the buffer: what fits
	} {
		br := bufio.NewReaderSize(strings.NewReader(tc.in), 64)
		if got := string(peekHeader(br)); got != tc.want {
			t.Errorf("peekHeader(%q) = %q, want %q", tc.in, got, tc.want)
		}
		// Nothing was consumed.
		if rest, _ := io.ReadAll(br); string(rest) != tc.in {
			t.Errorf("after peekHeader the reader holds %q, want %q", rest, tc.in)
		}
	}
}

// TestTraceDuplicateHeader: a trace whose header names two columns alike
// is refused at its header line, whichever columns are picked and however
// (by name, by index, by default), naming the first name repeated and its
// two columns (issue 29: "t,t" was accepted silently, and a column picked
// by index read one of two columns the user could not tell apart). Spaces
// around names do not make them differ; empty names (a trailing
// delimiter) are not compared. A counts file is held to the same rule.
func TestTraceDuplicateHeader(t *testing.T) {
	const in = "t,t,k,k\n1,5,a,b\n2,6,c,d\n"
	const want = `d.csv:1: the header names two columns "t" (columns 1 and 2)`
	for _, opt := range []TraceOptions{{TimeCol: "t"}, {TimeCol: "1", KeyCol: "k"}, {TimeCol: "2", KeyCol: "4"}, {}} {
		if _, _, err := readTrace(t, in, "d.csv", opt); !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), want) {
			t.Errorf("%+v: error = %v, want ErrColumn %q", opt, err, want)
		}
	}
	if _, _, err := readTrace(t, "x,k , k\n1,a,b\n", "s.csv", TraceOptions{}); !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), `s.csv:1: the header names two columns "k" (columns 2 and 3)`) {
		t.Errorf("names differing by spaces: %v", err)
	}
	if _, all, err := readTrace(t, "t,,\n1,,\n2,,\n", "e.csv", TraceOptions{}); err != nil || len(all) != 2 {
		t.Errorf("two empty names: %d arrivals, %v; want 2 and no error", len(all), err)
	}
	if _, _, err := readTrace(t, "time,count,count\n0,1,2\n", "c.csv", TraceOptions{Format: FormatCounts, Interval: s1}); !errors.Is(err, ErrColumn) || !strings.Contains(err.Error(), `c.csv:1: the header names two columns "count" (columns 2 and 3)`) {
		t.Errorf("counts: %v", err)
	}
}

// TestTraceBOMQuotedHeader is the tester's case: a UTF-8 byte order mark
// before a quoted header name. The mark is dropped before the CSV reader
// sees the quote, which it used to report as a bare quote.
func TestTraceBOMQuotedHeader(t *testing.T) {
	for _, tc := range []struct{ name, input string }{
		{"b.csv", "\uFEFF\"t\",x\n0,a\n"},
		{"b.tsv", "\uFEFFt\tx\n0\ta\n"},
		{"b.txt", "\uFEFFt\tx\n0\ta\n"}, // the tab rule sees the header without the mark
	} {
		tr, all, err := readTrace(t, tc.input, tc.name, TraceOptions{TimeCol: "t", KeyCol: "x"})
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		want := []Arrival{{T: 0, Key: 1, Hash: fnvKey("a"), Sub: -1, Line: 2}}
		if diff := cmp.Diff(want, all); diff != "" {
			t.Errorf("%s: arrivals (-want +got):\n%s", tc.name, diff)
		}
		if ns, ok := tr.Origin(); !ok || ns != 0 {
			t.Errorf("%s: Origin() = %d, %v, want the epoch", tc.name, ns, ok)
		}
	}
	// Only a leading mark is dropped: one inside the file is data.
	_, _, err := readTrace(t, "t\n\uFEFF1\n", "b.csv", TraceOptions{})
	if !errors.Is(err, ErrBadField) {
		t.Errorf("mark before a time: error = %v, want ErrBadField", err)
	}
	// A file holding only the mark is empty.
	if _, err := NewTrace(strings.NewReader("\uFEFF"), "b.csv", TraceOptions{}); !errors.Is(err, ErrEmpty) {
		t.Errorf("only a mark: error = %v, want ErrEmpty", err)
	}
}
