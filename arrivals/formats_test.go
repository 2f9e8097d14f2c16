package arrivals

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

func gzipped(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	w.Write([]byte(s))
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// TestGzip reads gzip-compressed CSV, TSV (the delimiter chosen by the
// name without .gz), CLF (the format chosen likewise) and counts, and
// reports a corrupt stream as an error naming the file.
func TestGzip(t *testing.T) {
	for _, tc := range []struct {
		name, data string
		opt        TraceOptions
		want       []engine.Time
	}{
		{"t.csv.gz", "t,k\n1,a\n3,b\n", TraceOptions{}, []engine.Time{0, 2 * s1}},
		{"t.tsv.gz", "t\tk\n1\ta\n3.5\tb\n", TraceOptions{}, []engine.Time{0, 2500 * ms}},
		{"access.log.gz", clfSample, TraceOptions{}, []engine.Time{0, 6 * s1, 6 * s1, 8 * s1, 9 * s1, 9 * s1}},
		{"e.jsonl.GZ", jsonlSample, TraceOptions{}, []engine.Time{0, 250 * ms, 750 * ms, 1750 * ms, 2750 * ms, 3750 * ms}},
		{"whatever", "3\n0\n2\n", TraceOptions{Format: FormatCounts}, []engine.Time{0, 20 * s1, 40 * s1, 120 * s1, 150 * s1}},
	} {
		_, all, err := readTrace(t, gzipped(t, tc.data), tc.name, tc.opt)
		if err != nil || !slices.Equal(times(all), tc.want) {
			t.Errorf("%s: %v, times %v; want %v", tc.name, err, times(all), tc.want)
		}
	}
	z := gzipped(t, strings.Repeat("t\n1\n", 1000))
	_, _, err := readTrace(t, z[:len(z)/2], "t.csv.gz", TraceOptions{})
	if err == nil || !strings.HasPrefix(err.Error(), "arrivals: t.csv.gz:") || !strings.Contains(err.Error(), "unexpected EOF") {
		t.Errorf("truncated gzip: error %v, want one naming t.csv.gz and a line", err)
	}
	// Open on a file.
	path := filepath.Join(t.TempDir(), "a.log.gz")
	if err := os.WriteFile(path, []byte(gzipped(t, clfSample)), 0o644); err != nil {
		t.Fatal(err)
	}
	if all := readAllArrivals(t, path, TraceOptions{}); len(all) != 6 {
		t.Errorf("Open %s: %d arrivals, want 6", path, len(all))
	}
}

func TestFormatFor(t *testing.T) {
	for _, tc := range []struct{ name, format, want string }{
		{"x.csv", "", FormatCSV},
		{"x.tsv.gz", "", FormatCSV},
		{"access.log", "", FormatCLF},
		{"ACCESS.LOG.GZ", "", FormatCLF},
		{"x.clf", "", FormatCLF},
		{"x.jsonl", "", FormatJSONL},
		{"x.ndjson.gz", "", FormatJSONL},
		{"x.log", "csv", FormatCSV},
		{"x.csv", "TSV", FormatCSV},
		{"x.csv", "wide", FormatWide},
		{"x.csv", " counts ", FormatCounts},
	} {
		if got, err := FormatFor(tc.name, tc.format); err != nil || got != tc.want {
			t.Errorf("FormatFor(%q, %q) = %q, %v; want %q", tc.name, tc.format, got, err, tc.want)
		}
	}
	if _, err := FormatFor("x", "xml"); err == nil {
		t.Error("FormatFor(xml): error = nil")
	}
	if _, err := NewTrace(strings.NewReader("t\n1\n"), "x.csv", TraceOptions{Format: "xml"}); !errors.Is(err, ErrOptions) {
		t.Errorf("format xml: error %v, want ErrOptions", err)
	}
	for _, opt := range []TraceOptions{{CountCol: "c"}, {Series: "a=b"}, {Spread: "even"}} {
		if _, err := NewTrace(strings.NewReader("t\n1\n"), "x.csv", opt); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), "does not apply to format csv") {
			t.Errorf("csv with %+v: error %v, want ErrOptions", opt, err)
		}
	}
}
