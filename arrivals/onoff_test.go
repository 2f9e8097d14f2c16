package arrivals

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// birthDeath returns the MMPP equivalent to n exponential on-off sources
// with Poisson emission: state k is the number of sources ON, with
// arrival rate k·peak, k -> k+1 at (n-k)/off and k -> k-1 at k/on.
func birthDeath(n int, peak, on, off float64) ([]float64, [][]float64) {
	lambda := make([]float64, n+1)
	q := make([][]float64, n+1)
	for k := range q {
		lambda[k] = float64(k) * peak
		q[k] = make([]float64, n+1)
		if k < n {
			q[k][k+1] = float64(n-k) / off
		}
		if k > 0 {
			q[k][k-1] = float64(k) / on
		}
	}
	return lambda, q
}

// TestOnOffExponential checks 3 exponential on-off sources against the
// 4-state birth-death MMPP they form: the mean rate N·peak·on/(on+off)
// and the gap SCV from the MAP formula, with batch means as in
// TestMMPPMoments (the mixing time is about 1/(1/on + 1/off) = 0.67 s).
func TestOnOffExponential(t *testing.T) {
	n := 800_000
	if testing.Short() {
		n = 200_000
	}
	p := OnOffParams{N: 3, Peak: 2, MeanOn: 1, MeanOff: 2}
	o, err := NewOnOff(p, rand.NewPCG(4, 4))
	if err != nil {
		t.Fatal(err)
	}
	lambda, q := birthDeath(3, 2, 1, 2)
	_, rate, _, scv := mapMoments(lambda, q)
	if math.Abs(rate-p.MeanRate()) > 1e-9 || math.Abs(rate-2) > 1e-9 { // 3·2·1/3
		t.Fatalf("mean rates %v (MAP) and %v (MeanRate), want 2 jobs/s", rate, p.MeanRate())
	}
	ts := drawTimes(t, o, n)
	mean := func(xs []float64) float64 {
		s := 0.0
		for _, x := range xs {
			s += x
		}
		return s / float64(len(xs))
	}
	got, se := batchMeansSE(rateCounts(ts, 20), 20, mean)
	if math.Abs(got-rate) > 4.5*se {
		t.Errorf("mean rate %v jobs/s, want %v within 4.5 SE (%.3g)", got, rate, 4.5*se)
	}
	gotSCV, se := batchMeansSE(gapsOf(ts), 20, sampleSCV)
	if math.Abs(gotSCV-scv) > 4.5*se {
		t.Errorf("gap SCV %v, want %v (MAP formula of the birth-death MMPP) within 4.5 SE (%.3g)", gotSCV, scv, 4.5*se)
	}
}

// TestOnOffParetoAndPeriodic checks the mean rate of Pareto on-off
// sources (α = 2.5, finite variance periods, so batch means over 20 time
// blocks of about 1e4 mean cycles each apply) and of periodic emission
// with a random phase, which keeps the mean rate N·peak·on/(on+off)
// exactly.
func TestOnOffParetoAndPeriodic(t *testing.T) {
	n := 600_000
	if testing.Short() {
		n = 150_000
	}
	for _, p := range []OnOffParams{
		{N: 10, Peak: 1, MeanOn: 1, MeanOff: 4, Dist: "pareto", Alpha: 2.5},
		{N: 4, Peak: 5, MeanOn: 0.5, MeanOff: 1.5, Emit: "periodic"},
		{N: 4, Peak: 5, MeanOn: 0.5, MeanOff: 1.5, Emit: "periodic", Dist: "pareto", Alpha: 3},
	} {
		o, err := NewOnOff(p, rand.NewPCG(8, 1))
		if err != nil {
			t.Fatal(err)
		}
		ts := drawTimes(t, o, n)
		mean := func(xs []float64) float64 {
			s := 0.0
			for _, x := range xs {
				s += x
			}
			return s / float64(len(xs))
		}
		got, se := batchMeansSE(rateCounts(ts, 20), 20, mean)
		if math.Abs(got-p.MeanRate()) > 4.5*se {
			t.Errorf("%+v: mean rate %v jobs/s, want %v within 4.5 SE (%.3g)", p, got, p.MeanRate(), 4.5*se)
		}
	}
}

// TestOnOffResidual checks the equilibrium residual of a Pareto period
// against its CDF by KS: P(R <= x) = x/m for x <= xm and
// 1 - (xm/x)^(α-1)/α beyond, inverted here by the test.
func TestOnOffResidual(t *testing.T) {
	p := OnOffParams{N: 1, Peak: 1, MeanOn: 3, MeanOff: 1, Dist: "pareto", Alpha: 1.8}
	o, err := NewOnOff(p, rand.NewPCG(2, 2))
	if err != nil {
		t.Fatal(err)
	}
	a, m := p.Alpha, p.MeanOn
	xm := m * (a - 1) / a
	q := func(u float64) float64 {
		if u <= xm/m {
			return u * m
		}
		return xm * math.Pow(a*(1-u), -1/(a-1))
	}
	r := make([]float64, 20_000)
	for i := range r {
		r[i] = o.residual(true)
	}
	checkKS(t, "pareto residual", r, q)
}

func TestNewOnOffInvalid(t *testing.T) {
	ok := OnOffParams{N: 2, Peak: 1, MeanOn: 1, MeanOff: 1}
	for _, tc := range []struct {
		mod  func(*OnOffParams)
		want string
	}{
		{func(p *OnOffParams) { p.N = 0 }, "n 0 "},
		{func(p *OnOffParams) { p.N = MaxOnOffSources + 1 }, "n 1048577 "},
		{func(p *OnOffParams) { p.Peak = 0 }, "peak 0 "},
		{func(p *OnOffParams) { p.MeanOn = math.NaN() }, "on NaN "},
		{func(p *OnOffParams) { p.MeanOff = math.Inf(1) }, "off +Inf "},
		{func(p *OnOffParams) { p.Dist = "weibull" }, "dist \"weibull\""},
		{func(p *OnOffParams) { p.Dist = "pareto"; p.Alpha = 1 }, "alpha 1 "},
		{func(p *OnOffParams) { p.Emit = "batch" }, "emit \"batch\""},
	} {
		p := ok
		tc.mod(&p)
		_, err := NewOnOff(p, rand.NewPCG(1, 1))
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: on-off") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("NewOnOff(%+v) error = %v, want one containing %q", p, err, tc.want)
		}
	}
	if _, err := NewOnOff(ok, nil); err == nil {
		t.Error("NewOnOff with a nil source: error = nil")
	}
}
