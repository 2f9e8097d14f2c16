package splitstudy

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/ratesim/ratesim/arrivals"
	"github.com/ratesim/ratesim/buckets"
	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
	"github.com/ratesim/ratesim/experiments"
	"github.com/ratesim/ratesim/systems"
)

// sliceProc is an arrival process read from slices (subs may be nil).
type sliceProc struct {
	times []engine.Time
	subs  []int
	i     int
}

func (p *sliceProc) Next() (arrivals.Arrival, error) {
	if p.i == len(p.times) {
		return arrivals.Arrival{}, io.EOF
	}
	a := arrivals.Arrival{T: p.times[p.i], Sub: -1, Key: uint64(p.i) * 0x9e3779b97f4a7c15, Line: p.i + 2}
	if p.subs != nil {
		a.Sub = p.subs[p.i]
	}
	p.i++
	return a, nil
}

// TestJobsCSV: the four arrivals at 0 with r = 1, b = 2 and the
// round-robin split (0.5, 1) + (0.5, 1); delays worked by hand in
// buckets.TestFourAtZero: one bucket 0, 0, 1, 2; split 0, 0, 2, 2.
func TestJobsCSV(t *testing.T) {
	spec := RunSpec{One: pp("1", "2"), Subs: []buckets.Params{pp("0.5", "1"), pp("0.5", "1")}, Dispatch: "rr"}
	var out bytes.Buffer
	res, err := Run(context.Background(), spec, &sliceProc{times: []engine.Time{0, 0, 0, 0}}, &out)
	if err != nil {
		t.Fatal(err)
	}
	want := "job,arrival_s,sub_bucket,delay_one_s,delay_split_s\n0,0,0,0,0\n1,0,1,0,0\n2,0,0,1,2\n3,0,1,2,2\n"
	if out.String() != want {
		t.Errorf("jobs CSV:\n%s\nwant:\n%s", out.String(), want)
	}
	// Hand-computed statistics: mean 3/4 and 4/4, max 2, totals 3 and 4.
	if res.One.Mean != 0.75 || res.Split.Mean != 1 || res.One.Max != 2 || res.One.Total != 3 || res.Split.Total != 4 || res.One.Delayed != 2 {
		t.Errorf("stats one %+v split %+v", res.One, res.Split)
	}
	// Exact nearest-rank quantiles of the sorted one-bucket delays 0, 0,
	// 1, 2: p50 is the ceil(0.5·4) = 2nd smallest, 0; p90 and p99 the
	// ceil(3.6) = ceil(3.96) = 4th, 2.
	if res.One.P50 != 0 || res.One.P90 != 2 || res.One.P99 != 2 || res.One.Quantiles != "exact" {
		t.Errorf("p50 = %v, p90 = %v, p99 = %v (%s), want 0, 2, 2 exact", res.One.P50, res.One.P90, res.One.P99, res.One.Quantiles)
	}
	// 8 events: 4 arrivals and 2 grants in each system.
	if !res.Check.Held() || res.Check.Events != 8 {
		t.Errorf("check %+v, want held with 8 events", res.Check)
	}
	// S > 0 from the one bucket's first waiting job at 0: S^(k) - S is 0
	// there (both 0) and grows; the smallest slack is 0 at t = 0.
	if c := res.Check; c.MinSlack == nil || *c.MinSlack != 0 || *c.MinSlackAt != 0 {
		t.Errorf("slack %v at %v, want 0 at 0", c.MinSlack, c.MinSlackAt)
	}
	if res.Span != 0 || res.Drain != 2 {
		t.Errorf("span %v, drain %v; want 0 and 2 s (the last grant, in both systems)", res.Span, res.Drain)
	}
}

// TestWarmup leaves the first jobs out of the statistics only: with the
// four arrivals of TestJobsCSV and a warm-up of 2, the one bucket's
// measured delays are 1 and 2 (mean 1.5) and the split's 2 and 2.
func TestWarmup(t *testing.T) {
	spec := RunSpec{One: pp("1", "2"), Subs: []buckets.Params{pp("0.5", "1"), pp("0.5", "1")}, Dispatch: "rr", Warmup: 2}
	res, err := Run(context.Background(), spec, &sliceProc{times: []engine.Time{0, 0, 0, 0}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.One.Jobs != 2 || res.One.Mean != 1.5 || res.Split.Mean != 2 || res.Check.Events != 8 {
		t.Errorf("one %+v split %+v check %+v", res.One, res.Split, res.Check)
	}
}

// readJobs parses a jobs CSV into rows of floats.
func readJobs(t *testing.T, b []byte) [][]float64 {
	t.Helper()
	recs, err := csv.NewReader(bytes.NewReader(b)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	for _, r := range recs[1:] {
		row := make([]float64, len(r))
		for i, f := range r {
			if row[i], err = strconv.ParseFloat(f, 64); err != nil {
				t.Fatal(err)
			}
		}
		rows = append(rows, row)
	}
	return rows
}

// TestFastMatchesEngineViolations runs the negative control (bursts adding
// to more than b) on both paths: the same violations must be counted.
func TestFastMatchesEngineViolations(t *testing.T) {
	spec := RunSpec{One: pp("1", "1"), Subs: []buckets.Params{pp("0.5", "1"), pp("0.5", "1")}, AllowUnequal: true, Dispatch: "column"}
	times := []engine.Time{0, 0, 500 * engine.Millisecond, engine.Second, engine.Second, 3 * engine.Second}
	subs := []int{0, 1, 0, 1, 0, 1}
	fr, err := Run(context.Background(), spec, &sliceProc{times: times, subs: subs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec.Engine = true
	er, err := Run(context.Background(), spec, &sliceProc{times: times, subs: subs}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if fr.Check.Violations == 0 || !cmp.Equal(fr.Check, er.Check) {
		t.Errorf("fast %+v, engine %+v", fr.Check, er.Check)
	}
}

// TestFastMatchesEngine cross-checks the fast path (Run) with the general
// engine path (RunEngine) on random instances: every dispatch policy but
// column, every service order, k from 1 to 5, arrivals with ties and gaps.
// Both paths drive the same bucket code with the same random streams, so
// per-job delays must be identical and S within rounding.
func TestFastMatchesEngine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	dispatches := []string{"rr", "random", "hash", "least-loaded"}
	for inst := range 150 {
		k := 1 + rng.IntN(5)
		one := pp(strconv.FormatFloat(0.5+float64(rng.IntN(30))/10, 'g', -1, 64), strconv.Itoa(k+rng.IntN(6)))
		subs := randomSplit(rng, one, k)
		spec := RunSpec{One: one, Subs: subs, Dispatch: dispatches[rng.IntN(4)], Order: buckets.Order(rng.IntN(3)), Seed: rng.Uint64()}
		var times []engine.Time
		at := engine.Time(0)
		for range 200 + rng.IntN(200) {
			if rng.IntN(3) > 0 {
				at += engine.Time(rng.ExpFloat64()/one.Rate.Float64()/1.1*1e3) * engine.Millisecond // a millisecond grid
			}
			times = append(times, at)
		}
		var fo, eo bytes.Buffer
		fr, err := Run(context.Background(), spec, &sliceProc{times: times}, &fo)
		if err != nil {
			t.Fatal(err)
		}
		spec.Engine = true
		er, err := Run(context.Background(), spec, &sliceProc{times: times}, &eo)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(fo.Bytes(), eo.Bytes()) {
			t.Fatalf("instance %d (%+v): jobs CSV differs between the fast and engine paths", inst, spec)
		}
		if fr.One != er.One || fr.Split != er.Split {
			t.Fatalf("instance %d: stats differ: fast %+v / %+v, engine %+v / %+v", inst, fr.One, fr.Split, er.One, er.Split)
		}
		if !fr.Check.Held() || !er.Check.Held() {
			t.Fatalf("instance %d: check failed: fast %+v engine %+v", inst, fr.Check, er.Check)
		}
		if !cmp.Equal(er.Check, fr.Check) {
			t.Fatalf("instance %d: engine check %+v, fast path %+v", inst, er.Check, fr.Check)
		}
		// S(∞) is the total delay in each system: it must agree with the
		// per-job rows summed independently here.
		var s1, sk float64
		for _, r := range readJobs(t, fo.Bytes()) {
			s1 += r[3]
			sk += r[4]
		}
		if math.Abs(s1-fr.One.Total) > 1e-9*math.Max(1, s1) || math.Abs(sk-fr.Split.Total) > 1e-9*math.Max(1, sk) {
			t.Fatalf("instance %d: totals %v, %v; rows sum to %v, %v", inst, fr.One.Total, fr.Split.Total, s1, sk)
		}
	}
}

// randomSplit splits one into k sub-buckets with random integer weights,
// exactly, every b_l >= 1 (one.Burst >= k is required).
func randomSplit(rng *rand.Rand, one buckets.Params, k int) []buckets.Params {
	subs := make([]buckets.Params, k)
	wr := make([]int64, k)
	wb := make([]int64, k)
	var sr, sb int64
	for l := range k {
		wr[l], wb[l] = 1+rng.Int64N(9), rng.Int64N(10)
		sr += wr[l]
		sb += wb[l]
	}
	spare, _ := one.Burst.Sub(exact.Int(int64(k)))
	for l := range k {
		r, _ := one.Rate.Mul(exact.NewRat(wr[l], sr))
		b := exact.Int(1)
		if sb > 0 {
			x, _ := spare.Mul(exact.NewRat(wb[l], sb))
			b, _ = b.Add(x)
		} else if l == 0 {
			b, _ = b.Add(spare)
		}
		subs[l] = buckets.Params{Rate: r, Burst: b}
	}
	return subs
}

// pp returns the bucket written (rate, burst), exactly.
func pp(rate, burst string) buckets.Params {
	p, err := buckets.ParseParams(rate, burst)
	if err != nil {
		panic(err)
	}
	return p
}

// TestPollaczekKhinchine: with burst 1 a token bucket is exactly an M/D/1
// queue under Poisson arrivals (eq. (1) with b = 1 gives d = U(a-)), whose
// mean waiting time is ρ/(2r(1-ρ)) (Pollaczek-Khinchine). At r = 1 that is
// 0.5 s at ρ = 0.5 and 2 s at ρ = 0.8.
//
// Tolerance: R = 10 independent replications of n jobs each (seeds 1..10);
// the replication means are independent, so their standard error SE comes
// from their spread and |grand mean - PK| <= 4.3·SE fails with probability
// about 0.002 (Student t, 9 degrees of freedom). The run length is chosen so
// that 4.3·SE stays below 3% of the target: the test is both sharp and
// stable.
func TestPollaczekKhinchine(t *testing.T) {
	if testing.Short() {
		t.Skip("long statistical test (-short)")
	}
	for _, tc := range []struct {
		rho float64
		n   int64
	}{{0.5, 200_000}, {0.8, 1_000_000}} {
		want := tc.rho / (2 * (1 - tc.rho))
		const R = 10
		var means [R]float64
		for i := range R {
			spec := RunSpec{One: pp("1", "1"), Subs: []buckets.Params{pp("1", "1")}, Dispatch: "rr", Seed: uint64(i + 1), MaxJobs: tc.n}
			proc, err := arrivals.NewPoisson(tc.rho, experiments.Source(spec.Seed, systems.StreamArrivals))
			if err != nil {
				t.Fatal(err)
			}
			res, err := Run(context.Background(), spec, proc, nil)
			if err != nil {
				t.Fatal(err)
			}
			means[i] = res.One.Mean
		}
		var m, v float64
		for _, x := range means {
			m += x / R
		}
		for _, x := range means {
			v += (x - m) * (x - m) / (R - 1)
		}
		se := math.Sqrt(v / R)
		t.Logf("ρ = %v: mean delay %.5f s over %d x %d jobs, SE %.5f, Pollaczek-Khinchine %.5f", tc.rho, m, R, tc.n, se, want)
		if 4.3*se > 0.03*want {
			t.Errorf("ρ = %v: standard error %v too large for a sharp test", tc.rho, se)
		}
		if math.Abs(m-want) > 4.3*se {
			t.Errorf("ρ = %v: mean delay %v, Pollaczek-Khinchine %v (SE %v)", tc.rho, m, want, se)
		}
	}
}

// failingWriter accepts n bytes and then fails every write.
type failingWriter struct{ n int }

func (w *failingWriter) Write(b []byte) (int, error) {
	if len(b) > w.n {
		k := w.n
		w.n = 0
		return k, errors.New("disk full")
	}
	w.n -= len(b)
	return len(b), nil
}

// TestJobsOutErrors: a write error of the per-job rows (written by their
// own goroutine) is Run's error, whether it happens mid-run or at the
// final flush, and a run that fails for another reason (a cancelled
// context) stops the writer and returns.
func TestJobsOutErrors(t *testing.T) {
	one := pp("1", "10")
	subs, _ := buckets.EqualSplit(one, 2)
	spec := RunSpec{One: one, Subs: subs, Dispatch: "rr", Seed: 1, MaxJobs: 100_000}
	// 100,000 rows are about 2.6 MB: 100 bytes and 1 MiB fail mid-run;
	// 10 rows fit the 64 KiB buffer and fail at the final flush.
	for _, c := range []struct {
		jobs int64
		room int
	}{{100_000, 0}, {100_000, 100}, {100_000, 1 << 20}, {10, 50}} {
		spec.MaxJobs = c.jobs
		proc, _ := arrivals.NewPoisson(0.9, experiments.Source(1, systems.StreamArrivals))
		if _, err := Run(context.Background(), spec, proc, &failingWriter{n: c.room}); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Errorf("%d jobs, room %d bytes: error %v, want disk full", c.jobs, c.room, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	proc, _ := arrivals.NewPoisson(0.9, experiments.Source(1, systems.StreamArrivals))
	if _, err := Run(ctx, spec, proc, io.Discard); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run: error %v, want context.Canceled", err)
	}
}

// TestSubLoads: λ = 0.9 jobs/s over sub-buckets (0.9, 5) and (0.1, 5):
// round-robin gives each 0.45 jobs/s, loads 0.5 and 4.5; weighted by the
// rates gives 0.81 and 0.09 jobs/s, both at load 0.9; shares 0.5/0.5 give
// 0.5 and 4.5 again; hash depends on the keys: nil.
func TestSubLoads(t *testing.T) {
	spec := RunSpec{One: buckets.Params{Rate: exact.Int(1), Burst: exact.Int(10)},
		Subs: []buckets.Params{{Rate: exact.NewRat(9, 10), Burst: exact.Int(5)}, {Rate: exact.NewRat(1, 10), Burst: exact.Int(5)}}}
	for _, tc := range []struct {
		dispatch string
		shares   []float64
		want     []float64
	}{
		{"rr", nil, []float64{0.5, 4.5}},
		{"weighted", nil, []float64{0.9, 0.9}},
		{"random", nil, []float64{0.9, 0.9}},
		{"weighted", []float64{0.5, 0.5}, []float64{0.5, 4.5}},
		{"hash", nil, nil},
		{"least-loaded", nil, nil},
	} {
		spec.Dispatch, spec.Shares = tc.dispatch, tc.shares
		got := spec.SubLoads(0.9)
		if len(got) != len(tc.want) {
			t.Errorf("%s %v: loads %v, want %v", tc.dispatch, tc.shares, got, tc.want)
			continue
		}
		for l := range got {
			if math.Abs(got[l]-tc.want[l]) > 1e-12 {
				t.Errorf("%s %v: loads %v, want %v", tc.dispatch, tc.shares, got, tc.want)
			}
		}
	}
}
