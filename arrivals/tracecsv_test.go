package arrivals

import (
	"bufio"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"reflect"
	"strings"
	"testing"
)

// csvRecords reads all of in with encoding/csv (the defaults ratesim used
// before csvReader, with FieldsPerRecord = -1: field counts are checked by
// the trace reader) and describes each record or error as one string: the
// fields with the line of each, or the *csv.ParseError's positions.
func csvRecords(in string, comma rune) []string {
	cr := csv.NewReader(strings.NewReader(in))
	cr.Comma, cr.ReuseRecord, cr.FieldsPerRecord = comma, true, -1
	var out []string
	for range 1000 {
		rec, err := cr.Read()
		if err == io.EOF {
			return out
		}
		out = append(out, describe(rec, err, func(i int) int { l, _ := cr.FieldPos(i); return l }))
	}
	return append(out, "too many records")
}

// ourRecords is csvRecords with csvReader.
func ourRecords(in string, comma rune) []string {
	r := newCSVReader(bufio.NewReaderSize(strings.NewReader(in), 16), comma)
	var out []string
	for range 1000 {
		fields, err := r.read()
		if err == io.EOF {
			return out
		}
		rec := make([]string, len(fields))
		for i, f := range fields {
			rec[i] = string(f)
		}
		out = append(out, describe(rec, err, func(i int) int { return r.lines[i] }))
	}
	return append(out, "too many records")
}

func describe(rec []string, err error, line func(int) int) string {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Sprintf("error %d %d %d %v", pe.StartLine, pe.Line, pe.Column, pe.Err)
	}
	if err != nil {
		return "error " + err.Error()
	}
	var sb strings.Builder
	for i, f := range rec {
		fmt.Fprintf(&sb, "%q@%d ", f, line(i))
	}
	return sb.String()
}

var csvCases = []string{
	"t\n1\n2\n",
	"t,k\n1,a\n2,b", // no final newline
	"t,k\r\n1,a\r\n\r\n2,b\r",
	"\n\nt\n\n1\n",
	"t,k\n1,\"a,b\"\n2,\"x\"\"y\"\n",
	"t,k\n1,\"multi\nline\r\nfield\"\n2,z\n",
	"t,k\n1,a\"b\n2,c\n",    // bare quote
	"t,k\n1,\"a\"b\n2,c\n",  // extraneous quote
	"t,k\n1,\"open\n2,c\n",  // quote never closed
	"t,k\n1,\"open\n\n",     // closed by the end of the input
	"t,k\n1,\"\"\n2,\"\"\n", // empty quoted fields
	"t,k\n\"1\",k\n",
	"a,b,c\n1,,3\n,,\n",
	"\r\r\n\r\n1\r\n",
	"t\n\"a\"\"\n",
	"\"\n\"\n\"",
	"x,\"\n\n\"y\"",
	"t,k\n1," + strings.Repeat("long", 50) + "\n2," + strings.Repeat("q\"", 70) + "\n", // past the one-pass split
}

// TestCSVReaderMatchesEncodingCSV: csvReader gives encoding/csv's records,
// field lines and errors on hand-picked cases, with ',' ';' '|' '\t' and a
// multi-byte delimiter.
func TestCSVReaderMatchesEncodingCSV(t *testing.T) {
	for _, comma := range []rune{',', ';', '\t', '§'} {
		for _, in := range csvCases {
			in = strings.ReplaceAll(in, ",", string(comma))
			want, got := csvRecords(in, comma), ourRecords(in, comma)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("comma %q, input %q:\n got %q\nwant %q", comma, in, got, want)
			}
		}
	}
}

// FuzzCSVReader compares csvReader with encoding/csv on any input.
func FuzzCSVReader(f *testing.F) {
	for _, in := range csvCases {
		f.Add(in, false)
	}
	f.Fuzz(func(t *testing.T, in string, multibyte bool) {
		comma := ','
		if multibyte {
			comma = '§'
		}
		want, got := csvRecords(in, comma), ourRecords(in, comma)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("input %q:\n got %q\nwant %q", in, got, want)
		}
	})
}
