package arrivals

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ratesim/ratesim/engine"
)

// TraceOptions says how to read a trace file. The zero value reads a CSV
// file whose first column holds Unix seconds, with no keys or sub-buckets,
// and fails on the first bad or out-of-order line.
//
// A column is named by its header text (matched exactly after trimming
// spaces, else case-insensitively if that picks one column) or by its
// 1-based index written in digits ("1" is the first column). A name made
// only of digits is therefore read as an index. A name that more than one
// column of the header has is an error ([ErrColumn]) that lists those
// columns: name the one meant by its index.
type TraceOptions struct {
	// Format is the file format:
	//
	//   - [FormatCSV] ("csv"): CSV or TSV with a header line, one arrival
	//     per line (the fields below);
	//   - [FormatCLF] ("clf"): Common or Combined Log Format access logs
	//     (Apache, nginx);
	//   - [FormatJSONL] ("jsonl"): JSON lines, one object per arrival;
	//   - [FormatCounts] ("counts"): per-interval counts in long form, one
	//     interval per line;
	//   - [FormatWide] ("wide"): per-interval counts in wide form, one
	//     series per row and one column per interval;
	//   - "" chooses by the name's extension, after any .gz: .log and .clf
	//     are clf, .jsonl and .ndjson are jsonl, anything else csv.
	//
	// Input that starts with the gzip magic bytes is decompressed on the
	// fly, whatever its name.
	Format string

	// TimeCol is the column of arrival times; "" means the first column.
	// For jsonl it is the field name ("" means "time"); for counts, the
	// column of interval start times ("" means the first column if the
	// file has two or more, else none).
	TimeCol string

	// TimeFormat is how the time column is written:
	//
	//   - "unix" (or ""): Unix seconds, an integer or decimal, possibly
	//     negative (1700000000, 1700000000.25, -1.5);
	//   - "unix-ms", "unix-us", "unix-ns": the same in milliseconds,
	//     microseconds or nanoseconds since the epoch;
	//   - "datetime": YYYY-MM-DD HH:MM:SS with an optional fraction .f of
	//     1 to 9 digits (2023-11-16 18:17:03.9799600), read as UTC;
	//   - "rfc3339": RFC 3339 with optional fractional seconds
	//     (2023-11-16T18:17:03.98Z, 2023-11-16T18:17:03+01:00);
	//   - anything else is a Go time layout for time.Parse, such as
	//     "02/Jan/2006:15:04:05 -0700"; a time without a zone is read as UTC,
	//     and a zone abbreviation other than UTC is read as offset 0 (as
	//     time.Parse does), so prefer numeric offsets.
	//
	// Decimal texts are converted exactly to integer nanoseconds; a fraction
	// finer than 1 ns (more than 9 fractional digits for seconds, 6 for ms,
	// 3 for µs, 0 for ns) is an error, as is an instant outside int64
	// nanoseconds since 1970 (1677-09-21 to 2262-04-11 UTC). A Go layout
	// accepts what time.Parse accepts, which truncates fractions beyond 9
	// digits.
	TimeFormat string

	// KeyCol is an optional column of job keys. Each arrival's Key is the
	// 64-bit FNV-1a hash of the field's bytes, untrimmed. "" means no keys
	// (Key = 0). For jsonl it is a field name (a string field's key is its
	// unescaped text); for clf, one of host, ident or user.
	KeyCol string

	// SubCol is an optional column of 0-based sub-bucket indexes (a
	// non-negative decimal integer, spaces trimmed), stored in Arrival.Sub.
	// "" means none (Sub = -1).
	SubCol string

	// Delimiter is the field separator. 0 means: a tab for names ending in
	// .tsv or .tab (any case), else a tab if the header line has tabs and no
	// commas, else a comma.
	//
	// With a tab the file is TSV as IANA text/tab-separated-values defines
	// it: each line is one record, split at every tab, and quotes are
	// ordinary characters anywhere in a field, so a field holds no tab or
	// line break. With any other delimiter the file is CSV as
	// encoding/csv reads it (RFC 4180): a field may be quoted, a quoted
	// field may span lines, and a quote inside an unquoted field is an
	// error.
	//
	// In both, a UTF-8 byte order mark at the start of the file is
	// dropped, a CR before the LF that ends a line is dropped, and an empty
	// line (nothing before its line end) is skipped. Every line counts, so
	// line numbers are those of the file.
	Delimiter rune

	// Sort reads the whole trace into memory and sorts it by time, stably,
	// so equal times keep file order. Without it the trace is streamed and
	// a line earlier than the previous arrival is an error (or skipped,
	// with SkipBad). With Sort, every bad line is reported by NewTrace
	// rather than by Next.
	//
	// The sorted trace holds 32 bytes per arrival. The peak resident
	// memory of the process, measured, is about 33 bytes per arrival for
	// TSV (164 MB for 5 million lines) and 40 to 65 for CSV (208 MB for 5
	// million, 63 MB for 1 million), whose reader allocates a string per
	// line for the garbage collector to free; BenchmarkTraceSort reports
	// it. Sorting costs O(n log n) time for n lines.
	Sort bool

	// SkipBad skips bad lines (unparsable, wrong field count, or out of
	// order) instead of failing; [Trace.Skipped] counts them and
	// [Trace.FirstSkipped] describes the first. MaxBad bounds how many.
	SkipBad bool

	// MaxBad bounds the bad lines SkipBad skips, so that a file that does
	// not fit the options (most of its lines bad) fails instead of
	// "succeeding" with the few lines that happen to parse. Reading fails
	// with [ErrTooManyBad], naming the first bad line, as soon as the
	// skipped lines number
	//
	//   - more than 10 + 1% of the lines read so far (the header, blank
	//     lines and bad lines included), when MaxBad is 0 (the default);
	//   - more than MaxBad, when MaxBad > 0.
	//
	// A negative MaxBad sets no bound. The default fails a file whose
	// first 11 data lines are bad even if the rest is good; raise MaxBad
	// for such a file.
	MaxBad int

	// The options below apply to the count formats (counts and wide).

	// Interval is the length of one counting interval, > 0; 0 means 1
	// minute. [Trace.Interval] reports the interval used.
	Interval engine.Time
	// Spread is how the c jobs counted in an interval [t, t+Δ) become
	// arrivals: "even" (or "") at t + j·Δ/c for j = 0..c-1, rounded down
	// to the nanosecond; "random" at the sorted times of c independent
	// uniform draws on [t, t+Δ), from Src.
	Spread string
	// Src is the random source of Spread "random".
	Src rand.Source
	// CountCol is the column of counts in long form; "" means the last
	// column.
	CountCol string
	// Series selects the rows of a wide trace whose counts are summed:
	// "col=value" conditions separated by commas, all of which a row must
	// meet (as "function=func-07" or "app=app-10,trigger=http"); "" or
	// "all" sums every row.
	Series string
}

// column resolves a column spec against the header. role ("time", "key",
// "sub") names the option in messages. It returns -1 for an empty optional
// spec.
func column(spec, role string, header []string) (int, string) {
	spec = strings.TrimSpace(spec)
	if spec == "" {
		return -1, ""
	}
	if countDigits(spec) == len(spec) {
		i, err := strconv.Atoi(spec)
		if err != nil || i < 1 || i > len(header) {
			return -1, fmt.Sprintf("%s column %s is out of range: columns are numbered from 1 to %d: %s",
				role, spec, len(header), listColumns(header))
		}
		return i - 1, ""
	}
	var exact []int
	for i, h := range header {
		if strings.TrimSpace(h) == spec {
			exact = append(exact, i)
		}
	}
	switch len(exact) {
	case 0:
	case 1:
		return exact[0], ""
	default:
		idx := make([]string, len(exact))
		for k, i := range exact {
			idx[k] = strconv.Itoa(i + 1)
		}
		return -1, fmt.Sprintf("%s column %q is ambiguous: the header names %d columns %q (columns %s); give the one meant by its 1-based index, such as %s",
			role, spec, len(exact), spec, strings.Join(idx, ", "), idx[0])
	}
	found := -1
	for i, h := range header {
		if strings.EqualFold(strings.TrimSpace(h), spec) {
			if found >= 0 {
				return -1, fmt.Sprintf("%s column %q matches more than one column ignoring case: %s",
					role, spec, listColumns(header))
			}
			found = i
		}
	}
	if found < 0 {
		return -1, fmt.Sprintf("%s column %q is not in the header: %s", role, spec, listColumns(header))
	}
	return found, ""
}

// duplicateColumn returns the message refusing a header that names two
// columns alike (ignoring spaces around the names; empty names, as a
// trailing delimiter makes, are not compared), or "" when every name is
// distinct: a column named twice cannot be chosen by its name, and a
// trace whose columns are confused is read wrong silently.
func duplicateColumn(header []string) string {
	seen := make(map[string]int, len(header))
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if j, ok := seen[h]; ok {
			return fmt.Sprintf("the header names two columns %q (columns %d and %d): want distinct column names (rename one)", clipLine(h), j+1, i+1)
		}
		seen[h] = i
	}
	return ""
}

// listColumns describes the header for error messages, naming at most 20
// columns.
func listColumns(header []string) string {
	const most = 20
	var b strings.Builder
	fmt.Fprintf(&b, "the header has %d columns: ", len(header))
	for i, h := range header {
		if i == most {
			fmt.Fprintf(&b, ", and %d more", len(header)-most)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%q", h)
	}
	return b.String()
}

// validDelimiter reports whether encoding/csv accepts r as a separator.
func validDelimiter(r rune) bool {
	return r != 0 && r != '"' && r != '\r' && r != '\n' && utf8.ValidRune(r) && r != utf8.RuneError
}

// chooseDelimiter applies the Delimiter rule for a zero option to the
// trace's name and header line.
func chooseDelimiter(name string, header []byte) rune {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".tsv", ".tab":
		return '\t'
	}
	if bytes.IndexByte(header, '\t') >= 0 && bytes.IndexByte(header, ',') < 0 {
		return '\t'
	}
	return ','
}

// skipBOM consumes a UTF-8 byte order mark at the start of br, so that
// neither the delimiter rule nor the record reader sees it.
func skipBOM(br *bufio.Reader) {
	if b, _ := br.Peek(len(utf8BOM)); string(b) == utf8BOM {
		br.Discard(len(utf8BOM))
	}
}

// utf8BOM is U+FEFF encoded in UTF-8, as some tools write it at the start
// of a text file.
const utf8BOM = "\uFEFF"

// peekHeader returns the first non-blank line of br (at most its buffer
// size) without consuming it.
func peekHeader(br *bufio.Reader) []byte {
	for {
		b, _ := br.Peek(br.Buffered())
		line := bytes.TrimLeft(b, "\r\n")
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			return line[:i]
		}
		if len(b) == br.Size() {
			return line
		}
		if _, err := br.Peek(len(b) + 1); err != nil {
			b, _ = br.Peek(br.Buffered())
			return bytes.TrimLeft(b, "\r\n")
		}
	}
}
