// Package compensated owns Neumaier's compensated summation, used wherever
// ratesim adds up many delays (accrued delay S(t), total delay per system).
package compensated

// Sum is a running sum with Neumaier's compensation (an improved Kahan
// summation). For float64 terms x_i, after n additions its error is at
// most 2u·Σ|x_i| + O(n u²)·Σ|x_i|, with u = 2^-53, independent of n to first
// order; a plain running sum's error grows like n·u·Σ|x_i|. For int64 terms
// the compensation is always 0 and the sum is exact (barring overflow).
//
// Reference: A. Neumaier, "Rundungsfehleranalyse einiger Verfahren zur
// Summation endlicher Summen", ZAMM 54 (1974).
//
// The zero value is an empty sum.
type Sum[T ~float64 | ~int64] struct {
	s, c T
}

func abs[T ~float64 | ~int64](x T) T {
	if x < 0 {
		return -x
	}
	return x
}

// Add adds x to the sum.
func (k *Sum[T]) Add(x T) {
	t := k.s + x
	if abs(k.s) >= abs(x) {
		k.c += (k.s - t) + x
	} else {
		k.c += (x - t) + k.s
	}
	k.s = t
}

// Value returns the compensated sum.
func (k *Sum[T]) Value() T { return k.s + k.c }
