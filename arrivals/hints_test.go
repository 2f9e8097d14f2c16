package arrivals

import (
	"errors"
	"strings"
	"testing"
)

// TestTraceHints: when a trace does not read with its options, the error
// names the line and the value and suggests the option that fits the
// data, as a *Hint that errors.As finds.
func TestTraceHints(t *testing.T) {
	for _, tc := range []struct {
		name, file, input string
		opt               TraceOptions
		want              string // the whole message
		is                error  // the sentinel
		cause             error  // the hint's cause, or nil for no hint
		option, value     string // what the hint suggests
	}{
		{
			// The new-user report: a headerless one-column file of counts.
			name: "counts read as a trace", file: "x.txt", input: "1\n0\n3\n2\n",
			want: `arrivals: x.txt:1: the header "1" looks like data: a CSV or TSV trace starts with a line naming its columns; is this a counts file? try --format counts --interval 1s`,
			is:   ErrHeaderLooksLikeData, cause: ErrLooksLikeCounts, option: "Format", value: "counts",
		},
		{
			// Headerless Unix times would lose their first line.
			name: "headerless times", file: "x.csv", input: "1700000000.5,a\n1700000001,b\n",
			want: `arrivals: x.csv:1: the header "1700000000.5,a" looks like data: a CSV or TSV trace starts with a line naming its columns`,
			is:   ErrHeaderLooksLikeData,
		},
		{
			name: "headerless datetimes", file: "x.csv", input: "2024-11-15 16:57:50,a\n", opt: TraceOptions{TimeFormat: "datetime"},
			want: `arrivals: x.csv:1: the header "2024-11-15 16:57:50,a" looks like data: a CSV or TSV trace starts with a line naming its columns`,
			is:   ErrHeaderLooksLikeData,
		},
		{
			// A header naming the column, and counts under it.
			name: "counts with a header", file: "c.csv", input: "count\n5\n3\n",
			want: `arrivals: c.csv:3: time 3 is earlier than the previous arrival 5 (line 2); the times 5 and 3 are small whole numbers: if column "count" holds counts per interval, try --format counts --interval 1s; if they are times, use --sort to sort the trace or --skip-bad to skip such lines`,
			is:   ErrOutOfOrder, cause: ErrLooksLikeCounts, option: "Format", value: "counts",
		},
		{
			name: "unix times out of order", file: "u.csv", input: "t\n1700000005\n1700000003\n",
			want: `arrivals: u.csv:3: time 1700000003 is earlier than the previous arrival 1700000005 (line 2); use --sort to sort the trace or --skip-bad to skip such lines`,
			is:   ErrOutOfOrder,
		},
		{
			name: "datetime read as unix", file: "d.csv", input: "t\n2024-11-15 16:57:50\n",
			want: `arrivals: d.csv:2: bad time "2024-11-15 16:57:50" in column "t": not a decimal number; want Unix seconds such as 1700000000 or 1700000000.25; "2024-11-15 16:57:50" looks like a datetime (YYYY-MM-DD HH:MM:SS): try --time-format datetime`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "datetime",
		},
		{
			name: "rfc3339 read as unix", file: "r.csv", input: "t\n2023-11-16T18:17:03.5+01:00\n",
			want: `; "2023-11-16T18:17:03.5+01:00" looks like an RFC 3339 time: try --time-format rfc3339`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "rfc3339",
		},
		{
			// 1700000000000 s is beyond 2262; as ms it is 2023-11-14.
			name: "ms read as seconds", file: "m.csv", input: "t\n1700000000000\n",
			want: `; 1700000000000 is beyond the range in this unit but is 2023-11-14 in unix-ms: try --time-format unix-ms`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "unix-ms",
		},
		{
			name: "ns read as ms", file: "n.csv", input: "t\n1700000000000000000\n", opt: TraceOptions{TimeFormat: "unix-ms"},
			want: `is 2023-11-14 in unix-ns: try --time-format unix-ns`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "unix-ns",
		},
		{
			name: "unix read as datetime", file: "x.csv", input: "t\n1700000000\n", opt: TraceOptions{TimeFormat: "datetime"},
			want: `"1700000000" looks like Unix seconds: try --time-format unix`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "unix",
		},
		{
			// The default time column is the first; the times are in "ts".
			name: "wrong time column", file: "w.csv", input: "id,ts\na1,1700000000\n",
			want: `arrivals: w.csv:2: bad time "a1" in column "id": not a decimal number; want Unix seconds such as 1700000000 or 1700000000.25; column "ts" holds times such as "1700000000": try --time-col ts`,
			is:   ErrBadField, cause: ErrTimeColumn, option: "TimeCol", value: "ts",
		},
		{
			name: "wrong time column, quoted", file: "w.tsv", input: "id\ttime of day\na1\t2024-11-15 16:57:50\n", opt: TraceOptions{TimeFormat: "datetime"},
			want: `column "time of day" holds times such as "2024-11-15 16:57:50": try --time-col 'time of day'`,
			is:   ErrBadField, cause: ErrTimeColumn, option: "TimeCol", value: "time of day",
		},
		{
			name: "jsonl datetime", file: "e.jsonl", input: `{"time": "2024-11-15 16:57:50"}` + "\n",
			want: `e.jsonl:1: bad time "2024-11-15 16:57:50" in field "time": not a decimal number; want Unix seconds such as 1700000000 or 1700000000.25; "2024-11-15 16:57:50" looks like a datetime (YYYY-MM-DD HH:MM:SS): try --time-format datetime`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "datetime",
		},
		{
			name: "counts with datetime times", file: "c.csv", input: "t,c\n2024-11-15 16:57:00,3\n", opt: TraceOptions{Format: FormatCounts},
			want: `c.csv:2: bad time "2024-11-15 16:57:00" in column "t"`,
			is:   ErrBadField, cause: ErrTimeFormat, option: "TimeFormat", value: "datetime",
		},
		{
			name: "no hint for junk", file: "j.csv", input: "t,x\nsoon,later\n",
			want: `arrivals: j.csv:2: bad time "soon" in column "t": not a decimal number; want Unix seconds such as 1700000000 or 1700000000.25`,
			is:   ErrBadField,
		},
	} {
		_, _, err := readTrace(t, tc.input, tc.file, tc.opt)
		if err == nil {
			t.Errorf("%s: error = nil, want %q", tc.name, tc.want)
			continue
		}
		if got := phrased(err); !strings.Contains(got, tc.want) || strings.HasPrefix(tc.want, "arrivals: ") && got != tc.want {
			t.Errorf("%s: error =\n\t%s\nwant\n\t%s", tc.name, got, tc.want)
		}
		if !errors.Is(err, tc.is) {
			t.Errorf("%s: errors.Is(%v) = false", tc.name, tc.is)
		}
		var h *Hint
		switch found := errors.As(err, &h); {
		case tc.cause == nil && found:
			t.Errorf("%s: hint %+v, want none", tc.name, h)
		case tc.cause != nil && !found:
			t.Errorf("%s: no hint, want one caused by %v", tc.name, tc.cause)
		case found && (!errors.Is(err, tc.cause) || h.Option != tc.option || h.Value != tc.value):
			t.Errorf("%s: hint %+v, want cause %v, %s = %q", tc.name, h, tc.cause, tc.option, tc.value)
		}
	}
}

// TestHeaderLooksLikeDataSorted: the header check comes before Sort, so a
// counts file is not sorted into nonsense either.
func TestHeaderLooksLikeDataSorted(t *testing.T) {
	for _, opt := range []TraceOptions{{Sort: true}, {SkipBad: true}, {Sort: true, SkipBad: true}} {
		_, _, err := readTrace(t, "1\n0\n3\n2\n", "x.txt", opt)
		if !errors.Is(err, ErrHeaderLooksLikeData) || !errors.Is(err, ErrLooksLikeCounts) {
			t.Errorf("%+v: error = %v, want ErrHeaderLooksLikeData with a counts hint", opt, err)
		}
	}
	// The same file read as counts: 1 job in [0, 1 s), none, 3 in [2, 3 s),
	// 2 in [3, 4 s), evenly spread.
	tr, all, err := readTrace(t, "1\n0\n3\n2\n", "x.txt", TraceOptions{Format: FormatCounts, Interval: s1})
	want := []int64{0, 2e9, 2e9 + 333_333_333, 2e9 + 666_666_666, 3e9, 3.5e9}
	if err != nil || len(all) != len(want) || tr.Interval() != s1 {
		t.Fatalf("as counts: %v, %v, interval %v", times(all), err, tr.Interval())
	}
	for i, a := range all {
		if int64(a.T) != want[i] {
			t.Errorf("as counts: arrival %d at %d ns, want %d", i, a.T, want[i])
		}
	}
}
