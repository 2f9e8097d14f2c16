package drl

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// ReadDelayColumn reads the empirical delay distribution of column col of
// the CSV or TSV file path (tab-separated when its first line holds a tab):
// the first line is the header, col a header name or a column number from
// 1 (with a number, a first line whose cell is a delay is data: a file of
// one measured delay a line needs no header), and every later line's cell
// in that column a delay >= 0, in seconds
// ("0.0021", "32.0") or with a unit ("2.1ms", "850us"); plain seconds are
// rounded to the nearest nanosecond, exactly. The Delay draws one of them
// uniformly at random (each line equally likely) from the stream of its
// component, so a measured column (round trips to a Redis, or the
// exec_time_seconds of a trace) becomes the round-trip or message delay of
// a run. Errors wrap ErrSpec and name path:line and what would fit; an
// empty cell is an error (a missing measurement is not a delay of 0).
func ReadDelayColumn(path, col string) (Delay, error) {
	fail := func(line int, format string, a ...any) (Delay, error) {
		where := path
		if line > 0 {
			where = fmt.Sprintf("%s:%d", path, line)
		}
		return Delay{}, fmt.Errorf("drl: delay trace %s: %s: %w", where, fmt.Sprintf(format, a...), ErrSpec)
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(0, "%v", err)
	}
	defer f.Close()
	// arrivals' table reader: linear in the input, lines bounded to
	// arrivals.MaxLineBytes, a byte order mark skipped, malformed quotes an
	// error naming the line.
	r := arrivals.NewCSVTable(f)
	readErr := func(err error) (Delay, error) {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return fail(pe.Line, "%v", pe.Err)
		}
		if errors.Is(err, arrivals.ErrLineTooLong) {
			return fail(0, "%v: want one delay per line", err)
		}
		return fail(r.Line(), "%v", err)
	}
	rec, err := r.Read()
	if errors.Is(err, io.EOF) {
		return fail(0, "empty file: want one delay per line, after a header line when COL is a name")
	}
	if err != nil {
		return readErr(err)
	}
	hdrLine := r.Line()
	hdr := make([]string, len(rec))
	for i, b := range rec {
		hdr[i] = string(b)
	}
	idx, named, why := delayColumn(hdr, col)
	if why != "" {
		return fail(hdrLine, "%s", why)
	}
	var xs []engine.Time
	if !named {
		// A column given by number whose first cell is a delay is a file
		// without a header: the first line is data.
		if v, err := parseDelayCell(strings.TrimSpace(hdr[idx])); err == nil {
			xs = append(xs, v)
		}
	}
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return readErr(err)
		}
		line := r.Line()
		if idx >= len(rec) {
			return fail(line, "%d fields, no column %d (%s)", len(rec), idx+1, col)
		}
		v, err := parseDelayCell(strings.TrimSpace(string(rec[idx])))
		if err != nil {
			return fail(line, "column %s: %v", col, err)
		}
		xs = append(xs, v)
	}
	if len(xs) == 0 {
		return fail(0, "no values under the header: want one delay per line")
	}
	return Delay{Kind: "trace", Path: path, Col: col, samples: &xs}, nil
}

// delayColumn returns the index of column col (a header name or a number
// from 1) in the first line hdr and whether col is a name, or why the
// line has no such column.
func delayColumn(hdr []string, col string) (idx int, named bool, why string) {
	seen := make(map[string]int, len(hdr))
	for i, h := range hdr {
		h = strings.TrimSpace(h)
		if j, dup := seen[h]; dup && h != "" {
			if _, err := parseDelayCell(h); err != nil { // a header, not a first line of data
				return 0, false, fmt.Sprintf("columns %d and %d are both named %q: want distinct header names", j+1, i+1, h)
			}
		}
		seen[h] = i
	}
	idx, named = headerIndex(hdr, col)
	if idx >= 0 {
		return idx, named, ""
	}
	if k, err := strconv.Atoi(col); err == nil && k >= 1 && k <= len(hdr) {
		return k - 1, false, ""
	}
	return 0, false, fmt.Sprintf("no column %q: want one of the header's names (%s) or a number from 1 to %d", col, strings.Join(hdr, ", "), len(hdr))
}

// headerIndex returns the index of the header name col in hdr, and
// whether it is one; -1 and false when it is not.
func headerIndex(hdr []string, col string) (int, bool) {
	for i, h := range hdr {
		if strings.TrimSpace(h) == col {
			return i, true
		}
	}
	return -1, false
}

// parseDelayCell reads a delay >= 0: a duration with a unit, or plain
// seconds rounded to the nearest nanosecond (halves up), exactly.
func parseDelayCell(s string) (engine.Time, error) {
	if s == "" {
		return 0, fmt.Errorf("empty cell: want a delay >= 0 in seconds (0.002) or with a unit (2ms)")
	}
	if d, err := time.ParseDuration(s); err == nil && strings.ContainsAny(s, "nuµmsh") {
		if d < 0 {
			return 0, fmt.Errorf("delay %q is negative: want >= 0", s)
		}
		return engine.Time(d), nil
	}
	r, err := exact.ParseRat(s)
	if err != nil {
		return 0, fmt.Errorf("%q is not a delay: want seconds (0.002) or a duration with a unit (2ms)", s)
	}
	if r.Sign() < 0 {
		return 0, fmt.Errorf("delay %q is negative: want >= 0", s)
	}
	ns, err := r.Mul(exact.Int(1e9))
	if err == nil {
		ns, err = ns.Add(exact.NewRat(1, 2))
	}
	if err != nil {
		return 0, fmt.Errorf("delay %q s does not fit in nanoseconds", s)
	}
	v := ns.Floor()
	if !v.IsInt64() || v.Int64() >= int64(engine.Forever) {
		return 0, fmt.Errorf("delay %q s is too long", s)
	}
	return engine.Time(v.Int64()), nil
}
