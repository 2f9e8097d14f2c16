package arrivals

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/engine"
)

// expandBin returns the arrivals of b one by one, by the definition of
// Bin (independently of the spread's code: big enough products are not
// drawn here, so int64 arithmetic is exact).
func expandBin(b Bin) []Arrival {
	var out []Arrival
	for i := b.First; i < b.Count; i++ {
		out = append(out, Arrival{T: b.Start + engine.Time(i*b.Width/b.Count), Sub: -1, Line: b.Line})
	}
	return out
}

// nextAll returns every arrival of tr by Next, and the error that ended
// them.
func nextAll(tr *Trace) ([]Arrival, error) {
	var all []Arrival
	for {
		x, err := tr.Next()
		if err != nil {
			return all, err
		}
		all = append(all, x)
	}
}

// TestNextBinMatchesNext reads random counts files arrival by arrival
// (Next) and, in a second reader, through CountsAhead, NextBin and Next
// called in turn: the same arrivals, lines, count, skipped lines and
// final error.
func TestNextBinMatchesNext(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		var sb strings.Builder
		withTime := rapid.Bool().Draw(t, "time")
		if rapid.Bool().Draw(t, "header") {
			if withTime {
				sb.WriteString("t,jobs\n")
			} else {
				sb.WriteString("jobs\n")
			}
		}
		at := int64(rapid.IntRange(0, 5).Draw(t, "t0"))
		for range rapid.IntRange(0, 12).Draw(t, "lines") {
			count := fmt.Sprint(rapid.IntRange(0, 40).Draw(t, "count"))
			if rapid.IntRange(0, 9).Draw(t, "bad") == 0 {
				count = "x"
			}
			if withTime {
				fmt.Fprintf(&sb, "%d,%s\n", at, count)
				at += int64(rapid.IntRange(1, 3).Draw(t, "gap"))
			} else {
				sb.WriteString(count + "\n")
			}
		}
		opt := TraceOptions{Format: FormatCounts, Interval: engine.Time(rapid.Int64Range(1, 3e9).Draw(t, "interval")), SkipBad: rapid.Bool().Draw(t, "skip"), MaxBad: -1}
		if withTime {
			opt.Interval = engine.Second // the times are whole seconds
		}
		a, errA := NewTrace(strings.NewReader(sb.String()), "c.csv", opt)
		b, errB := NewTrace(strings.NewReader(sb.String()), "c.csv", opt)
		if (errA == nil) != (errB == nil) {
			t.Fatalf("open: %v vs %v", errA, errB)
		}
		if errA != nil {
			return
		}
		if !b.HasBins() {
			t.Fatal("a counts trace spread evenly has no bins")
		}
		want, endA := nextAll(a)
		b.CountsAhead(rapid.Int64Range(0, 100).Draw(t, "ahead"), rapid.IntRange(0, 5).Draw(t, "aheadLines"))
		var got []Arrival
		var endB error
		for endB == nil {
			if rapid.IntRange(0, 3).Draw(t, "next") == 0 {
				x, err := b.Next()
				if err != nil {
					endB = err
					break
				}
				got = append(got, x)
				continue
			}
			bin, err := b.NextBin()
			if err != nil {
				endB = err
				break
			}
			if bin.Jobs() < 1 {
				t.Fatalf("a bin of %d arrivals", bin.Jobs())
			}
			got = append(got, expandBin(bin)...)
		}
		cmp := func(x Arrival) Arrival { return Arrival{T: x.T, Sub: x.Sub, Line: x.Line} }
		if !slices.EqualFunc(want, got, func(x, y Arrival) bool { return cmp(x) == cmp(y) }) {
			t.Fatalf("arrivals by Next %v, by bins %v", want, got)
		}
		if (endA == io.EOF) != (endB == io.EOF) || endA.Error() != endB.Error() {
			t.Fatalf("end %v, by bins %v", endA, endB)
		}
		if a.Count() != b.Count() || a.Skipped() != b.Skipped() {
			t.Fatalf("count %d, skipped %d; by bins %d, %d", a.Count(), a.Skipped(), b.Count(), b.Skipped())
		}
		oa, okA := a.Origin()
		ob, okB := b.Origin()
		if oa != ob || okA != okB {
			t.Fatalf("origin %d %v; by bins %d %v", oa, okA, ob, okB)
		}
	})
}

// TestCountsAhead: a file of counts 5, 0, 7 read ahead for 6 jobs reaches
// them at the third line (12 >= 6), not within two (5); for 100 jobs the
// file ends first. A bad count stops the look-ahead.
func TestCountsAhead(t *testing.T) {
	open := func(s string) *Trace {
		tr, err := NewTrace(strings.NewReader(s), "c.csv", TraceOptions{Format: FormatCounts})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	if !open("5\n0\n7\n").CountsAhead(6, 10) {
		t.Error("5 + 0 + 7 >= 6 jobs not reached")
	}
	if open("5\n0\n7\n").CountsAhead(100, 10) {
		t.Error("12 jobs reached 100")
	}
	if open("5\n0\n7\n").CountsAhead(6, 2) {
		t.Error("5 + 0 < 6 jobs reached within 2 lines")
	}
	tr := open("5\nx\n7\n")
	if tr.CountsAhead(100, 10) {
		t.Error("a bad count reached 100 jobs")
	}
	if _, err := tr.NextBin(); err != nil {
		t.Fatal(err)
	}
	var te *TraceError
	if _, err := tr.NextBin(); !errors.As(err, &te) || te.Line != 2 {
		t.Errorf("the bad line read ahead: %v, want an error at line 2", err)
	}
}
