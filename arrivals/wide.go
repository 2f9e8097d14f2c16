package arrivals

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/ratesim/ratesim/engine"
)

// wideSource expands the summed counts of a wide trace (FormatWide).
type wideSource struct {
	sums     []int64 // jobs per interval, over the selected rows
	heads    []string
	interval int64
	sp       spread
	i        int // next interval
	line     int // the selected row's line, or 0 for a sum of several
}

func newWide(br *bufio.Reader, name string, opt TraceOptions) (*Trace, error) {
	s := &wideSource{}
	var te *TraceError
	if s.interval, te = countInterval(name, opt); te != nil {
		return nil, te
	}
	if s.sp, te = newSpread(name, opt); te != nil {
		return nil, te
	}
	rr, te := newRecordReader(br, name, opt.Delimiter)
	if te != nil {
		return nil, te
	}
	header, hline, err := rr.read()
	if err == io.EOF {
		return nil, &TraceError{File: name, Line: 1, Msg: "empty trace: want a header line naming the key columns and then one column per interval", Err: ErrEmpty}
	}
	if err != nil {
		return nil, err
	}
	var countCols []int
	isCount := make([]bool, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h != "" && countDigits(h) == len(h) {
			countCols = append(countCols, i)
			isCount[i] = true
			s.heads = append(s.heads, h)
		}
	}
	if len(countCols) == 0 {
		return nil, &TraceError{File: name, Line: hline, Err: ErrColumn,
			Msg: "no interval columns: want columns whose headers are whole numbers (1, 2, ...); " + listColumns(header)}
	}
	conds, te := parseSeries(name, hline, opt.Series, header, isCount)
	if te != nil {
		return nil, te
	}
	t := &Trace{name: name, skipBad: opt.SkipBad, maxBad: opt.MaxBad, keyCol: -1, subCol: -1, src: s, interval: engine.Time(s.interval)}
	s.sums = make([]int64, len(countCols))
	rows, rowLine := 0, 0
	seen := map[string]bool{} // values of the first condition's column, for messages
	for {
		rec, line, err := rr.read()
		if err == io.EOF {
			break
		}
		t.lastLine = rr.last
		if err != nil {
			if err = t.skip(err); err == nil {
				continue
			}
			return nil, err
		}
		if len(conds) > 0 && len(seen) < 20 {
			seen[strings.TrimSpace(rec[conds[0].col])] = true
		}
		if !conds.match(rec) {
			continue
		}
		if err := addRow(t, s, rec, line, countCols, header); err != nil {
			if err = t.skip(err); err == nil {
				continue
			}
			return nil, err
		}
		rows++
		rowLine = line
	}
	if rows == 0 {
		msg := "no data rows"
		if len(conds) > 0 {
			var vals []string
			for v := range seen {
				vals = append(vals, strconv.Quote(v))
			}
			msg = fmt.Sprintf("no row matches series %q; column %q has values such as %s", opt.Series, header[conds[0].col], strings.Join(slices.Sorted(slices.Values(vals)), ", "))
		}
		return nil, &TraceError{File: name, Line: rr.last + 1, Msg: msg, Err: ErrNoArrivals}
	}
	if rows == 1 {
		s.line = rowLine
	}
	if opt.Sort {
		if err := t.readAll(); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// addRow adds a selected row's counts to the sums, or changes nothing and
// returns an error.
func addRow(t *Trace, s *wideSource, rec []string, line int, countCols []int, header []string) error {
	vals := make([]int64, len(countCols))
	for k, col := range countCols {
		f := strings.TrimSpace(rec[col])
		c, ok := parseIndex(f)
		if !ok || c > MaxCount || s.sums[k]+int64(c) > MaxCount {
			return &TraceError{File: t.name, Line: line, Text: f, Err: ErrBadField,
				Msg: fmt.Sprintf("bad count %q in interval column %q: want a whole number of jobs, with sums up to 2^53", clipLine(f), header[col])}
		}
		vals[k] = int64(c)
	}
	for k, v := range vals {
		s.sums[k] += v
	}
	return nil
}

func (s *wideSource) next(t *Trace) (traceEntry, error) {
	for !s.sp.more() {
		if s.i >= len(s.sums) {
			return traceEntry{}, io.EOF
		}
		hi, lo := bits.Mul64(uint64(s.i), uint64(s.interval))
		if hi != 0 || lo > math.MaxInt64-uint64(s.interval) {
			return traceEntry{}, &TraceError{File: t.name, Line: s.line, Err: ErrBadField,
				Msg: fmt.Sprintf("interval column %s ends beyond the int64 nanosecond range", s.heads[s.i])}
		}
		s.sp.reset(int64(lo), s.interval, s.sums[s.i])
		s.i++
	}
	t.text = append(append(t.text[:0], "interval column "...), s.heads[s.i-1]...)
	return traceEntry{ns: s.sp.next(), line: s.line, sub: -1}, nil
}

// seriesCond is one col=value condition of TraceOptions.Series.
type seriesCond struct {
	col   int
	value string
}

type seriesConds []seriesCond

func (cs seriesConds) match(rec []string) bool {
	for _, c := range cs {
		if strings.TrimSpace(rec[c.col]) != c.value {
			return false
		}
	}
	return true
}

// parseSeries parses TraceOptions.Series against the header.
func parseSeries(name string, line int, spec string, header []string, isCount []bool) (seriesConds, *TraceError) {
	spec = strings.TrimSpace(spec)
	if spec == "" || strings.EqualFold(spec, "all") {
		return nil, nil
	}
	var cs seriesConds
	for _, part := range strings.Split(spec, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, &TraceError{File: name, Text: spec, Err: ErrOptions, Option: "Series",
				Msg: fmt.Sprintf("bad series %q: want col=value conditions separated by commas, such as function=func-07, or all", spec)}
		}
		col, msg := column(k, "series", header)
		if msg != "" {
			return nil, &TraceError{File: name, Line: line, Text: k, Msg: msg, Err: ErrColumn, Option: "Series"}
		}
		if isCount[col] {
			return nil, &TraceError{File: name, Line: line, Text: k, Err: ErrColumn, Option: "Series",
				Msg: fmt.Sprintf("series column %q is an interval column: select rows by a key column (one whose header is not a number)", k)}
		}
		cs = append(cs, seriesCond{col: col, value: v})
	}
	return cs, nil
}
