package experiments

import (
	"math"
	"math/bits"
)

// rank returns the 1-based nearest rank ceil(permille·n/1000) of n
// values, in integers, at least 1.
func rank(permille, n int64) int64 {
	hi, lo := bits.Mul64(uint64(permille), uint64(n))
	q, rem := bits.Div64(hi, lo, 1000)
	r := int64(q)
	if rem != 0 {
		r++
	}
	return min(max(r, 1), n)
}

// quantiles returns the nearest-rank quantiles of the delays at each of
// permilles (increasing), seconds. Exact values are found by selection
// (expected O(n) for all of them, no full sort); the order of s.vals is
// changed.
func (s *delayStats) quantiles(permilles ...int64) []float64 {
	out := make([]float64, len(permilles))
	if s.n == 0 {
		return out
	}
	zeros := s.n - s.delayed
	lo := 0
	for i, pm := range permilles {
		r := rank(pm, s.n)
		if r <= zeros {
			continue // 0
		}
		k := int(r - zeros - 1) // 0-based among the positive delays
		if s.hist != nil {
			out[i] = math.Min(s.hist.at(int64(k)), s.max.QuoFloat64(1e9))
			continue
		}
		if s.sketch == nil {
			out[i] = selectKth(s.vals, lo, k)
			lo = k
			continue
		}
		// The sketch holds the positive delays only: ask it for the same
		// rank among them; it may exceed the exact maximum by its accuracy.
		v, err := s.sketch.GetValueAtQuantile(float64(k) / math.Max(1, float64(s.delayed-1)))
		if err != nil {
			v = math.NaN()
		}
		out[i] = math.Min(v, s.max.QuoFloat64(1e9))
	}
	return out
}

// selectKth returns the k-th smallest of xs (0-based), given that the
// elements before index lo are all <= those from lo on (lo <= k). It
// partitions xs in place (Hoare's quickselect with a median-of-three
// pivot), so that afterwards xs[k] holds the value, everything before it
// is <= and everything after is >=.
func selectKth(xs []float64, lo, k int) float64 {
	hi := len(xs) - 1
	for hi > lo {
		m := lo + (hi-lo)/2
		if xs[m] < xs[lo] {
			xs[m], xs[lo] = xs[lo], xs[m]
		}
		if xs[hi] < xs[lo] {
			xs[hi], xs[lo] = xs[lo], xs[hi]
		}
		if xs[hi] < xs[m] {
			xs[hi], xs[m] = xs[m], xs[hi]
		}
		pivot := xs[m]
		i, j := lo, hi
		for i <= j {
			for xs[i] < pivot {
				i++
			}
			for xs[j] > pivot {
				j--
			}
			if i <= j {
				xs[i], xs[j] = xs[j], xs[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return xs[k]
		}
	}
	return xs[k]
}
