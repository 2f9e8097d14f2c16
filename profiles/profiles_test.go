package profiles

import (
	"bufio"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// step is one arrival of a hand-worked scenario and the decision wanted.
type step struct {
	t       engine.Time
	verdict buckets.Verdict
	wait    engine.Time // for Delay, in ns
	retry   engine.Time // for Reject, when checked (see checkRetry)
}

// firstAdmitter is a profile whose library sends no retry hint but whose
// model knows the first instant a refused job would pass.
type firstAdmitter interface {
	FirstAdmitted(t engine.Time) engine.Time
}

// run offers each step's arrival to l and compares verdicts and waits;
// when checkRetry is set it compares RetryAfter of rejections too, or, for
// a profile whose library sends no hint (a firstAdmitter), requires
// RetryAfter 0 and compares the model's FirstAdmitted, read before the
// offer (a refusal leaves the state unchanged).
func run(t *testing.T, l buckets.Limiter, steps []step, checkRetry bool) {
	t.Helper()
	for i, s := range steps {
		fa, silent := l.(firstAdmitter)
		var first engine.Time
		if silent {
			first = fa.FirstAdmitted(s.t)
		}
		d := l.Offer(s.t, int64(i))
		wantWait := exact.Int(0)
		if s.verdict == buckets.Delay {
			wantWait = exact.Int(int64(s.wait))
		}
		if d.Verdict != s.verdict || d.Wait.Cmp(wantWait) != 0 {
			t.Errorf("step %d: Offer(%v) = %v wait %v ns, want %v wait %v ns", i, s.t, d.Verdict, d.Wait, s.verdict, wantWait)
			continue
		}
		switch {
		case !checkRetry || s.verdict != buckets.Reject:
		case silent && (d.RetryAfter != 0 || first != s.retry):
			t.Errorf("step %d: Offer(%v) RetryAfter = %v s, first admitted after %v s; want no hint and %v s", i, s.t, d.RetryAfter, first, s.retry)
		case !silent && d.RetryAfter != s.retry:
			t.Errorf("step %d: Offer(%v) RetryAfter = %v s, want %v s", i, s.t, d.RetryAfter, s.retry)
		}
	}
}

const (
	ms = engine.Millisecond
	us = engine.Microsecond
	s1 = engine.Second
)

// streamKind names a family of random arrival streams.
type streamKind struct {
	name string
	gen  func(src *rand.Rand, n int, scale engine.Time) []engine.Time
}

// streams are the random arrival families the differential and promise
// tests use: exponential gaps in ns, bursts of ties, ms and µs grids, and
// a mixture. scale is the mean gap.
var streams = []streamKind{
	{"poisson-ns", func(src *rand.Rand, n int, scale engine.Time) []engine.Time {
		ts := make([]engine.Time, n)
		var t engine.Time
		for i := range ts {
			t += engine.Time(src.ExpFloat64() * float64(scale))
			ts[i] = t
		}
		return ts
	}},
	{"ties", func(src *rand.Rand, n int, scale engine.Time) []engine.Time {
		ts := make([]engine.Time, n)
		var t engine.Time
		for i := range ts {
			if src.IntN(3) == 0 { // a third of arrivals move the clock
				t += engine.Time(src.ExpFloat64() * float64(3*scale))
			}
			ts[i] = t
		}
		return ts
	}},
	{"ms-grid", func(src *rand.Rand, n int, scale engine.Time) []engine.Time {
		ts := make([]engine.Time, n)
		var t engine.Time
		step := max(scale/ms, 1)
		for i := range ts {
			t += engine.Time(src.Int64N(int64(2*step)+1)) * ms
			ts[i] = t
		}
		return ts
	}},
	{"us-grid", func(src *rand.Rand, n int, scale engine.Time) []engine.Time {
		ts := make([]engine.Time, n)
		var t engine.Time
		step := max(scale/us, 1)
		for i := range ts {
			t += engine.Time(src.Int64N(int64(2*step)+1)) * us
			ts[i] = t
		}
		return ts
	}},
	{"bursty", func(src *rand.Rand, n int, scale engine.Time) []engine.Time {
		ts := make([]engine.Time, n)
		var t engine.Time
		for i := range ts {
			switch src.IntN(10) {
			case 0: // a long idle period
				t += engine.Time(src.ExpFloat64() * float64(50*scale))
			case 1, 2, 3: // a tie
			default:
				t += engine.Time(src.Int64N(int64(scale) + 1))
			}
			ts[i] = t
		}
		return ts
	}},
}

// traceDir is where the shared real traces live; tests that read them
// skip when it is absent.
func traceDir() string {
	if d := os.Getenv("RATESIM_TRACES"); d != "" {
		return d
	}
	for _, d := range []string{"/work/shared/traces", filepath.Join("..", "..", "shared", "traces")} {
		if _, err := os.Stat(d); err == nil {
			return d
		}
	}
	return ""
}

// trace is the arrival instants of one real trace, in ns since its first
// arrival, sorted.
type trace struct {
	name string
	ts   []engine.Time
}

// loadTraces reads the per-request traces in the shared folder: NASA-HTTP
// (whole seconds), the Azure LLM inference trace (100 ns) and Alibaba
// GenTD26 (whole seconds). It skips the test when the folder is absent.
func loadTraces(t *testing.T) []trace {
	t.Helper()
	dir := traceDir()
	if dir == "" {
		t.Skip("shared traces not found (set RATESIM_TRACES)")
	}
	var out []trace
	read := func(name, rel string, sep string, col int, parse func(string) (int64, bool)) {
		f, err := os.Open(filepath.Join(dir, rel))
		if err != nil {
			t.Logf("trace %s: %v (skipped)", name, err)
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ns []int64
		first := true
		for sc.Scan() {
			if first {
				first = false
				continue
			}
			fields := strings.Split(sc.Text(), sep)
			if len(fields) <= col {
				continue
			}
			if v, ok := parse(fields[col]); ok {
				ns = append(ns, v)
			}
		}
		if len(ns) == 0 {
			return
		}
		slices.Sort(ns)
		ts := make([]engine.Time, len(ns))
		for i, v := range ns {
			ts[i] = engine.Time(v - ns[0])
		}
		out = append(out, trace{name, ts})
	}
	unix := func(s string) (int64, bool) {
		v, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		return v * int64(s1), err == nil
	}
	stamp := func(layout string) func(string) (int64, bool) {
		return func(s string) (int64, bool) {
			tm, err := time.Parse(layout, strings.TrimSpace(s))
			return tm.UnixNano(), err == nil
		}
	}
	read("nasa-http", "nasa-http/nasa_kscweb_19950801_0200-1452_edt.tsv", "\t", 0, unix)
	read("azure-llm-2023", "azure-llm-inference-2023/AzureLLMInferenceTrace_code.csv", ",", 0, stamp("2006-01-02 15:04:05.0000000"))
	read("alibaba-gentd26", "alibaba-gentd26/lora_request_trace.csv", ",", 0, stamp("2006-01-02 15:04:05"))
	if len(out) == 0 {
		t.Skip("no trace could be read")
	}
	return out
}

// maxInWindow returns the largest number of instants of sorted ts in a
// closed window of length d.
func maxInWindow(ts []engine.Time, d engine.Time) int {
	best, j := 0, 0
	for i := range ts {
		for ts[i]-ts[j] > d {
			j++
		}
		best = max(best, i-j+1)
	}
	return best
}

// passInstants offers ts to l and returns the instants at which the jobs
// pass (arrival for Admit, arrival plus the wait, rounded up to the
// nanosecond, for Delay), sorted.
func passInstants(l buckets.Limiter, ts []engine.Time) []engine.Time {
	var out []engine.Time
	for i, t := range ts {
		d := l.Offer(t, int64(i))
		switch d.Verdict {
		case buckets.Admit:
			out = append(out, t)
		case buckets.Delay:
			w := d.Wait.Ceil()
			if !w.IsInt64() || w.Int64() > int64(engine.Forever-t) {
				continue // released beyond the clock's range
			}
			out = append(out, t+engine.Time(w.Int64()))
		}
	}
	slices.Sort(out)
	return out
}
