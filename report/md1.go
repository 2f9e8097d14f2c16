package report

import (
	"context"
	"math"
	"math/big"
)

// mathPrec is the precision, in bits, of the big.Float arithmetic of
// Crommelin's series: its terms reach e^{ρx} while their sum is at most
// 1, so float64 loses every digit beyond x ≈ 40 service times.
const mathPrec = 640

// MD1Delay returns the mean delay, in seconds, of a token bucket (r, b)
// fed Poisson arrivals at lambda jobs/s, from the exact waiting-time
// distribution of the M/D/1 queue with service time 1/r:
//
//	d = E[max(0, W − (b − 1)/r)] = ∫_{(b−1)/r}^∞ P(W > x) dx
//
// by eq. (1) of the note, with W the waiting time (the unfinished work an
// arrival finds). P(W ≤ x) is Crommelin's series (1932; also Erlang 1909),
// in units of the service time 1/r and with ρ = λ/r:
//
//	P(W ≤ x) = (1 − ρ) Σ_{k=0}^{⌊x⌋} (ρ(k − x))^k / k! · e^{−ρ(k − x)}
//
// summed in 640-bit floating point (the terms alternate in sign and grow
// like e^{ρx}) and integrated by 16-point Gauss–Legendre on each unit
// interval (the distribution is analytic between integers) over [0, b − 1],
// which is subtracted from the Pollaczek–Khinchine mean E[W] = ρ/(2(1 − ρ))
// service times; where that difference is below 1e-3·E[W], over
// [b − 1, ∞) instead, up to the x at which P(W > x) < 1e-15. For b = 1 it
// is the Pollaczek–Khinchine mean ρ/(2r(1 − ρ)).
//
// Reference: C. D. Crommelin, "Delay probability formulae when the holding
// times are constant", P.O.E.E.J. 25 (1932) 41–50; see also
// https://en.wikipedia.org/wiki/M/D/1_queue.
//
// Special cases:
//
//	λ = 0          0
//	λ >= r         +Inf (no steady state)
//	b < 1, r <= 0  NaN
func MD1Delay(lambda, r, b float64) float64 {
	switch {
	case r <= 0 || b < 1 || lambda < 0 || math.IsNaN(lambda+r+b):
		return math.NaN()
	case lambda == 0:
		return 0
	case lambda >= r:
		return math.Inf(1)
	}
	rho := lambda / r
	c := b - 1 // service times
	// E[(W − c)+] = E[W] − ∫_0^c P(W > x) dx, with E[W] = ρ/(2(1 − ρ))
	// (Pollaczek–Khinchine): a finite integral whose series have at most
	// ⌊c⌋ + 1 terms, where the tail's integral runs to the x at which
	// P(W > x) < 1e-15 (hundreds of service times at ρ = 0.9). When the
	// difference is below 1e-3 of E[W], it has lost digits to the
	// cancellation: the tail, short in that case, is integrated instead.
	pk := rho / (2 * (1 - rho))
	if d := pk - integrateBelow(rho, 0, c); d > 1e-3*pk {
		return d / r
	}
	return integrateAbove(rho, c) / r
}

// integrateBelow returns ∫_lo^hi P(W > x) dx in service times, by
// 16-point Gauss–Legendre on each piece between integers.
func integrateBelow(rho, lo, hi float64) float64 {
	sum := 0.0
	for a := lo; a < hi; {
		z := math.Min(math.Floor(a)+1, hi)
		sum += gaussLegendrePiece(rho, a, z)
		a = z
	}
	return sum
}

// gaussLegendrePiece returns ∫_lo^hi P(W > x) dx for lo and hi within one
// unit interval, where the distribution is analytic.
func gaussLegendrePiece(rho, lo, hi float64) float64 {
	seg := 0.0
	for i, u := range glNodes {
		x := lo + (hi-lo)*(u+1)/2
		seg += glWeights[i] * (1 - crommelin(rho, x))
	}
	return seg * (hi - lo) / 2
}

// integrateAbove returns ∫_c^∞ P(W > x) dx in service times, up to the x
// at which P(W > x) < 1e-15, or NaN when that takes beyond 10^5 service
// times (ρ too close to 1).
func integrateAbove(rho, c float64) float64 {
	sum := 0.0
	for n := math.Floor(c); ; n++ {
		hi := n + 1
		sum += gaussLegendrePiece(rho, math.Max(n, c), hi)
		if tail := 1 - crommelin(rho, hi); tail < 1e-15 {
			return sum
		}
		if n > c+1e5 {
			return math.NaN() // does not converge: ρ too close to 1
		}
	}
}

// crommelin returns P(W ≤ x) for the M/D/1 queue with unit service time and
// load rho (see MD1Delay).
func crommelin(rho, x float64) float64 {
	prec := uint(mathPrec)
	bf := func(v float64) *big.Float { return new(big.Float).SetPrec(prec).SetFloat64(v) }
	br, bx := bf(rho), bf(x)
	// e^{−ρ(k−x)} = e^{ρx}·(e^{−ρ})^k, built up term by term.
	ek := bigExp(new(big.Float).SetPrec(prec).Mul(br, bx), prec)
	step := bigExp(new(big.Float).SetPrec(prec).Neg(br), prec)
	total := bf(0)
	fact := bf(1) // k!
	for k := 0; float64(k) <= x; k++ {
		if k > 0 {
			fact.Mul(fact, bf(float64(k)))
			ek.Mul(ek, step)
		}
		// y = ρ(k − x) <= 0
		y := bf(float64(k))
		y.Sub(y, bx).Mul(y, br)
		term := powInt(y, k, prec)
		term.Quo(term, fact)
		term.Mul(term, ek)
		total.Add(total, term)
	}
	total.Mul(total, bf(1-rho))
	v, _ := total.Float64()
	return v
}

// powInt returns y^k (y^0 = 1).
func powInt(y *big.Float, k int, prec uint) *big.Float {
	out := new(big.Float).SetPrec(prec).SetInt64(1)
	base := new(big.Float).SetPrec(prec).Set(y)
	for ; k > 0; k >>= 1 {
		if k&1 == 1 {
			out.Mul(out, base)
		}
		base.Mul(base, base)
	}
	return out
}

// bigExp returns e^y: y is halved until |y| < 1/2, the Taylor series is
// summed to the precision, and the result squared back.
func bigExp(y *big.Float, prec uint) *big.Float {
	z := new(big.Float).SetPrec(prec + 32).Set(y)
	half := big.NewFloat(0.5)
	sq := 0
	for new(big.Float).Abs(z).Cmp(half) > 0 {
		z.Quo(z, big.NewFloat(2))
		sq++
	}
	sum := new(big.Float).SetPrec(prec + 32).SetInt64(1)
	term := new(big.Float).SetPrec(prec + 32).SetInt64(1)
	eps := new(big.Float).SetMantExp(big.NewFloat(1), -int(prec)-16)
	for n := 1; ; n++ {
		term.Mul(term, z)
		term.Quo(term, new(big.Float).SetInt64(int64(n)))
		sum.Add(sum, term)
		if new(big.Float).Abs(term).Cmp(eps) < 0 {
			break
		}
	}
	for ; sq > 0; sq-- {
		sum.Mul(sum, sum)
	}
	return sum.SetPrec(prec)
}

// glNodes and glWeights are the 16-point Gauss–Legendre rule on [-1, 1]
// (Abramowitz and Stegun, Table 25.4).
var glNodes, glWeights = gaussLegendre(16)

// gaussLegendre computes the n-point rule by Newton's method on the
// Legendre polynomial P_n (Numerical Recipes, gauleg).
func gaussLegendre(n int) (x, w []float64) {
	x, w = make([]float64, n), make([]float64, n)
	for i := range (n + 1) / 2 {
		z := math.Cos(math.Pi * (float64(i) + 0.75) / (float64(n) + 0.5))
		var pp float64
		for range 100 {
			p1, p2 := 1.0, 0.0
			for j := 1; j <= n; j++ {
				p1, p2 = ((2*float64(j)-1)*z*p1-(float64(j)-1)*p2)/float64(j), p1
			}
			pp = float64(n) * (z*p1 - p2) / (z*z - 1)
			z1 := z
			z = z1 - p1/pp
			if math.Abs(z-z1) < 1e-15 {
				break
			}
		}
		x[i], x[n-1-i] = -z, z
		w[i] = 2 / ((1 - z*z) * pp * pp)
		w[n-1-i] = w[i]
	}
	return x, w
}

// whileRunning returns f(), or ctx.Err() as soon as ctx is done: the
// series of [MD1Delay] runs for seconds in big floats and does not look
// at a context, so a stopped paper leaves it to finish on its own
// goroutine (the process is exiting) rather than wait for it.
func whileRunning[T any](ctx context.Context, f func() T) (T, error) {
	done := make(chan T, 1)
	go func() { done <- f() }()
	select {
	case v := <-done:
		return v, nil
	case <-ctx.Done():
		var zero T
		return zero, ctx.Err()
	}
}
