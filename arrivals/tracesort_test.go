package arrivals

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestTraceSortRuns sorts a trace long enough to fill several runs and
// compares the order with a stable sort of the whole trace.
func TestTraceSortRuns(t *testing.T) {
	const n = 3*sortRunLen + 12_345 // runs of 1 Ki, 2 Ki, ..., 128 Ki entries, then 128 Ki
	src := rand.New(rand.NewPCG(1, 1))
	type line struct{ ns, line int }
	want := make([]line, n)
	var sb strings.Builder
	sb.WriteString("t\n")
	for i := range want {
		// Times in 1,000 values, so that many are equal and order among
		// equals is tested; mostly increasing, as real traces are.
		ns := i/1000 + src.IntN(200)
		want[i] = line{ns, i + 2}
		fmt.Fprintf(&sb, "%d\n", ns)
	}
	slices.SortStableFunc(want, func(a, b line) int { return a.ns - b.ns })
	tr, err := NewTrace(strings.NewReader(sb.String()), "runs.csv", TraceOptions{TimeFormat: "unix-ns", Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.sorted.runs.Len(); got < 10 {
		t.Errorf("%d runs, want at least 10 to test the merge", got)
	}
	for i, w := range want {
		a, err := tr.Next()
		if err != nil {
			t.Fatalf("arrival %d: %v", i, err)
		}
		if a.Line != w.line || a.T != engine.Time(w.ns-want[0].ns) {
			t.Fatalf("arrival %d = line %d, T %d ns, want line %d, T %d ns", i, a.Line, a.T, w.line, w.ns-want[0].ns)
		}
	}
	if _, err := tr.Next(); err != io.EOF {
		t.Errorf("Next after the last arrival = %v, want io.EOF", err)
	}
	if tr.sorted.runs.Len() != 0 {
		t.Errorf("%d runs left after the end, want 0 (read runs are freed)", tr.sorted.runs.Len())
	}
}

// sortTrace returns a NASA-like trace of n lines, separated by sep: a
// time in Unix seconds that is sometimes a few seconds early, a client, a
// method, a status and a size.
func sortTrace(n int, sep string) []byte {
	src := rand.New(rand.NewPCG(1, 2))
	var b bytes.Buffer
	b.WriteString(strings.ReplaceAll("ts_unix client method status bytes\n", " ", sep))
	ts := 807_256_800
	for range n {
		ts += src.IntN(2)
		early := 0
		if src.IntN(100) == 0 {
			early = 3
		}
		fmt.Fprintf(&b, "%d%shost-%06d%sGET%s200%s%d\n", ts-early, sep, src.IntN(2365), sep, sep, sep, src.IntN(100_000))
	}
	return b.Bytes()
}

// sortMemory reads data with Sort and returns, per arrival, the bytes
// allocated while reading it and the bytes held by the sorted trace.
func sortMemory(t testing.TB, data []byte, name string) (allocated, held float64) {
	var m0, m1, m2 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&m0)
	tr, err := NewTrace(bytes.NewReader(data), name, TraceOptions{KeyCol: "client", Sort: true})
	if err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&m1)
	runtime.GC()
	runtime.ReadMemStats(&m2)
	n := 0
	for _, r := range tr.sorted.runs.Items() {
		n += len(r)
	}
	runtime.KeepAlive(tr)
	return float64(m1.TotalAlloc-m0.TotalAlloc) / float64(n), (float64(m2.HeapAlloc) - float64(m0.HeapAlloc)) / float64(n)
}

// TestTraceSortMemory measures what Sort costs per arrival on a trace of
// a million lines, for the figure in the TraceOptions.Sort doc. A sorted
// trace holds 32 bytes per arrival and the little unused room of its last
// run; TSV allocates nothing else, so what it allocates in all bounds its
// peak. CSV also allocates a string per line, which the collector frees.
func TestTraceSortMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a million-line trace")
	}
	const n = 1_000_000
	for _, tc := range []struct {
		name, sep    string
		maxAllocated float64 // bytes per arrival
	}{
		{"m.tsv", "\t", 36}, // 32, the runs' unused room, the 64 KiB buffer
		{"m.csv", ",", 80},  // also about 34 bytes of line strings, as garbage
	} {
		allocated, held := sortMemory(t, sortTrace(n, tc.sep), tc.name)
		t.Logf("%s: Sort allocates %.1f bytes per arrival and holds %.1f", tc.name, allocated, held)
		if allocated > tc.maxAllocated {
			t.Errorf("%s: Sort allocates %.1f bytes per arrival, want at most %v", tc.name, allocated, tc.maxAllocated)
		}
		if held < 32 || held > 36 {
			t.Errorf("%s: the sorted trace holds %.1f bytes per arrival, want 32 to 36", tc.name, held)
		}
	}
}

// BenchmarkTraceSort reads a NASA-like trace of a million lines with
// Sort and replays it. Besides the time per arrival it reports the bytes
// allocated per arrival and, on Linux, the growth of the resident set per
// arrival while reading (as a tester measures peak RSS).
func BenchmarkTraceSort(b *testing.B) {
	const n = 1_000_000
	for _, tc := range []struct{ name, sep string }{{"tsv", "\t"}, {"csv", ","}} {
		b.Run(tc.name, func(b *testing.B) {
			data := sortTrace(n, tc.sep)
			name := "bench." + tc.name
			rss, rssOK := rssGrowth(func() { sortMemory(b, data, name) })
			allocated, _ := sortMemory(b, data, name)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				tr, err := NewTrace(bytes.NewReader(data), name, TraceOptions{KeyCol: "client", Sort: true})
				if err != nil {
					b.Fatal(err)
				}
				for {
					if _, err := tr.Next(); err != nil {
						if err != io.EOF {
							b.Fatal(err)
						}
						break
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/arrival")
			b.ReportMetric(allocated, "B/arrival")
			if rssOK {
				b.ReportMetric(float64(rss)/n, "peakRSS-B/arrival")
			}
		})
	}
}

// rssGrowth runs f and returns how far the resident set grew above its
// size before f, in bytes, from Linux's peak resident set (VmHWM) after
// resetting it. ok is false where that is not available.
func rssGrowth(f func()) (growth int64, ok bool) {
	runtime.GC()
	debug.FreeOSMemory()
	before, ok := procStatus("VmRSS")
	if !ok || os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) != nil {
		f()
		return 0, false
	}
	f()
	peak, ok := procStatus("VmHWM")
	return peak - before, ok
}

// procStatus returns a size in bytes from /proc/self/status.
func procStatus(key string) (int64, bool) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), ":")
		if k == key {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}
