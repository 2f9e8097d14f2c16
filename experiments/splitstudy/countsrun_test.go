package splitstudy

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/big"
	"math/rand/v2"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/experiments"
)

// runCountsBoth runs spec on the counts file text job by job (the
// closed-form path held off) and in closed form (taken from the first
// job), and returns both results.
func runCountsBoth(t interface {
	Helper()
	Fatal(...any)
	Fatalf(string, ...any)
}, text string, opt arrivals.TraceOptions, spec RunSpec) (perJob, closed Result) {
	t.Helper()
	defer func(j int64) { countsClosedFormJobs = j }(countsClosedFormJobs)
	run := func(threshold int64) Result {
		countsClosedFormJobs = threshold
		tr, err := arrivals.NewTrace(strings.NewReader(text), "c.txt", opt)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), spec, tr, nil)
		if err != nil {
			t.Fatal(err)
		}
		return res
	}
	perJob = run(math.MaxInt64)
	closed = run(1)
	if perJob.Check.NotChecked != "" || closed.Check.NotChecked == "" {
		t.Fatalf("paths not as asked: per job %q, closed form %q", perJob.Check.NotChecked, closed.Check.NotChecked)
	}
	return perJob, closed
}

// sameResults reports the first difference between the per-job and the
// closed-form results: everything but the check's own counts.
func sameResults(a, b Result) string {
	switch {
	case a.Jobs != b.Jobs || a.Span != b.Span || a.Drain != b.Drain:
		return fmt.Sprintf("jobs %d over %v s, drain %v s; closed form %d over %v s, drain %v s", a.Jobs, a.Span, a.Drain, b.Jobs, b.Span, b.Drain)
	case a.One != b.One:
		return fmt.Sprintf("one bucket %+v\nclosed form %+v", a.One, b.One)
	case a.Split != b.Split:
		return fmt.Sprintf("split %+v\nclosed form %+v", a.Split, b.Split)
	case a.Check.Events != b.Check.Events:
		return fmt.Sprintf("events %d, closed form %d", a.Check.Events, b.Check.Events)
	}
	return ""
}

// TestCountsClosedFormMatchesPerJob draws counts files, buckets, splits,
// warm-ups and job limits, and compares the closed-form path with the
// per-job one (itself checked against the engine and exact arithmetic
// elsewhere): the same statistics, span, drain and events, whether the
// intervals are admitted in closed form, one by one (gaps around one
// token's time) or a mixture.
func TestCountsClosedFormMatchesPerJob(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 1))
		k := rapid.IntRange(1, 4).Draw(t, "k")
		one := pp(fmt.Sprintf("%d/%d", rapid.IntRange(1, 40).Draw(t, "rp"), rapid.IntRange(1, 8).Draw(t, "rq")), fmt.Sprint(k+rapid.IntRange(0, 6).Draw(t, "b")))
		spec := RunSpec{One: one, Subs: randomSplit(rng, one, k), Dispatch: "rr", Order: buckets.FCFS, Seed: 1}
		tok := 1e9 / one.Rate.Float64() // ns
		var sb strings.Builder
		total := int64(0)
		for range rapid.IntRange(1, 8).Draw(t, "lines") {
			c := rapid.Int64Range(0, 300).Draw(t, "count")
			total += c
			fmt.Fprintln(&sb, c)
		}
		var interval engine.Time
		switch rapid.IntRange(0, 2).Draw(t, "kind") {
		case 0: // around one token per job for the typical count
			interval = engine.Time(tok*float64(rapid.IntRange(1, 300).Draw(t, "per"))) + engine.Time(rapid.Int64Range(-2, 2).Draw(t, "near"))
		case 1:
			interval = engine.Time(rapid.Int64Range(1, 1000).Draw(t, "ns"))
		default:
			interval = engine.Time(rapid.Int64Range(1, 600).Draw(t, "s")) * engine.Second
		}
		interval = max(interval, 1)
		spec.Warmup = rapid.Int64Range(0, 40).Draw(t, "warmup")
		if rapid.Bool().Draw(t, "limit") {
			spec.MaxJobs = rapid.Int64Range(1, total+5).Draw(t, "max")
		}
		if total == 0 || spec.MaxJobs > 0 && spec.MaxJobs <= spec.Warmup || total <= spec.Warmup {
			spec.Warmup = 0
		}
		if total == 0 {
			return // no arrivals: both paths fail alike (arrivals tests)
		}
		a, b := runCountsBoth(t, sb.String(), arrivals.TraceOptions{Format: arrivals.FormatCounts, Interval: interval}, spec)
		if d := sameResults(a, b); d != "" {
			t.Fatalf("%s\ntrace %q interval %v spec %+v", d, sb.String(), interval, spec)
		}
	})
}

// TestCountsClosedFormHistogram: beyond ExactQuantileJobs delayed jobs the
// per-job path reports quantiles from its log-linear histogram; the
// closed form reports the same bins' middles. 1.1·10^6 jobs in one
// second into a bucket of 10^6 tokens/s (b = 4): most wait.
func TestCountsClosedFormHistogram(t *testing.T) {
	if testing.Short() {
		t.Skip("1.1·10^6 jobs job by job")
	}
	spec := RunSpec{One: pp("1000000", "4"), Subs: []buckets.Params{pp("600000", "2"), pp("400000", "2")}, Dispatch: "rr", Order: buckets.FCFS, Seed: 1}
	a, b := runCountsBoth(t, "1100000\n", arrivals.TraceOptions{Format: arrivals.FormatCounts, Interval: engine.Second}, spec)
	if d := sameResults(a, b); d != "" {
		t.Fatal(d)
	}
	if a.One.Quantiles == "exact" {
		t.Fatalf("%d delayed jobs kept exactly: the histogram is not exercised", a.One.Delayed)
	}
}

// TestCountsClosedFormHistogramLines: the histogram over many intervals,
// bursts of 100000 jobs in 50 ms (twice the rate) between quiet ones of
// 1000 jobs in 50 ms (the backlog drains through them): 11 bursts delay
// more than ExactQuantileJobs jobs, in runs rising and falling.
func TestCountsClosedFormHistogramLines(t *testing.T) {
	if testing.Short() {
		t.Skip("1.1·10^6 jobs job by job")
	}
	spec := RunSpec{One: pp("1000000", "4"), Subs: []buckets.Params{pp("600000", "2"), pp("400000", "2")}, Dispatch: "rr", Order: buckets.FCFS, Seed: 1}
	a, b := runCountsBoth(t, strings.Repeat("100000\n1000\n", 11), arrivals.TraceOptions{Format: arrivals.FormatCounts, Interval: 50 * engine.Millisecond}, spec)
	if d := sameResults(a, b); d != "" {
		t.Fatal(d)
	}
	if a.One.Quantiles == "exact" || a.Split.Quantiles == "exact" {
		t.Fatalf("%d and %d delayed jobs kept exactly: the histogram is not exercised", a.One.Delayed, a.Split.Delayed)
	}
}

// TestCountsTrillion: one line claiming 10^12 jobs over a minute, into a
// bucket of 10^4 tokens/s with b = 10 and its split (5000, 5) × 2. Job i
// of the one bucket waits w_i = (i - 9)·10^5 - floor(3i/50) ns for i >= 10
// (buckets.TestAdmitSpreadHuge), so the largest wait is that of i =
// 10^12 - 1, the median is that of rank 5·10^11 (i = 5·10^11 - 1) shown
// at its histogram bin's middle, and 10^12 - 10 jobs wait; each
// sub-bucket (one token every 2·10^5 ns) lets its first 5 pass.
func TestCountsTrillion(t *testing.T) {
	const n = 1_000_000_000_000
	spec := RunSpec{One: pp("10000", "10"), Subs: []buckets.Params{pp("5000", "5"), pp("5000", "5")}, Dispatch: "rr", Order: buckets.FCFS, Seed: 1}
	tr, err := arrivals.NewTrace(strings.NewReader("1000000000000\n"), "c.txt", arrivals.TraceOptions{Format: arrivals.FormatCounts})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), spec, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Check.NotChecked == "" || res.Jobs != n || res.One.Delayed != n-10 || res.Split.Delayed != n-10 {
		t.Fatalf("jobs %d, delayed %d and %d, check %+v", res.Jobs, res.One.Delayed, res.Split.Delayed, res.Check)
	}
	wait := func(i int64) float64 { // seconds, rounded once
		w := new(big.Int).Mul(big.NewInt(i-9), big.NewInt(1e5))
		w.Sub(w, big.NewInt(3*i/50))
		f, _ := new(big.Rat).SetFrac(w, big.NewInt(1e9)).Float64()
		return f
	}
	if want := wait(n - 1); res.One.Max != want {
		t.Errorf("max %v s, want %v s", res.One.Max, want)
	}
	x := wait(n/2 - 1)
	// The histogram's bin of x: the float64s sharing x's exponent and
	// first 7 bits of mantissa (relative accuracy 2^-8); the quantile is
	// its middle.
	const shift = 52 - 7
	lo := math.Float64frombits(math.Float64bits(x) >> shift << shift)
	hi := math.Float64frombits((math.Float64bits(x)>>shift + 1) << shift)
	if want := math.Min(lo+(hi-lo)/2, res.One.Max); res.One.P50 != want {
		t.Errorf("median %v s, want %v s (the bin of %v s)", res.One.P50, want, x)
	}
	// The last arrival: floor((10^12 - 1)·6·10^10/10^12) = floor((10^12 -
	// 1)·3/50) ns.
	if want := engine.Time((n - 1) * 3 / 50).Seconds(); res.Span != want {
		t.Errorf("span %v s, want %v s", res.Span, want)
	}
}

// TestCountsBeyondClock: 20 jobs at one instant (an interval of 1 ns)
// into a bucket of one token every 10^18 ns (r = 10^-9 tokens/s, b = 2):
// job i >= 2 is released (i - 1)·10^18 ns later, beyond the clock (2^63 -
// 1 ns, about 9.2·10^18) from job 11 on; in the split (a token every
// 2·10^18 ns, b = 1 each) job i is the (i div 2)-th of its sub-bucket,
// released (i div 2)·2·10^18 ns later, beyond from job 10 on. Both paths
// fail at job 10 with the same error, the closed form at once
// (buckets.SpreadBeyondClock).
func TestCountsBeyondClock(t *testing.T) {
	spec := RunSpec{One: pp("1/1000000000", "2"), Subs: []buckets.Params{pp("1/2000000000", "1"), pp("1/2000000000", "1")}, Dispatch: "rr", Order: buckets.FCFS, Seed: 1}
	defer func(j int64) { countsClosedFormJobs = j }(countsClosedFormJobs)
	var msgs []string
	for _, threshold := range []int64{math.MaxInt64, 1} {
		countsClosedFormJobs = threshold
		tr, err := arrivals.NewTrace(strings.NewReader("20\n"), "c.txt", arrivals.TraceOptions{Format: arrivals.FormatCounts, Interval: 1})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), spec, tr, nil)
		if !errors.Is(err, experiments.ErrOverflow) || !errors.Is(err, experiments.ErrInput) {
			t.Fatalf("threshold %d: %v, want an overflow about the input", threshold, err)
		}
		msgs = append(msgs, err.Error())
	}
	if msgs[0] != msgs[1] || !strings.Contains(msgs[0], "job 10 ") {
		t.Fatalf("per job: %s\nclosed form: %s\nwant the same, about job 10", msgs[0], msgs[1])
	}
}
