package arrivals

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"

	"gonum.org/v1/gonum/stat/distuv"
)

// GapFamilies lists the interarrival distributions of [GapDistribution], in
// the order the help text gives them.
var GapFamilies = []string{"exp", "gamma", "weibull", "lognormal", "pareto", "uniform", "det"}

// GapDistribution returns the distribution of the gaps, in seconds, of a
// renewal process of the given family whose mean rate is rate jobs/s (mean
// gap 1/rate s) and whose gaps have squared coefficient of variation
//
//	SCV = Var(G)/E[G]²
//
// Pass NaN for scv to take the family's default (1 for exp, gamma,
// weibull and lognormal; 4 for pareto; 1/3 for uniform; 0 for det). Each
// family's parameters are set from the mean m = 1/rate and the SCV c:
//
//	exp        Exponential{Rate: rate}                          c = 1 only
//	gamma      Gamma{Alpha: 1/c, Beta: rate/c}                  c > 0
//	weibull    Weibull{K: k, Lambda: m/Γ(1+1/k)}, where k solves
//	           Γ(1+2/k)/Γ(1+1/k)² - 1 = c                      1e-4 <= c <= 1e6
//	lognormal  LogNormal{Sigma: √ln(1+c), Mu: ln m - σ²/2}      c > 0
//	pareto     Pareto{Alpha: α, Xm: m(α-1)/α}, α = 1 + √(1+1/c) c > 0 (then α > 2)
//	uniform    Uniform{Min: m(1-√(3c)), Max: m(1+√(3c))}       0 < c <= 1/3
//	det        every gap is m                                   c = 0 only
//
// For a Pareto with infinite variance (shape α <= 2), use [ParetoGaps].
// The returned distribution draws from src, which must not be nil.
// Invalid arguments give an error naming the parameter and value.
//
// See [Squared coefficient of variation].
//
// [Squared coefficient of variation]: https://en.wikipedia.org/wiki/Coefficient_of_variation
func GapDistribution(family string, rate, scv float64, src rand.Source) (distuv.Rander, error) {
	if !validRate(rate) {
		return nil, fmt.Errorf("arrivals: renewal rate %g jobs/s is invalid: want finite and > 0 with a finite mean gap", rate)
	}
	if src == nil && family != "det" {
		return nil, fmt.Errorf("arrivals: renewal random source is nil")
	}
	m := 1 / rate
	if math.IsNaN(scv) {
		scv = defaultSCV(family)
	}
	if !(scv >= 0) || math.IsInf(scv, 1) {
		return nil, fmt.Errorf("arrivals: renewal scv %g is invalid: want finite and >= 0", scv)
	}
	bad := func(want string) error {
		return fmt.Errorf("arrivals: renewal dist=%s cannot have scv %g: want %s", family, scv, want)
	}
	switch family {
	case "exp":
		if scv != 1 {
			return nil, bad("scv = 1 (use gamma, weibull or lognormal for another SCV)")
		}
		return distuv.Exponential{Rate: rate, Src: src}, nil
	case "gamma":
		if scv == 0 {
			return nil, bad("scv > 0 (use det for scv = 0)")
		}
		return distuv.Gamma{Alpha: 1 / scv, Beta: rate / scv, Src: src}, nil
	case "weibull":
		if scv < 1e-4 || scv > 1e6 {
			return nil, bad("1e-4 <= scv <= 1e6")
		}
		k := weibullShape(scv)
		return distuv.Weibull{K: k, Lambda: m / math.Gamma(1+1/k), Src: src}, nil
	case "lognormal":
		if scv == 0 {
			return nil, bad("scv > 0 (use det for scv = 0)")
		}
		s2 := math.Log1p(scv)
		return distuv.LogNormal{Mu: math.Log(m) - s2/2, Sigma: math.Sqrt(s2), Src: src}, nil
	case "pareto":
		if scv == 0 {
			return nil, bad("scv > 0")
		}
		return ParetoGaps(rate, 1+math.Sqrt(1+1/scv), src)
	case "uniform":
		if scv == 0 || scv > 1.0/3 {
			return nil, bad("0 < scv <= 1/3 (uniform on [0, 2/rate] has scv 1/3)")
		}
		h := math.Sqrt(3 * scv)
		return distuv.Uniform{Min: m * max(0, 1-h), Max: m * (1 + h), Src: src}, nil
	case "det":
		if scv != 0 {
			return nil, bad("scv = 0")
		}
		return constantGap(m), nil
	}
	return nil, fmt.Errorf("arrivals: unknown renewal dist %q: want one of %s", family, strings.Join(GapFamilies, ", "))
}

// ParetoGaps returns Pareto gaps with shape alpha > 1 and mean 1/rate s:
// Pareto{Alpha: alpha, Xm: (alpha-1)/(alpha·rate)}. The gaps have SCV
// 1/(α(α-2)) for α > 2 and infinite variance for α <= 2 (a heavy tail:
// P(G > x) = (Xm/x)^α for x >= Xm).
func ParetoGaps(rate, alpha float64, src rand.Source) (distuv.Pareto, error) {
	if !validRate(rate) {
		return distuv.Pareto{}, fmt.Errorf("arrivals: pareto rate %g jobs/s is invalid: want finite and > 0 with a finite mean gap", rate)
	}
	if !(alpha > 1) || math.IsInf(alpha, 1) {
		return distuv.Pareto{}, fmt.Errorf("arrivals: pareto alpha %g is invalid: want finite and > 1 (a finite mean)", alpha)
	}
	if src == nil {
		return distuv.Pareto{}, fmt.Errorf("arrivals: pareto random source is nil")
	}
	return distuv.Pareto{Alpha: alpha, Xm: (alpha - 1) / (alpha * rate), Src: src}, nil
}

// defaultSCV is the SCV a family gets when none is given.
func defaultSCV(family string) float64 {
	switch family {
	case "pareto":
		return 4
	case "uniform":
		return 1.0 / 3
	case "det":
		return 0
	}
	return 1
}

// weibullShape returns the Weibull shape k whose SCV is c:
// Γ(1+2/k)/Γ(1+1/k)² - 1 = c, a decreasing function of k.
func weibullShape(c float64) float64 {
	// Bisection on ln k over [ln 0.02, ln 2000], which brackets
	// 1e-4 <= c <= 1e6 (SCV(0.02) ≈ 4e28, SCV(2000) ≈ 4e-7). The SCV is
	// computed as exp(lgamma(1+2/k) - 2·lgamma(1+1/k)) - 1 in logs, so it
	// does not overflow; 100 halvings reach the float64 resolution.
	target := math.Log1p(c)
	lo, hi := math.Log(0.02), math.Log(2000)
	for range 100 {
		mid := (lo + hi) / 2
		k := math.Exp(mid)
		a, _ := math.Lgamma(1 + 2/k)
		b, _ := math.Lgamma(1 + 1/k)
		if a-2*b > target {
			lo = mid // SCV too large: increase k
		} else {
			hi = mid
		}
	}
	return math.Exp((lo + hi) / 2)
}

// validRate reports whether rate jobs/s is finite, > 0 and has a finite
// mean gap 1/rate.
func validRate(rate float64) bool {
	return rate > 0 && !math.IsInf(rate, 1) && !math.IsInf(1/rate, 1)
}

// constantGap is the deterministic gap distribution: every draw is the
// same number of seconds.
type constantGap float64

// Rand returns the gap.
func (c constantGap) Rand() float64 { return float64(c) }
