package arrivals

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestMaxBadDefault: with SkipBad and the default MaxBad, reading fails
// as soon as the skipped lines exceed 10 + 1% of the lines read. Here the
// header is line 1, a good time line 2 and bad lines from line 3 on: the
// 11th bad line, line 13, is one too many (10 + 13/100 = 10).
func TestMaxBadDefault(t *testing.T) {
	in := "t\n1\n" + strings.Repeat("x\n", 20)
	for _, sort := range []bool{false, true} {
		tr, all, err := readTrace(t, in, "b.csv", TraceOptions{SkipBad: true, Sort: sort})
		want := `arrivals: b.csv:13: 11 bad lines skipped, more than 10 + 1% of the 13 lines read: the options likely do not fit the file (raise --max-bad if they do); the first bad line, 3: bad time "x" in column "t"`
		if !errors.Is(err, ErrTooManyBad) || !strings.HasPrefix(phrased(err), want) {
			t.Errorf("sort %v: error =\n\t%v\nwant one starting\n\t%s", sort, err, want)
		}
		if !sort && (len(all) != 1 || tr.Skipped() != 11) {
			t.Errorf("sort %v: %d arrivals, %d skipped; want 1 and 11", sort, len(all), tr.Skipped())
		}
	}
	// 50 bad lines among 10000, evenly spread: at most 1 in 200 at any
	// point, below 10 + 1%.
	var sb strings.Builder
	sb.WriteString("t\n")
	for i := range 10_000 {
		if i%200 == 199 {
			sb.WriteString("bad\n")
		} else {
			fmt.Fprintf(&sb, "%d\n", 1_700_000_000+i)
		}
	}
	tr, all, err := readTrace(t, sb.String(), "b.csv", TraceOptions{SkipBad: true})
	if err != nil || len(all) != 9950 || tr.Skipped() != 50 {
		t.Errorf("0.5%% bad lines: %d arrivals, %d skipped, %v; want 9950, 50, nil", len(all), tr.Skipped(), err)
	}
}

// TestMaxBadCounts is the new-user report with a header naming the
// column: counts read as times with --skip-bad used to keep the few
// lines that happen to go up and skip the rest. Counts 0..9 in a
// repeating pattern go up at most nine lines in a row, so from the first
// 9 the greedy reading skips most lines, and the run fails, with the
// counts hint of the first skipped line.
func TestMaxBadCounts(t *testing.T) {
	var sb strings.Builder
	sb.WriteString("jobs\n")
	for i := range 1000 {
		fmt.Fprintf(&sb, "%d\n", (i*7)%10)
	}
	_, _, err := readTrace(t, sb.String(), "c.txt", TraceOptions{SkipBad: true})
	var h *Hint
	if !errors.Is(err, ErrTooManyBad) || !errors.As(err, &h) || h.Value != FormatCounts ||
		!strings.Contains(phrased(err), "try --format counts --interval 1s") {
		t.Errorf("error = %v, want ErrTooManyBad with the counts hint", err)
	}
}

// TestMaxBadOption: MaxBad > 0 is a count of bad lines; a negative MaxBad
// sets no bound. The wide format counts bad rows the same way.
func TestMaxBadOption(t *testing.T) {
	in := "t\n1\n" + strings.Repeat("x\n", 20) + "2\n"
	_, _, err := readTrace(t, in, "b.csv", TraceOptions{SkipBad: true, MaxBad: 5})
	if !errors.Is(err, ErrTooManyBad) || !strings.Contains(err.Error(), "b.csv:8: 6 bad lines skipped, more than MaxBad = 5") {
		t.Errorf("MaxBad 5: error = %v, want ErrTooManyBad at the 6th bad line", err)
	}
	tr, all, err := readTrace(t, in, "b.csv", TraceOptions{SkipBad: true, MaxBad: -1})
	if err != nil || len(all) != 2 || tr.Skipped() != 20 {
		t.Errorf("MaxBad -1: %d arrivals, %d skipped, %v; want 2, 20, nil", len(all), tr.Skipped(), err)
	}
	tr, all, err = readTrace(t, in, "b.csv", TraceOptions{SkipBad: true, MaxBad: 20})
	if err != nil || len(all) != 2 || tr.Skipped() != 20 {
		t.Errorf("MaxBad 20: %d arrivals, %d skipped, %v; want 2, 20, nil", len(all), tr.Skipped(), err)
	}
	wide := "k,1,2\n" + strings.Repeat("a,x,1\n", 3) + "b,1,1\n"
	if _, _, err := readTrace(t, wide, "w.csv", TraceOptions{Format: FormatWide, SkipBad: true, MaxBad: 2}); !errors.Is(err, ErrTooManyBad) {
		t.Errorf("wide, MaxBad 2: error = %v, want ErrTooManyBad", err)
	}
	// Without SkipBad, MaxBad changes nothing: the first bad line fails.
	if _, _, err := readTrace(t, in, "b.csv", TraceOptions{MaxBad: 100}); !errors.Is(err, ErrBadField) {
		t.Errorf("no SkipBad: error = %v, want ErrBadField", err)
	}
}
