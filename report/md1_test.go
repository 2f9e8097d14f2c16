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
