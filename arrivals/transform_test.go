package arrivals

import (
	"errors"
	"io"
	"math"
	"math/big"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
	"github.com/ratesim/ratesim/exact"
)

// listProcess yields fixed arrivals, then io.EOF (or err).
type listProcess struct {
	as  []Arrival
	i   int
	err error
}

func (l *listProcess) Next() (Arrival, error) {
	if l.i >= len(l.as) {
		if l.err != nil {
			return Arrival{}, l.err
		}
		return Arrival{}, io.EOF
	}
	l.i++
	return l.as[l.i-1], nil
}

func list(ts ...engine.Time) *listProcess {
	l := &listProcess{}
	for i, t := range ts {
		l.as = append(l.as, Arrival{T: t, Sub: -1, Line: i + 1})
	}
	return l
}

// readAll reads p to io.EOF or an error.
func readAll(p Process) ([]Arrival, error) {
	var all []Arrival
	for {
		a, err := p.Next()
		if err == io.EOF {
			return all, nil
		}
		if err != nil {
			return all, err
		}
		all = append(all, a)
	}
}

func lines(as []Arrival) []int {
	var ls []int
	for _, a := range as {
		ls = append(ls, a.Line)
	}
	return ls
}

// TestSuperposeOrder merges by hand: ties (equal nanoseconds) go to the
// process listed first, and each process keeps its own order.
func TestSuperposeOrder(t *testing.T) {
	a := list(0, 1, 1, 3) // lines 1..4
	b := &listProcess{as: []Arrival{{T: 1, Line: 11}, {T: 2, Line: 12}}}
	c := list()
	got, err := readAll(Superpose(a, b, c))
	if err != nil {
		t.Fatal(err)
	}
	// t: 0(a1) 1(a2) 1(a3) 1(b11) 2(b12) 3(a4)
	if want := []int{1, 2, 3, 11, 12, 4}; !slices.Equal(lines(got), want) {
		t.Errorf("merged lines %v, want %v", lines(got), want)
	}
	boom := errors.New("boom")
	p := Superpose(list(1), &listProcess{as: []Arrival{{T: 0}}, err: boom})
	if _, err := readAll(p); err != boom {
		t.Errorf("error %v, want boom", err)
	}
	if _, err := p.Next(); err != boom {
		t.Errorf("Next after the error = %v, want boom again", err)
	}
}

// TestSuperposePoisson: the superposition of Poisson processes of rates
// 0.5 and 1.5 is Poisson of rate 2 (KS on the gaps).
func TestSuperposePoisson(t *testing.T) {
	p1, _ := NewPoisson(0.5, rand.NewPCG(1, 1))
	p2, _ := NewPoisson(1.5, rand.NewPCG(1, 2))
	ts := drawTimes(t, Superpose(p1, p2), 20_001)
	checkKS(t, "superposed Poisson gaps", gapsOf(ts), distuv.Exponential{Rate: 2}.Quantile)
}

func TestScaleWindow(t *testing.T) {
	const s1, ms = engine.Second, engine.Millisecond
	s, err := Scale(list(s1, 2*s1, 4*s1), 0.5)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(s)
	if ts := times(got); !slices.Equal(ts, []engine.Time{500 * ms, s1, 2 * s1}) {
		t.Errorf("scaled times %v, want 0.5 1 2 s", ts)
	}
	w, err := Window(list(0, s1, 2*s1, 3*s1, 4*s1, 5*s1), 2*s1, 4*s1)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = readAll(w)
	// [2, 4) s keeps 2 and 3 s, shifted by 2 s.
	if ts := times(got); !slices.Equal(ts, []engine.Time{0, s1}) || !slices.Equal(lines(got), []int{3, 4}) {
		t.Errorf("window [2, 4): times %v lines %v, want 0 1 s and lines 3 4", ts, lines(got))
	}
	// The edges are exact: 2 s - 1 ns is out, 4 s - 1 ns is in, 4 s is out.
	w, _ = Window(list(2*s1-1, 2*s1, 4*s1-1, 4*s1), 2*s1, 4*s1)
	got, _ = readAll(w)
	if ts := times(got); !slices.Equal(ts, []engine.Time{0, 2*s1 - 1}) {
		t.Errorf("window edges: times %v, want 0 and 2 s - 1 ns", ts)
	}
	w, _ = Window(list(s1, 100*s1), 0, engine.Forever)
	if got, _ := readAll(w); len(got) != 2 {
		t.Errorf("window [0, Forever): %d arrivals, want 2", len(got))
	}
	for _, f := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := Scale(list(), f); err == nil {
			t.Errorf("Scale(%g) error = nil", f)
		}
	}
	for _, w := range [][2]engine.Time{{-1, 2}, {2, 2}, {3, 1}} {
		if _, err := Window(list(), w[0], w[1]); err == nil {
			t.Errorf("Window(%v) error = nil", w)
		}
	}
	ov, _ := Scale(list(engine.Forever/2+1), 2)
	if _, err := ov.Next(); err == nil || !strings.Contains(err.Error(), "beyond the range") {
		t.Errorf("scaling 2^62 ns by 2: error = %v, want one beyond the range", err)
	}
}

// TestScaleRounding checks T' = factor·T rounded to the nearest
// nanosecond, halves up, from the exact float64 value of factor:
// 0.5·3 ns = 1.5 -> 2; 0.5·5 = 2.5 -> 3; 0.25·3 = 0.75 -> 1; 0.1·10 ns:
// the float64 0.1 is 0.1000000000000000055..., so 1.000...055 -> 1;
// 1e-30·(2^62) rounds to 0; 3·(2^62 - 1) overflows. The result is compared
// with math/big on random times and factors.
func TestScaleRounding(t *testing.T) {
	for _, tc := range []struct {
		t      engine.Time
		factor float64
		want   engine.Time
		ok     bool
	}{
		{3, 0.5, 2, true}, {5, 0.5, 3, true}, {3, 0.25, 1, true}, {10, 0.1, 1, true},
		{1 << 62, 1e-30, 0, true}, {1<<62 - 1, 3, 0, false}, {0, 1e300, 0, true},
		{7, 1e300, 0, false}, {1 << 40, 2, 1 << 41, true},
	} {
		frac, exp := math.Frexp(tc.factor)
		got, ok := scaleTime(tc.t, uint64(math.Ldexp(frac, 53)), exp-53)
		if ok != tc.ok || ok && got != tc.want {
			t.Errorf("scaleTime(%d, %g) = %d, %v, want %d, %v", tc.t, tc.factor, got, ok, tc.want, tc.ok)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 100_000 {
		tm := engine.Time(rng.Int64() >> rng.IntN(63))
		f := math.Ldexp(1+rng.Float64(), rng.IntN(140)-100)
		frac, exp := math.Frexp(f)
		got, ok := scaleTime(tm, uint64(math.Ldexp(frac, 53)), exp-53)
		// floor(t·f + 1/2) by math/big.
		x := new(big.Rat).Mul(big.NewRat(int64(tm), 1), new(big.Rat).SetFloat64(f))
		x.Add(x, big.NewRat(1, 2))
		want := new(big.Int).Quo(x.Num(), x.Denom()) // x >= 0: truncation is floor
		if fits := want.IsInt64(); ok != fits || ok && got != engine.Time(want.Int64()) {
			t.Fatalf("scaleTime(%d, %g) = %d, %v, want %v (fits %v)", tm, f, got, ok, want, fits)
		}
	}
}

// TestThin checks independent thinning of a gamma renewal process of SCV
// c = 4 with keep probability p = 0.25: the rate is multiplied by p and
// the gaps (a geometric sum of gaps) have SCV p·c + 1 - p = 1.75. The
// tolerances are 5 standard errors: the rate's relative SE is
// sqrt(SCV/n), the SCV's from 20 batch means.
func TestThin(t *testing.T) {
	const n, p = 200_000, 0.25
	g, _ := GapDistribution("gamma", 2, 4, rand.NewPCG(1, 1))
	r, _ := NewRenewal(g)
	th, err := Thin(r, p, rand.NewPCG(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	ts := drawTimes(t, th, n)
	want := p*4 + 1 - p
	if got, se := float64(n)/ts[n-1], math.Sqrt(want/n); math.Abs(got/(2*p)-1) > 5*se {
		t.Errorf("thinned rate %v, want %v within 5 relative SE", got, 2*p)
	}
	scv, se := batchMeansSE(gapsOf(ts), 20, sampleSCV)
	if math.Abs(scv-want) > 5*se {
		t.Errorf("thinned SCV %v, want %v within 5 SE (%.3g)", scv, want, 5*se)
	}
	for _, q := range []float64{0, -0.5, 1.5, math.NaN()} {
		if _, err := Thin(r, q, rand.NewPCG(1, 1)); err == nil {
			t.Errorf("Thin(p = %g) error = nil", q)
		}
	}
	all, _ := readAll(mustThin(t, list(1, 2, 3), 1))
	if len(all) != 3 {
		t.Errorf("Thin(p = 1) kept %d of 3", len(all))
	}
}

func mustThin(t *testing.T, p Process, keep float64) Process {
	th, err := Thin(p, keep, rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	return th
}

// TestJitter: jitter keeps every arrival, delays each by [0, J], and
// yields them in order; the delays of a periodic process (spacing 1 s,
// J = 3 s) pass a KS test against uniform [0, 3]; zero jitter is the
// identity; ties keep input order.
func TestJitter(t *testing.T) {
	base := make([]engine.Time, 20_000)
	for i := range base {
		base[i] = engine.Time(i) * engine.Second
	}
	for _, dist := range []string{"uniform", "exp"} {
		j, err := Jitter(list(base...), 3, dist, rand.NewPCG(4, 4))
		if err != nil {
			t.Fatal(err)
		}
		got, err := readAll(j)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(base) {
			t.Fatalf("%s: %d arrivals, want %d", dist, len(got), len(base))
		}
		delays := make([]float64, len(got))
		for i, a := range got {
			if i > 0 && a.T < got[i-1].T {
				t.Fatalf("%s: arrival %d at %v before %v", dist, i, a.T, got[i-1].T)
			}
			delays[i] = (a.T - base[a.Line-1]).Seconds()
		}
		q := distuv.Uniform{Min: 0, Max: 3}.Quantile
		if dist == "exp" {
			q = distuv.Exponential{Rate: 1.0 / 3}.Quantile
		}
		checkKS(t, dist+" jitter delays", delays, q)
	}
	j, _ := Jitter(list(1, 1, 2), 0, "", nil)
	got, _ := readAll(j)
	if !slices.Equal(lines(got), []int{1, 2, 3}) || !slices.Equal(times(got), []engine.Time{1, 1, 2}) {
		t.Errorf("zero jitter: %v, want the input", got)
	}
	for _, bad := range []float64{-1, math.NaN(), math.Inf(1), 1e300, MaxJitter * 1.01} {
		if _, err := Jitter(list(), bad, "", rand.NewPCG(1, 1)); err == nil || !strings.Contains(err.Error(), "want 0 <= jitter <= 1e+08 s") {
			t.Errorf("Jitter(%g) error = %v, want one giving the bound", bad, err)
		}
	}
	if _, err := Jitter(list(), 1, "normal", rand.NewPCG(1, 1)); err == nil {
		t.Error("Jitter(dist normal) error = nil")
	}
	if _, err := Jitter(list(), 1, "", nil); err == nil {
		t.Error("Jitter with a nil source: error = nil")
	}
}

// TestJitterHeld: a jitter that would hold more than MaxJitterHeld
// arrivals at once is an error from Next rather than unbounded memory.
// Arrivals 1 ns apart with jitter 1 s hold about 1e9 of them; the bound
// is lowered to 1000 for the test.
func TestJitterHeld(t *testing.T) {
	p, _ := NewPeriodic(exact.NewRat(1, 1e9), exact.Rat{})
	j, err := Jitter(p, 1, "uniform", rand.NewPCG(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	j.(*jittered).maxHeld = 1000
	_, err = j.Next()
	if err == nil || !strings.Contains(err.Error(), "holds more than 1000 arrivals at once") {
		t.Fatalf("error = %v, want one about holding more than MaxJitterHeld", err)
	}
	if _, err2 := j.Next(); err2 != err {
		t.Errorf("Next after the error = %v, want the same error", err2)
	}
}
