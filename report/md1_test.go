package report

import (
	"math"
	"testing"
)

func TestMD1Delay(t *testing.T) {
	for _, c := range []struct {
		lambda, r, b, want, tol float64
	}{
		{0.8, 1, 5, 0.358879, 1e-6},              // issue 15 (6 decimals; 640-bit and 1280-bit sums both give 0.35887844)
		{0.8, 1, 1, 0.8 / (2 * 0.2), 1e-9},       // Pollaczek–Khinchine ρ/(2(1−ρ))
		{0.5, 1, 1, 0.5 / (2 * 0.5), 1e-9},       // PK
		{0.9, 2, 1, 0.45 / (2 * 2 * 0.55), 1e-9}, // PK with r = 2: ρ/(2r(1−ρ))
		{0, 1, 5, 0, 0},
	} {
		got := MD1Delay(c.lambda, c.r, c.b)
		if math.Abs(got-c.want) > c.tol {
			t.Errorf("MD1Delay(%v, %v, %v) = %.9f, want %.9f", c.lambda, c.r, c.b, got, c.want)
		}
	}
}

// The two integrals agree: E[W] − ∫_0^c P(W > x) dx (the one MD1Delay
// takes when it keeps its digits) equals ∫_c^∞ P(W > x) dx, the tail
// integrated to P(W > x) < 1e-15, which does not use the
// Pollaczek–Khinchine mean at all.
func TestMD1DelayHeadEqualsTail(t *testing.T) {
	for _, c := range []struct{ rho, b float64 }{
		{0.3, 1.5}, {0.3, 3.25}, {0.5, 2}, {0.5, 5}, {0.8, 3.25},
	} {
		{
			rho, b := c.rho, c.b
			pk := rho / (2 * (1 - rho))
			head := pk - integrateBelow(rho, 0, b-1)
			tail := integrateAbove(rho, b-1)
			if head <= 1e-3*pk {
				continue // MD1Delay takes the tail here
			}
			if math.Abs(head-tail) > 1e-11*tail {
				t.Errorf("ρ %v, b %v: E[W] − head %.15g, tail %.15g", rho, b, head, tail)
			}
			if got := MD1Delay(rho*2, 2, b); got != head/2 {
				t.Errorf("MD1Delay(%v, 2, %v) = %.15g, want %.15g", rho*2, b, got, head/2)
			}
		}
	}
}
