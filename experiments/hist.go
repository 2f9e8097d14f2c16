package experiments

import "math"

// histogramAccuracy is the relative accuracy of the delay quantiles of a
// run that delayed more than [ExactQuantileJobs] jobs in one system: its
// delays beyond are counted in a [logHist], whose bins are 2^-7 wide
// relative to their lower end, and a quantile is reported at its bin's
// middle (at most the exact maximum), so a reported quantile q̂ of a true
// quantile q > 0 satisfies |q̂ - q| <= 2^-8·q.
const histogramAccuracy = 1.0 / 256

// histShift keeps the sign, the exponent and the 7 leading bits of the
// significand of a float64: a positive value's bin in a logHist.
const histShift = 52 - 7

// logHist counts positive float64 values (seconds) in log-linear bins:
// bin i holds [x_i, x_{i+1}) where x_i is the float64 of bits i<<45, so
// each power of two is cut into 128 equal bins (relative width at most
// 2^-7). Finding a value's bin is a shift, with no logarithm, and the
// counts take 8 bytes per bin between the smallest and the largest value
// kept (128 bins per factor of two: about 60 KiB from 1 ns to 1000 years).
// The zero value is an empty histogram.
type logHist struct {
	lo     int     // the bin of counts[0]
	counts []int64 // counts[i]: values in bin lo + i
	n      int64
}

func (h *logHist) add(x float64) { h.addCount(int(math.Float64bits(x)>>histShift), 1) }

func (h *logHist) addCount(i int, c int64) {
	if h.counts == nil {
		h.lo, h.counts = i, make([]int64, 1, 64)
	}
	if i < h.lo {
		grown := make([]int64, len(h.counts)+h.lo-i, cap(h.counts)+h.lo-i)
		copy(grown[h.lo-i:], h.counts)
		h.lo, h.counts = i, grown
	}
	for i-h.lo >= len(h.counts) {
		h.counts = append(h.counts, 0)
	}
	h.counts[i-h.lo] += c
	h.n += c
}

func (h *logHist) merge(o *logHist) {
	for j, c := range o.counts {
		if c > 0 {
			h.addCount(o.lo+j, c)
		}
	}
}

// binMid returns the middle of bin i.
func binMid(i int) float64 {
	lo, hi := math.Float64frombits(uint64(i)<<histShift), math.Float64frombits(uint64(i+1)<<histShift)
	return lo + (hi-lo)/2
}

// at returns the k-th smallest value kept (0-based), as its bin's middle.
func (h *logHist) at(k int64) float64 {
	for j, c := range h.counts {
		if k < c {
			return binMid(h.lo + j)
		}
		k -= c
	}
	return math.NaN() // k >= n: not called so
}

// each calls f with every non-empty bin's middle and count, in increasing
// order.
func (h *logHist) each(f func(mid float64, c int64)) {
	for j, c := range h.counts {
		if c > 0 {
			f(binMid(h.lo+j), c)
		}
	}
}
