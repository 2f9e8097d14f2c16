package arrivals

import (
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/ratesim/ratesim/engine"
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

func list(ts ...float64) *listProcess {
	l := &listProcess{}
	for i, t := range ts {
		l.as = append(l.as, Arrival{T: engine.Time(t), Sub: -1, Line: i + 1})
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

// TestSuperposeOrder merges by hand: ties go to the process listed first,
// and each process keeps its own order.
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
	s, err := Scale(list(1, 2, 4), 0.5)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := readAll(s)
	if ts := times(got); !slices.Equal(ts, []float64{0.5, 1, 2}) {
		t.Errorf("scaled times %v, want 0.5 1 2", ts)
	}
	w, err := Window(list(0, 1, 2, 3, 4, 5), 2, 4)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = readAll(w)
	// [2, 4) keeps 2 and 3, shifted by 2.
	if ts := times(got); !slices.Equal(ts, []float64{0, 1}) || !slices.Equal(lines(got), []int{3, 4}) {
		t.Errorf("window [2, 4): times %v lines %v, want 0 1 and lines 3 4", ts, lines(got))
	}
	for _, f := range []float64{0, -1, math.NaN(), math.Inf(1)} {
		if _, err := Scale(list(), f); err == nil {
			t.Errorf("Scale(%g) error = nil", f)
		}
	}
	for _, w := range [][2]float64{{-1, 2}, {2, 2}, {3, 1}, {math.NaN(), 1}} {
		if _, err := Window(list(), w[0], w[1]); err == nil {
			t.Errorf("Window(%v) error = nil", w)
		}
	}
	ov, _ := Scale(list(math.MaxFloat64), 2)
	if _, err := ov.Next(); err == nil {
		t.Error("scaling MaxFloat64 by 2: error = nil, want overflow")
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
	base := make([]float64, 20_000)
	for i := range base {
		base[i] = float64(i)
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
			delays[i] = float64(a.T) - base[a.Line-1]
		}
		q := distuv.Uniform{Min: 0, Max: 3}.Quantile
		if dist == "exp" {
			q = distuv.Exponential{Rate: 1.0 / 3}.Quantile
		}
		checkKS(t, dist+" jitter delays", delays, q)
	}
	j, _ := Jitter(list(1, 1, 2), 0, "", nil)
	got, _ := readAll(j)
	if !slices.Equal(lines(got), []int{1, 2, 3}) || !slices.Equal(times(got), []float64{1, 1, 2}) {
		t.Errorf("zero jitter: %v, want the input", got)
	}
	if _, err := Jitter(list(), -1, "", nil); err == nil {
		t.Error("Jitter(-1) error = nil")
	}
	if _, err := Jitter(list(), 1, "normal", rand.NewPCG(1, 1)); err == nil {
		t.Error("Jitter(dist normal) error = nil")
	}
	if _, err := Jitter(list(), 1, "", nil); err == nil {
		t.Error("Jitter with a nil source: error = nil")
	}
}
