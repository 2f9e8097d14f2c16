package arrivals

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ratesim/ratesim/engine"
)

// sharedTraces is where the real traces live, relative to the package
// directory: /work/shared/traces beside the repository, outside it.
const sharedTraces = "../../shared/traces"

// sharedTrace returns the path of a shared trace, skipping the test when
// it is absent.
func sharedTrace(tb testing.TB, rel string) string {
	tb.Helper()
	p := filepath.Join(sharedTraces, rel)
	if _, err := os.Stat(p); err != nil {
		tb.Skipf("shared trace %s not available (%v); these tests need the traces in %s", rel, err, sharedTraces)
	}
	return p
}

// readAllArrivals reads a trace to the end.
func readAllArrivals(t *testing.T, path string, opt TraceOptions) []Arrival {
	t.Helper()
	tr, err := Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	var all []Arrival
	for {
		a, err := tr.Next()
		if err == io.EOF {
			return all
		}
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, a)
	}
}

// readOrigin opens a trace, reads its first arrival and returns its origin.
func readOrigin(t *testing.T, path string, opt TraceOptions) (int64, bool) {
	t.Helper()
	tr, err := Open(path, opt)
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	if _, err := tr.Next(); err != nil {
		t.Fatal(err)
	}
	return tr.Origin()
}

// oracle reads a trace independently of Trace: it counts data lines with
// bufio and returns the first and last values of column col.
func oracle(t *testing.T, path string, delim string, col int) (rows int, first, last string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		if sc.Text() == "" {
			continue
		}
		v := strings.Split(sc.Text(), delim)[col]
		if rows == 0 {
			first = v
		}
		last = v
		rows++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows, first, last
}

func TestRealNASA(t *testing.T) {
	path := sharedTrace(t, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	all := readAllArrivals(t, path, TraceOptions{TimeCol: "ts_unix"})
	rows, first, last := oracle(t, path, "\t", 0)
	t0, _ := strconv.ParseInt(first, 10, 64)
	t1, _ := strconv.ParseInt(last, 10, 64)
	// PROVENANCE.md: 30,969 rows from 807256800 to 807303121 (46,321 s).
	if rows != 30_969 || t1-t0 != 46_321 {
		t.Errorf("oracle: %d rows spanning %d s, PROVENANCE.md says 30969 and 46321", rows, t1-t0)
	}
	if len(all) != rows {
		t.Errorf("read %d arrivals, want %d", len(all), rows)
	}
	if got, want := all[len(all)-1].T, engine.Time(t1-t0)*engine.Second; got != want {
		t.Errorf("last T = %v s, want %v s", got, want)
	}
	if got, want := all[len(all)-1].Line, rows+1; got != want {
		t.Errorf("last Line = %d, want %d", got, want)
	}
}

func TestRealAzureLLM(t *testing.T) {
	path := sharedTrace(t, "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv")
	all := readAllArrivals(t, path, TraceOptions{TimeCol: "TIMESTAMP", TimeFormat: "datetime"})
	rows, first, last := oracle(t, path, ",", 0)
	const layout = "2006-01-02 15:04:05.9999999"
	t0, err0 := time.Parse(layout, first)
	t1, err1 := time.Parse(layout, last)
	if err0 != nil || err1 != nil {
		t.Fatal(err0, err1)
	}
	if rows != 8_819 { // PROVENANCE.md
		t.Errorf("oracle: %d rows, PROVENANCE.md says 8819", rows)
	}
	if len(all) != rows {
		t.Errorf("read %d arrivals, want %d", len(all), rows)
	}
	if got, want := all[len(all)-1].T, engine.Time(t1.Sub(t0).Nanoseconds()); got != want {
		t.Errorf("last T = %v s, want %v s", got, want)
	}
	// The origin is the first line's instant, exactly.
	if ns, ok := readOrigin(t, path, TraceOptions{TimeCol: "TIMESTAMP", TimeFormat: "datetime"}); !ok || ns != t0.UnixNano() {
		t.Errorf("Origin() = %d, %v, want %d", ns, ok, t0.UnixNano())
	}
}

func TestRealAlibaba(t *testing.T) {
	path := sharedTrace(t, "alibaba-gentd26/lora_request_trace.csv")
	all := readAllArrivals(t, path, TraceOptions{TimeCol: "gmt_create", TimeFormat: "datetime", KeyCol: "groupId"})

	// Oracle: encoding/csv without ReuseRecord, time.Parse, a map of keys.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	recs = recs[1:]
	groups := map[string]bool{}
	for _, r := range recs {
		groups[r[4]] = true
	}
	t0, _ := time.Parse(time.DateTime, recs[0][0])
	t1, _ := time.Parse(time.DateTime, recs[len(recs)-1][0])
	// PROVENANCE.md: 26,823 requests, 4,247 distinct groupId values.
	if len(recs) != 26_823 || len(groups) != 4_247 {
		t.Errorf("oracle: %d rows, %d groups, PROVENANCE.md says 26823 and 4247", len(recs), len(groups))
	}
	if len(all) != len(recs) {
		t.Errorf("read %d arrivals, want %d", len(all), len(recs))
	}
	keys := map[uint64]bool{}
	for _, a := range all {
		keys[a.Key] = true
	}
	if len(keys) != len(groups) {
		t.Errorf("%d distinct keys, want %d distinct groupId values", len(keys), len(groups))
	}
	if got, want := all[len(all)-1].T, engine.Time(t1.Sub(t0).Nanoseconds()); got != want {
		t.Errorf("last T = %v s, want %v s", got, want)
	}
}

// BenchmarkTraceNASA reads the NASA trace (30,969 lines) per iteration.
func BenchmarkTraceNASA(b *testing.B) {
	path := sharedTrace(b, "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		tr, err := NewTrace(bytes.NewReader(data), "nasa.tsv", TraceOptions{TimeCol: "ts_unix"})
		if err != nil {
			b.Fatal(err)
		}
		for {
			_, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(n), "ns/arrival")
}
