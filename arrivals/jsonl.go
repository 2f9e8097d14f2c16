package arrivals

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// jsonlSource reads JSON lines (FormatJSONL).
type jsonlSource struct {
	lr                      lineReader
	format                  timeFormat
	timeKey, keyKey, subKey string // field names; "" for no key or sub field
	scratch                 []byte // an unescaped string, reused
}

func newJSONL(br *bufio.Reader, name string, opt TraceOptions) (*Trace, error) {
	format, err := parseTimeFormat(opt.TimeFormat)
	if err != nil {
		return nil, &TraceError{File: name, Text: opt.TimeFormat, Msg: err.Error(), Err: ErrOptions, Option: "TimeFormat"}
	}
	s := &jsonlSource{lr: lineReader{br: br}, format: format, timeKey: opt.TimeCol, keyKey: opt.KeyCol, subKey: opt.SubCol}
	if s.timeKey == "" {
		s.timeKey = "time"
	}
	return newSourceTrace(name, opt, s)
}

// jsonValue is a member's value as found in the line.
type jsonValue struct {
	raw   []byte // the value's text (a string with its quotes)
	found bool
}

func (s *jsonlSource) next(t *Trace) (traceEntry, error) {
	line, e, err := s.lr.entry(t)
	if err != nil {
		return e, err
	}
	n := e.line
	obj := trimSpace(line)
	if len(obj) == 0 || obj[0] != '{' || !json.Valid(obj) {
		return e, lineError(t, n, line, fmt.Sprintf("not a JSON object: %q; want one object per line such as {\"time\": 1700000000.25}", clipLine(line)))
	}
	var tv, kv, sv jsonValue
	eachMember(obj, func(key, val []byte) {
		switch {
		case s.matches(key, s.timeKey):
			tv = jsonValue{val, true}
		case s.keyKey != "" && s.matches(key, s.keyKey):
			kv = jsonValue{val, true}
		case s.subKey != "" && s.matches(key, s.subKey):
			sv = jsonValue{val, true}
		}
	})
	if !tv.found {
		return e, lineError(t, n, line, fmt.Sprintf("no field %q in %q; its fields are %s", s.timeKey, clipLine(line), memberNames(obj)))
	}
	text, ok := s.scalar(tv.raw)
	t.text = append(t.text[:0], text...)
	if !ok {
		return e, lineError(t, n, tv.raw, fmt.Sprintf("time field %q is %s: want a number or a string", s.timeKey, kindOf(tv.raw)))
	}
	if e.ns, err = parseTime(&s.format, text); err != nil {
		te := lineError(t, n, tv.raw, fmt.Sprintf("bad time %s in field %q: %v; want %s", clipLine(tv.raw), s.timeKey, err, s.format.want))
		te.Hint = timeHint(&s.format, string(text))
		return e, te
	}
	if s.keyKey != "" {
		k, ok := s.scalar(kv.raw) // a missing field is the empty key
		if !ok {
			k = kv.raw // an object, array, boolean or null: hash its text
		}
		e.key, _ = keyID(&t.keys, k)
	}
	if s.subKey != "" {
		if !sv.found {
			return e, lineError(t, n, line, fmt.Sprintf("no sub-bucket field %q in %q", s.subKey, clipLine(line)))
		}
		v, _ := s.scalar(sv.raw)
		sub, ok := parseIndex(v)
		if !ok {
			return e, lineError(t, n, sv.raw, fmt.Sprintf("bad sub-bucket index %s in field %q: want a non-negative integer such as 0 or 3", sv.raw, s.subKey))
		}
		e.sub = sub
	}
	return e, nil
}

// matches reports whether the raw member name key (without quotes,
// possibly escaped) is name.
func (s *jsonlSource) matches(key []byte, name string) bool {
	if bytes.IndexByte(key, '\\') < 0 {
		return string(key) == name
	}
	var k string
	quoted := append(append([]byte{'"'}, key...), '"')
	return json.Unmarshal(quoted, &k) == nil && k == name
}

// scalar returns the text of a number, or the unescaped contents of a
// string (in s.scratch when it has escapes); ok is false for other kinds.
func (s *jsonlSource) scalar(raw []byte) ([]byte, bool) {
	if len(raw) == 0 {
		return nil, false
	}
	switch c := raw[0]; {
	case c == '"':
		body := raw[1 : len(raw)-1]
		if bytes.IndexByte(body, '\\') < 0 {
			return body, true
		}
		var str string
		if json.Unmarshal(raw, &str) != nil {
			return nil, false
		}
		s.scratch = append(s.scratch[:0], str...)
		return s.scratch, true
	case c == '-' || isDigitByte(c):
		return raw, true
	}
	return nil, false
}

// kindOf names the JSON kind of a raw value.
func kindOf(raw []byte) string {
	switch raw[0] {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a value"
}

// memberNames lists the member names of a valid object, for messages.
func memberNames(obj []byte) string {
	var names []string
	eachMember(obj, func(key, _ []byte) {
		if len(names) < 20 {
			names = append(names, fmt.Sprintf("%q", key))
		}
	})
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// eachMember calls f with the raw name (without its quotes) and the raw
// value of each top-level member of obj, which must be a valid JSON object
// (json.Valid). It does not allocate.
func eachMember(obj []byte, f func(key, val []byte)) {
	i := skipWS(obj, 1) // after '{'
	for i < len(obj) && obj[i] == '"' {
		end := skipString(obj, i)
		key := obj[i+1 : end-1]
		i = skipWS(obj, end)
		i = skipWS(obj, i+1) // after ':'
		vend := skipValue(obj, i)
		f(key, obj[i:vend])
		i = skipWS(obj, vend)
		if i < len(obj) && obj[i] == ',' {
			i = skipWS(obj, i+1)
		}
	}
}

func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] = '"'.
func skipString(b []byte, i int) int {
	for i++; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(b)
}

// skipValue returns the index after the value starting at b[i].
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for ; i < len(b); i++ {
			switch b[i] {
			case '"':
				i = skipString(b, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
		return len(b)
	}
	for i < len(b) && b[i] != ',' && b[i] != '}' && b[i] != ']' && b[i] != ' ' && b[i] != '\t' && b[i] != '\n' && b[i] != '\r' {
		i++
	}
	return i
}
