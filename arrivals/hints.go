package arrivals

import (
	"fmt"
	"strings"
	"time"
)

// Hints: when a trace does not read with its options, the data is tried
// against other options, and a [*Hint] names what fits. Hints are worked
// out only on the error path, so reading good lines costs nothing more.

// countsHintText is the suggestion for a file of counts read as times.
var countsHintText = "is this a counts file? try " + optRef("Format", FormatCounts) + " " + optRef("Interval", "1s")

// timeHint returns a hint for a time text s that does not parse in f but
// does in another format, or nil.
func timeHint(f *timeFormat, s string) *Hint {
	fits := func(value, what string) *Hint {
		return newHint(ErrTimeFormat, "TimeFormat", value,
			fmt.Sprintf("%q looks like %s: try %s", clipLine(s), what, optRef("TimeFormat", value)))
	}
	if f.kind != kindDatetime {
		if _, err := parseDatetime(s); err == nil {
			return fits("datetime", "a datetime (YYYY-MM-DD HH:MM:SS)")
		}
	}
	if f.kind != kindRFC3339 && len(s) >= 20 {
		if _, err := parseTime(&timeFormat{kind: kindRFC3339}, s); err == nil {
			return fits("rfc3339", "an RFC 3339 time")
		}
	}
	if f.kind != kindDecimal {
		if _, err := parseDecimal(s, 9); err == nil {
			return fits("unix", "Unix seconds")
		}
		return nil
	}
	// A decimal beyond the range in this unit may be in a finer one: Unix
	// milliseconds read as seconds.
	if _, err := parseDecimal(s, f.unit); err != errRange {
		return nil
	}
	for _, u := range []struct {
		unit int
		name string
	}{{6, "unix-ms"}, {3, "unix-us"}, {0, "unix-ns"}} {
		if u.unit >= f.unit {
			continue
		}
		if ns, err := parseDecimal(s, u.unit); err == nil {
			return newHint(ErrTimeFormat, "TimeFormat", u.name,
				fmt.Sprintf("%s is beyond the range in this unit but is %s in %s: try %s",
					clipLine(s), time.Unix(0, ns).UTC().Format(time.DateOnly), u.name, optRef("TimeFormat", u.name)))
		}
	}
	return nil
}

// columnHint returns a hint naming another column of the record rec whose
// field parses in the time format (the time column is wrong), or nil.
func columnHint[T byteText](f *timeFormat, header []string, timeCol int, rec []T) *Hint {
	for j, field := range rec {
		if j == timeCol || j >= len(header) {
			continue
		}
		text := trimSpace(field)
		if _, err := parseTime(f, text); err == nil {
			name := strings.TrimSpace(header[j])
			return newHint(ErrTimeColumn, "TimeCol", name,
				fmt.Sprintf("column %q holds times such as %q: try %s", clipLine(name), clipLine(text), optRef("TimeCol", name)))
		}
	}
	return nil
}

// headerError returns an error when the header line of a CSV or TSV trace
// looks like data: every field is a number, or the time column's field
// parses as a time. Such a file has no header, and reading it would drop
// its first line, or read counts as times. A line of one or two whole
// numbers is suggested to be counts (a count per line, or time,count).
func headerError(name string, line int, f *timeFormat, header []string, timeCol int) *TraceError {
	numbers, whole := true, true
	for _, h := range header {
		h = strings.TrimSpace(h)
		if _, err := parseDecimal(h, 9); err != nil {
			numbers = false
		}
		if h == "" || countDigits(h) != len(h) {
			whole = false
		}
	}
	_, err := parseTime(f, strings.TrimSpace(header[timeCol]))
	if !numbers && err != nil {
		return nil
	}
	text := strings.Join(header, ",")
	if len(text) > 60 {
		text = text[:60] + "..."
	}
	te := &TraceError{File: name, Line: line, Text: text, Err: ErrHeaderLooksLikeData,
		Msg: fmt.Sprintf("the header %q looks like data: a CSV or TSV trace starts with a line naming its columns", text)}
	if whole && len(header) <= 2 {
		te.Hint = newHint(ErrLooksLikeCounts, "Format", FormatCounts, countsHintText)
	}
	return te
}

// orderHint returns the suggestion for an arrival at text earlier than
// the previous one at prevText: counts when both are small whole numbers
// (before 1970-04-27 as Unix seconds, unlikely times of a real trace;
// sorting or skipping would then "succeed" with nonsense), else nil, for
// sorting or skipping.
func orderHint(col, text, prevText string) *Hint {
	small := func(s string) bool { return s != "" && len(s) <= 7 && countDigits(s) == len(s) }
	if !small(text) || !small(prevText) {
		return nil
	}
	return newHint(ErrLooksLikeCounts, "Format", FormatCounts,
		fmt.Sprintf("the times %s and %s are small whole numbers: if column %q holds counts per interval, try %s %s; if they are times, use %s to sort the trace or %s to skip such lines",
			prevText, text, col, optRef("Format", FormatCounts), optRef("Interval", "1s"), optRef("Sort", ""), optRef("SkipBad", "")))
}
