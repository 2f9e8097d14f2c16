package arrivals

import (
	"encoding/csv"
	"errors"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
)

// TestCountsOnePerLine: no header, one count per line, 1-minute
// intervals from the epoch, evenly spread: 3 jobs in [0, 60) at 0, 20,
// 40 s; none in [60, 120); 2 in [120, 180) at 120 and 150 s.
func TestCountsOnePerLine(t *testing.T) {
	tr, all, err := readTrace(t, "3\n0\n2\n", "c.csv", TraceOptions{Format: FormatCounts})
	if err != nil {
		t.Fatal(err)
	}
	if got := times(all); !slices.Equal(got, []engine.Time{0, 20 * s1, 40 * s1, 120 * s1, 150 * s1}) {
		t.Errorf("times %v, want 0 20 40 120 150 s", got)
	}
	if got := lines(all); !slices.Equal(got, []int{1, 1, 1, 3, 3}) {
		t.Errorf("lines %v, want 1 1 1 3 3", got)
	}
	if ns, ok := tr.Origin(); !ok || ns != 0 {
		t.Errorf("origin %d, %v, want the epoch", ns, ok)
	}
	// A header and 10 s intervals; 3 jobs in 10 s: floor(j·10e9/3) ns.
	_, all, err = readTrace(t, "jobs\n1\n3\n", "c.csv", TraceOptions{Format: FormatCounts, Interval: 10 * s1})
	if err != nil {
		t.Fatal(err)
	}
	if got := times(all); !slices.Equal(got, []engine.Time{0, 10 * s1, 13_333_333_333, 16_666_666_666}) {
		t.Errorf("times %v, want 0 10 13.333333333 16.666666666 s", got)
	}
}

// TestCountsTimeCount: time,count lines in datetime across midnight,
// with TSV and a header.
func TestCountsTimeCount(t *testing.T) {
	in := "minute\tcount\n2024-12-31 23:59:00\t2\n2025-01-01 00:00:00\t1\n2025-01-01 00:02:00\t4\n"
	_, all, err := readTrace(t, in, "c.tsv", TraceOptions{Format: FormatCounts, TimeFormat: "datetime"})
	if err != nil {
		t.Fatal(err)
	}
	if got := times(all); !slices.Equal(got, []engine.Time{0, 30 * s1, 60 * s1, 180 * s1, 195 * s1, 210 * s1, 225 * s1}) {
		t.Errorf("times %v", got)
	}
	// Columns named, in another order, with one before them.
	in = "host,n,t\na,2,100\nb,1,160\n"
	_, all, err = readTrace(t, in, "c.csv", TraceOptions{Format: FormatCounts, CountCol: "n", TimeCol: "t"})
	if err != nil || !slices.Equal(times(all), []engine.Time{0, 30 * s1, 60 * s1}) {
		t.Errorf("named columns: %v, times %v; want 0 30 60", err, times(all))
	}
}

// TestCountsRandom: a count spread at random lands in its interval, in
// order, and uniformly (KS over 20000 jobs in one interval).
func TestCountsRandom(t *testing.T) {
	in := "t,c\n0,20000\n60,5\n"
	_, all, err := readTrace(t, in, "c.csv", TraceOptions{Format: FormatCounts, Spread: "random", Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != 20005 {
		t.Fatalf("%d arrivals, want 20005", len(all))
	}
	// Times are from the first arrival; add it back to get offsets from 0.
	tr, err := NewTrace(strings.NewReader(in), "c.csv", TraceOptions{Format: FormatCounts, Spread: "random", Src: rand.NewPCG(1, 1)})
	if err != nil {
		t.Fatal(err)
	}
	tr.Next()
	ns, _ := tr.Origin()
	first := engine.Time(ns)
	var pos []float64
	for i, a := range all {
		x := (a.T + first).Seconds()
		if i < 20000 {
			if x < 0 || x >= 60 {
				t.Fatalf("arrival %d at %v s, outside [0, 60)", i, x)
			}
			pos = append(pos, x)
		} else if x < 60 || x >= 120 {
			t.Fatalf("arrival %d at %v s, outside [60, 120)", i, x)
		}
	}
	checkKS(t, "random spread", pos, distuv.Uniform{Min: 0, Max: 60}.Quantile)
	if _, err := NewTrace(strings.NewReader(in), "c.csv", TraceOptions{Format: FormatCounts, Spread: "random"}); !errors.Is(err, ErrOptions) {
		t.Errorf("random spread without a source: error %v, want ErrOptions", err)
	}
}

func TestCountsBadLines(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"x", `bad count "x" in column "2"`},
		{"-1", `bad count "-1"`},
		{"1.5", `bad count "1.5"`},
		{"9007199254740993", "from 0 to 2^53"},
	} {
		in := "0,1\n60,1\n120," + tc.line + "\n180,1\n"
		_, all, err := readTrace(t, in, "c.csv", TraceOptions{Format: FormatCounts})
		var te *TraceError
		if !errors.As(err, &te) || te.Line != 3 || !errors.Is(err, ErrBadField) || !strings.HasPrefix(err.Error(), "arrivals: c.csv:3: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want c.csv:3 and %q", tc.line, err, tc.want)
		}
		if len(all) != 2 {
			t.Errorf("%q: %d arrivals before the error", tc.line, len(all))
		}
		tr, all, err := readTrace(t, in, "c.csv", TraceOptions{Format: FormatCounts, SkipBad: true})
		if err != nil || len(all) != 3 || tr.Skipped() != 1 {
			t.Errorf("%q with SkipBad: %v, %d arrivals, %d skipped", tc.line, err, len(all), tr.Skipped())
		}
	}
	// An interval that starts before the previous one's arrivals.
	_, _, err := readTrace(t, "0,2\n20,1\n", "c.csv", TraceOptions{Format: FormatCounts})
	if !errors.Is(err, ErrOutOfOrder) {
		t.Errorf("overlapping intervals: error %v, want ErrOutOfOrder", err)
	}
	_, all, err := readTrace(t, "0,2\n20,1\n", "c.csv", TraceOptions{Format: FormatCounts, Sort: true})
	if err != nil || !slices.Equal(times(all), []engine.Time{0, 20 * s1, 30 * s1}) {
		t.Errorf("sorted: %v, %v; want 0 20 30", err, times(all))
	}
	_, _, err = readTrace(t, "0,1\n60,1,2\n", "c.csv", TraceOptions{Format: FormatCounts})
	if err == nil || !strings.Contains(err.Error(), "c.csv:2: wrong number of fields") {
		t.Errorf("wrong field count: error %v", err)
	}
	for _, opt := range []TraceOptions{{CountCol: "n"}, {CountCol: "3"}, {TimeCol: "2"}} {
		opt.Format = FormatCounts
		if _, err := NewTrace(strings.NewReader("t,c\n0,1\n"), "c.csv", opt); !errors.Is(err, ErrColumn) {
			t.Errorf("%+v: error %v, want ErrColumn", opt, err)
		}
	}
	for _, opt := range []TraceOptions{{KeyCol: "k"}, {Series: "a=b"}, {Interval: -s1}, {Spread: "gauss"}} {
		opt.Format = FormatCounts
		if _, err := NewTrace(strings.NewReader("t,c\n0,1\n"), "c.csv", opt); !errors.Is(err, ErrOptions) {
			t.Errorf("%+v: error %v, want ErrOptions", opt, err)
		}
	}
	if _, err := NewTrace(strings.NewReader(""), "c.csv", TraceOptions{Format: FormatCounts}); !errors.Is(err, ErrEmpty) {
		t.Errorf("empty: error %v, want ErrEmpty", err)
	}
}

const wideSample = `invitro_sample,owner,app,function,trigger,1,2,3
traces/10,owner-01,app-01,func-01,http,2,0,1
traces/5,owner-02,app-02,func-02,queue,1,1,0
traces/5,owner-02,app-03,func-03,queue,0,0,x
`

// TestWide reads a hand-written wide trace in the Azure Functions layout:
// one row, several rows summed, and the bad row.
func TestWide(t *testing.T) {
	for _, tc := range []struct {
		series string
		skip   bool
		times  []engine.Time
		line   int
	}{
		// func-01: 2 jobs in [0, 60) at 0, 30; 1 in [120, 180) at 120 s.
		{"function=func-01", false, []engine.Time{0, 30 * s1, 120 * s1}, 2},
		{" app = app-02 , owner=owner-02", false, []engine.Time{0, 60 * s1}, 3},
		// Rows 2 and 3 summed (row 4 skipped): 3, 1, 1.
		{"all", true, []engine.Time{0, 20 * s1, 40 * s1, 60 * s1, 120 * s1}, 0},
		{"trigger=queue", true, []engine.Time{0, 60 * s1}, 3},
	} {
		tr, all, err := readTrace(t, wideSample, "f.csv", TraceOptions{Format: FormatWide, Series: tc.series, SkipBad: tc.skip})
		if err != nil {
			t.Errorf("series %q: %v", tc.series, err)
			continue
		}
		if !slices.Equal(times(all), tc.times) || all[0].Line != tc.line {
			t.Errorf("series %q: times %v, line %d; want %v, %d", tc.series, times(all), all[0].Line, tc.times, tc.line)
		}
		if tc.skip && tr.Skipped() != 1 {
			t.Errorf("series %q: %d skipped, want 1", tc.series, tr.Skipped())
		}
	}
	for _, tc := range []struct {
		series string
		is     error
		want   string
	}{
		{"all", ErrBadField, `f.csv:4: bad count "x" in interval column "3"`},
		{"function=func-03", ErrBadField, "f.csv:4:"},
		{"function=func-99", ErrNoArrivals, `no row matches series "function=func-99"; column "function" has values such as "func-01", "func-02", "func-03"`},
		{"nosuch=1", ErrColumn, `series column "nosuch" is not in the header`},
		{"6=1", ErrColumn, "is an interval column"}, // column 6 is the interval "1"
		{"function", ErrOptions, "want col=value"},
	} {
		_, _, err := readTrace(t, wideSample, "f.csv", TraceOptions{Format: FormatWide, Series: tc.series})
		if !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("series %q: error %v, want %v and %q", tc.series, err, tc.is, tc.want)
		}
	}
	if _, _, err := readTrace(t, "a,b\nx,y\n", "f.csv", TraceOptions{Format: FormatWide}); !errors.Is(err, ErrColumn) {
		t.Errorf("no interval columns: error %v, want ErrColumn", err)
	}
}

// TestWideAzureFunctions reads the real wide trace: func-08 alone has
// 30,527 invocations (PROVENANCE.md), and the sum of all rows equals the
// sum of the CSV's count cells read with encoding/csv.
func TestWideAzureFunctions(t *testing.T) {
	path := sharedTrace(t, "azure-functions-2019/azure_functions_2019_invocations_per_minute_sample.csv")
	all := readAllArrivals(t, path, TraceOptions{Format: FormatWide, Series: "function=func-08"})
	if len(all) != 30_527 {
		t.Errorf("func-08: %d arrivals, PROVENANCE.md says 30527", len(all))
	}
	if testing.Short() {
		return // the sum of all rows is 38 million arrivals, about 1 s
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var total int64
	for _, r := range recs[1:] {
		for _, c := range r[5:] {
			n, _ := strconv.ParseInt(c, 10, 64)
			total += n
		}
	}
	tr, err := Open(path, TraceOptions{Format: FormatWide})
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var n int64
	for {
		if _, err := tr.Next(); err != nil {
			break
		}
		n++
	}
	if n != total {
		t.Errorf("all rows: %d arrivals, want %d", n, total)
	}
}

// TestCountsInterval: Trace.Interval reports the interval a count trace
// is read with, the 1-minute default when TraceOptions.Interval is 0, and
// 0 for formats that have none. A headerless one-column file (.txt, CRLF,
// blank lines) reads as counts: 2 jobs in [0, 1 s), 1 in [1 s, 2 s).
func TestCountsInterval(t *testing.T) {
	for _, tc := range []struct {
		input string
		opt   TraceOptions
		want  engine.Time
	}{
		{"3\n", TraceOptions{Format: FormatCounts}, 60 * s1},
		{"3\n", TraceOptions{Format: FormatCounts, Interval: 250 * ms}, 250 * ms},
		{"k,1\na,2\n", TraceOptions{Format: FormatWide, Interval: 5 * s1}, 5 * s1},
		{"t\n1\n", TraceOptions{}, 0},
	} {
		tr, err := NewTrace(strings.NewReader(tc.input), "c.txt", tc.opt)
		if err != nil {
			t.Fatal(err)
		}
		if got := tr.Interval(); got != tc.want {
			t.Errorf("%+v: Interval() = %v s, want %v s", tc.opt, got, tc.want)
		}
	}
	tr, all, err := readTrace(t, "2\r\n\r\n1\r\n", "c.txt", TraceOptions{Format: FormatCounts, Interval: s1})
	if err != nil || !slices.Equal(times(all), []engine.Time{0, 500 * ms, s1}) || !slices.Equal(lines(all), []int{1, 1, 3}) || tr.Interval() != s1 {
		t.Errorf("headerless .txt: %v, lines %v, %v; want 0 0.5 1 s on lines 1 1 3", times(all), lines(all), err)
	}
}
