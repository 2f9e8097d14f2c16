// Package compensated owns Neumaier's compensated summation, used wherever
// ratesim adds up many delays (accrued delay S(t), total delay per system).
package compensated

import "math"

// Sum is a running sum with Neumaier's compensation (an improved Kahan
// summation). After n additions of terms x_i its error is at most
// 2u·Σ|x_i| + O(n u²)·Σ|x_i|, with u = 2^-53, independent of n to first
// order; a plain running sum's error grows like n·u·Σ|x_i|.
//
// Reference: A. Neumaier, "Rundungsfehleranalyse einiger Verfahren zur
// Summation endlicher Summen", ZAMM 54 (1974).
//
// The zero value is an empty sum.
type Sum struct {
	s, c float64
}

// Add adds x to the sum.
func (k *Sum) Add(x float64) {
	t := k.s + x
	if math.Abs(k.s) >= math.Abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

// Value returns the compensated sum.
func (k *Sum) Value() float64 { return k.s + k.c }
