package experiments

import (
	"math"
	"slices"
)

// equalFloats reports whether a and b hold the same values, NaN equal
// to NaN.
func equalFloats(a, b []float64) bool {
	return slices.EqualFunc(a, b, func(x, y float64) bool { return x == y || math.IsNaN(x) && math.IsNaN(y) })
}
