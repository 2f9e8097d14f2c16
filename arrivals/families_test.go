package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"gonum.org/v1/gonum/stat/distuv"
)

// rawMoments returns E[X^j], j = 0..4, of a distribution returned by
// GapDistribution, from the closed forms of its family (independent of
// the sampler): Γ(α+j)/(Γ(α)β^j) for gamma, λ^j·Γ(1+j/k) for Weibull,
// exp(jμ + j²σ²/2) for the log-normal, xm^j·α/(α-j) for Pareto (+Inf for
// j >= α), (b^(j+1) - a^(j+1))/((j+1)(b-a)) for uniform, j!/λ^j for the
// exponential.
func rawMoments(d distuv.Rander) [5]float64 {
	var m [5]float64
	for j := range 5 {
		x := float64(j)
		switch d := d.(type) {
		case distuv.Exponential:
			m[j] = math.Gamma(x+1) / math.Pow(d.Rate, x)
		case distuv.Gamma:
			a, _ := math.Lgamma(d.Alpha + x)
			b, _ := math.Lgamma(d.Alpha)
			m[j] = math.Exp(a-b) / math.Pow(d.Beta, x)
		case distuv.Weibull:
			m[j] = math.Pow(d.Lambda, x) * math.Gamma(1+x/d.K)
		case distuv.LogNormal:
			m[j] = math.Exp(x*d.Mu + x*x*d.Sigma*d.Sigma/2)
		case distuv.Pareto:
			m[j] = math.Inf(1)
			if x < d.Alpha {
				m[j] = math.Pow(d.Xm, x) * d.Alpha / (d.Alpha - x)
			}
		case distuv.Uniform:
			m[j] = (math.Pow(d.Max, x+1) - math.Pow(d.Min, x+1)) / ((x + 1) * (d.Max - d.Min))
		default:
			panic(fmt.Sprintf("no moments for %T", d))
		}
	}
	return m
}

// TestGapFamilies draws n gaps of each renewal family and checks: that
// gonum's own Mean and Variance of the returned distribution are the
// targets 1/rate and scv/rate² (so the parameterisation is right); that
// the gaps pass a Kolmogorov-Smirnov test against the distribution's
// quantile function; and that the empirical rate and SCV are within 5
// standard errors of the targets. The rate's relative standard error is
// sqrt(scv/n) (the mean of n i.i.d. gaps); the SCV's comes from the
// distribution's four raw moments by the delta method (scvSE), and is
// checked only where the fourth moment is finite (not for the heavy-tailed
// Pareto with α = 2.12 < 4).
func TestGapFamilies(t *testing.T) {
	n := 400_000
	if testing.Short() {
		n = 50_000
	}
	const rate = 0.9 // jobs/s
	for _, tc := range []struct {
		family string
		scv    float64
	}{
		{"exp", 1},
		{"gamma", 0.25}, {"gamma", 4},
		{"weibull", 0.5}, {"weibull", 3},
		{"lognormal", 0.5}, {"lognormal", 2},
		{"pareto", 4}, {"pareto", 0.1},
		{"uniform", 1.0 / 3}, {"uniform", 0.05},
	} {
		name := fmt.Sprintf("%s/scv=%g", tc.family, tc.scv)
		t.Run(name, func(t *testing.T) {
			d, err := GapDistribution(tc.family, rate, tc.scv, rand.NewPCG(7, 11))
			if err != nil {
				t.Fatal(err)
			}
			mv := d.(interface {
				Mean() float64
				Variance() float64
				Quantile(float64) float64
			})
			if m, v := mv.Mean(), mv.Variance(); math.Abs(m*rate-1) > 1e-9 || math.Abs(v/(m*m)-tc.scv) > 1e-9*max(1, tc.scv) {
				t.Errorf("distribution mean %v s, SCV %v; want %v s, %v", m, v/(m*m), 1/rate, tc.scv)
			}
			p, err := NewRenewal(d)
			if err != nil {
				t.Fatal(err)
			}
			ts := drawTimes(t, p, n+1)
			gaps := append([]float64{ts[0]}, gapsOf(ts)...)[:n]
			checkKS(t, name, gaps[:min(n, 20_000)], mv.Quantile)

			got := float64(n) / ts[n-1]
			if se := math.Sqrt(tc.scv / float64(n)); math.Abs(got/rate-1) > 5*se {
				t.Errorf("rate = %v jobs/s, want %v within 5 relative SE (%.3g)", got, rate, 5*se)
			}
			m := rawMoments(d)
			if math.IsInf(m[4], 1) {
				return
			}
			se := scvSE(m, n)
			if scv := sampleSCV(gaps); math.Abs(scv-tc.scv) > 5*se {
				t.Errorf("gap SCV = %v, want %v within 5 SE (%.3g)", scv, tc.scv, 5*se)
			}
		})
	}
}

// TestGapDet checks the deterministic family and the defaults.
func TestGapDet(t *testing.T) {
	d, err := GapDistribution("det", 4, math.NaN(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p, _ := NewRenewal(d)
	for i, x := range drawTimes(t, p, 5) {
		if want := 0.25 * float64(i+1); x != want { // exact in binary
			t.Errorf("arrival %d at %v s, want %v s", i, x, want)
		}
	}
	for fam, want := range map[string]float64{"exp": 1, "gamma": 1, "weibull": 1, "lognormal": 1, "pareto": 4, "uniform": 1.0 / 3} {
		d, err := GapDistribution(fam, 2, math.NaN(), rand.NewPCG(1, 1))
		if err != nil {
			t.Fatal(err)
		}
		v := d.(interface {
			Mean() float64
			Variance() float64
		})
		if scv := v.Variance() / (v.Mean() * v.Mean()); math.Abs(scv-want) > 1e-9 {
			t.Errorf("%s default SCV = %v, want %v", fam, scv, want)
		}
	}
}

// TestParetoHeavyTail checks the infinite-variance Pareto (α = 1.5): the
// parameters, and a KS test of its gaps (the mean cannot be checked with a
// CLT interval: the variance is infinite).
func TestParetoHeavyTail(t *testing.T) {
	d, err := ParetoGaps(0.5, 1.5, rand.NewPCG(3, 4))
	if err != nil {
		t.Fatal(err)
	}
	if m := d.Mean(); math.Abs(m-2) > 1e-12 {
		t.Errorf("mean gap %v s, want 2 s (rate 0.5 jobs/s)", m)
	}
	p, _ := NewRenewal(d)
	ts := drawTimes(t, p, 20_001)
	checkKS(t, "pareto alpha 1.5", gapsOf(ts), d.Quantile)
}

func TestGapDistributionInvalid(t *testing.T) {
	src := rand.NewPCG(1, 1)
	for _, tc := range []struct {
		family    string
		rate, scv float64
		want      string
		nilSource bool
	}{
		{family: "exp", rate: 1, scv: 2, want: "scv = 1"},
		{family: "gamma", rate: 1, scv: 0, want: "scv > 0"},
		{family: "uniform", rate: 1, scv: 0.5, want: "0 < scv <= 1/3"},
		{family: "det", rate: 1, scv: 1, want: "scv = 0"},
		{family: "weibull", rate: 1, scv: 1e7, want: "1e-4 <= scv <= 1e6"},
		{family: "lognormal", rate: 0, scv: 1, want: "rate 0 "},
		{family: "gamma", rate: math.Inf(1), scv: 1, want: "rate +Inf "},
		{family: "gamma", rate: 1e-320, scv: 1, want: "finite mean gap"},
		{family: "gamma", rate: 1, scv: -1, want: "scv -1 "},
		{family: "gamma", rate: 1, scv: math.Inf(1), want: "scv +Inf "},
		{family: "zipf", rate: 1, scv: 1, want: "unknown renewal dist"},
		{family: "gamma", rate: 1, scv: 1, want: "source is nil", nilSource: true},
	} {
		var s rand.Source = src
		if tc.nilSource {
			s = nil
		}
		_, err := GapDistribution(tc.family, tc.rate, tc.scv, s)
		if err == nil || !strings.HasPrefix(err.Error(), "arrivals: ") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("GapDistribution(%s, %g, %g) error = %v, want one containing %q", tc.family, tc.rate, tc.scv, err, tc.want)
		}
	}
	for _, alpha := range []float64{1, 0.5, math.NaN(), math.Inf(1)} {
		if _, err := ParetoGaps(1, alpha, src); err == nil || !strings.Contains(err.Error(), "alpha") {
			t.Errorf("ParetoGaps(alpha %g) error = %v, want one about alpha", alpha, err)
		}
	}
}

// TestWeibullShape checks the solver against shapes whose SCV is known in
// closed form: k = 1 (exponential, SCV 1) and k = 2 (Rayleigh,
// SCV 4/π - 1), and k = 0.5 (Γ(5)/Γ(3)² - 1 = 24/4 - 1 = 5).
func TestWeibullShape(t *testing.T) {
	for _, tc := range []struct{ scv, k float64 }{{1, 1}, {4/math.Pi - 1, 2}, {5, 0.5}} {
		if got := weibullShape(tc.scv); math.Abs(got-tc.k) > 1e-9 {
			t.Errorf("weibullShape(%v) = %v, want %v", tc.scv, got, tc.k)
		}
	}
}

// TestKSPower checks that the KS check has power: gamma gaps of SCV 1.2
// are rejected as exponential with the same mean at n = 20000 (the
// largest CDF distance between the two is about 0.03, so sqrt(n)·D is
// near 4, far above 1.95).
func TestKSPower(t *testing.T) {
	d, _ := GapDistribution("gamma", 1, 1.2, rand.NewPCG(5, 5))
	p, _ := NewRenewal(d)
	gaps := gapsOf(drawTimes(t, p, 20_001))
	if got := ksStatistic(gaps, distuv.Exponential{Rate: 1}.Quantile); got < 3 {
		t.Errorf("sqrt(n)·D of gamma (SCV 1.2) gaps against the exponential = %.3f, want > 3", got)
	}
	if got := ksStatistic(gaps, d.(distuv.Gamma).Quantile); got > ksCritical001 {
		t.Errorf("sqrt(n)·D against their own distribution = %.3f, want < %v", got, ksCritical001)
	}
}
