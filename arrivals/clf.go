package arrivals

import (
	"bufio"
	"bytes"
	"fmt"
	"strings"
)

// clfFields are the fields of a CLF line that KeyCol may name, in order.
var clfFields = []string{"host", "ident", "user"}

// clfSource reads a Common or Combined Log Format access log (FormatCLF).
type clfSource struct {
	lr       lineReader
	keyField int // 1-based index in clfFields, or 0 for no key
}

func newCLF(br *bufio.Reader, name string, opt TraceOptions) (*Trace, error) {
	s := &clfSource{lr: lineReader{br: br}}
	if opt.KeyCol != "" {
		k := strings.ToLower(strings.TrimSpace(opt.KeyCol))
		for i, f := range clfFields {
			if k == f {
				s.keyField = i + 1
			}
		}
		if s.keyField == 0 {
			return nil, &TraceError{File: name, Text: opt.KeyCol, Err: ErrColumn, Option: "KeyCol",
				Msg: fmt.Sprintf("key field %q is not a CLF field: want host, ident or user", opt.KeyCol)}
		}
	}
	return newSourceTrace(name, opt, s)
}

// clfExample is a valid line, for messages.
const clfExample = `host - - [01/Jul/1995:00:00:01 -0400] "GET / HTTP/1.0" 200 1839`

func (s *clfSource) next(t *Trace) (traceEntry, error) {
	line, e, err := s.lr.entry(t)
	if err != nil {
		return e, err
	}
	n := e.line
	open := bytes.IndexByte(line, '[')
	if open < 0 {
		return e, lineError(t, n, line, fmt.Sprintf("no [timestamp] in %q: want a Common Log Format line such as %s", clipLine(line), clfExample))
	}
	end := bytes.IndexByte(line[open:], ']')
	if end < 0 {
		return e, lineError(t, n, line, fmt.Sprintf("unterminated [timestamp in %q: want a Common Log Format line such as %s", clipLine(line), clfExample))
	}
	ts := line[open+1 : open+end]
	t.text = append(t.text[:0], ts...)
	if e.ns, err = parseCLFTime(ts); err != nil {
		return e, lineError(t, n, ts, fmt.Sprintf("bad timestamp [%s]: %v; want dd/Mon/yyyy:HH:MM:SS ±hhmm such as [01/Jul/1995:00:00:01 -0400]", ts, err))
	}
	if s.keyField > 0 {
		e.key, _ = keyID(&t.keys, clfField(line[:open], s.keyField))
	}
	return e, nil
}

// clipLine shortens a line for a message.
func clipLine[T byteText](b T) string {
	const most = 120
	if len(b) > most {
		return string(b[:most]) + "..."
	}
	return string(b)
}

// field returns the i-th (1-based) space-separated field of b, or nothing.
func clfField(b []byte, i int) []byte {
	for k := 1; ; k++ {
		b = bytes.TrimLeft(b, " \t")
		if len(b) == 0 {
			return nil
		}
		j := bytes.IndexAny(b, " \t")
		if j < 0 {
			j = len(b)
		}
		if k == i {
			return b[:j]
		}
		b = b[j:]
	}
}

// monthNames are the English month abbreviations of CLF timestamps.
const monthNames = "janfebmaraprmayjunjulaugsepoctnovdec"

// parseCLFTime parses dd/Mon/yyyy:HH:MM:SS ±hhmm into nanoseconds since
// the Unix epoch (UTC). It does not allocate unless the text is bad.
func parseCLFTime(b []byte) (int64, error) {
	if len(b) != 26 || b[2] != '/' || b[6] != '/' || b[11] != ':' || b[14] != ':' || b[17] != ':' || b[20] != ' ' || (b[21] != '+' && b[21] != '-') {
		return 0, fmt.Errorf("not of the form dd/Mon/yyyy:HH:MM:SS ±hhmm")
	}
	num := func(i, n int) int64 {
		if countDigits(b[i:i+n]) != n {
			return -1
		}
		v := int64(0)
		for _, c := range b[i : i+n] {
			v = v*10 + int64(c-'0')
		}
		return v
	}
	d, y, h, mi, s, oh, om := num(0, 2), num(7, 4), num(12, 2), num(15, 2), num(18, 2), num(22, 2), num(24, 2)
	if d < 0 || y < 0 || h < 0 || mi < 0 || s < 0 || oh < 0 || om < 0 {
		return 0, fmt.Errorf("not of the form dd/Mon/yyyy:HH:MM:SS ±hhmm")
	}
	mo := int64(0)
	for i := 0; i < 12; i++ {
		m := monthNames[3*i : 3*i+3]
		if lowerASCII(b[3]) == m[0] && lowerASCII(b[4]) == m[1] && lowerASCII(b[5]) == m[2] {
			mo = int64(i + 1)
		}
	}
	if mo == 0 {
		return 0, fmt.Errorf("unknown month %q", b[3:6])
	}
	if d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 || oh > 23 || om > 59 {
		return 0, errNoSuchDate
	}
	off := oh*3600 + om*60
	if b[21] == '-' {
		off = -off
	}
	secs := daysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + s - off
	ns, ok := nanosFromSecs(secs, 0)
	if !ok {
		return 0, errRange
	}
	return ns, nil
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}
