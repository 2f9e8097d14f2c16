package buckets

import (
	"math"

	"github.com/ratesim/ratesim/engine"
)

// Number is the arithmetic a model runs in. The model code (bucket, check,
// comparison) is written once, generically, and instantiated twice:
//
//   - with [engine.Time] (float64): times in seconds, work in tokens; fast,
//     with rounding bounded as documented on [Check];
//   - with [Tick] (int64): exact, when every input is a whole number of
//     ticks and quanta (see [ExactParams]); no tolerance is needed.
//
// The model uses only +, -, * and comparisons on Number values (no
// division), which is what makes the integer instantiation exact. Go compiles
// each instantiation separately (float64 and int64 have different shapes),
// so the float64 path pays nothing for being generic.
type Number interface {
	~float64 | ~int64
}

// Tick is a count of integer time units (ticks) or work units (quanta) in
// the exact model. See [ExactParams].
type Tick int64

// The float64 model, with instants in seconds ([engine.Time]) and work in
// tokens: the types the command line and experiments use.
type (
	TokenBucket = Bucket[engine.Time]
	Compare     = Comparison[engine.Time]
	Check       = Checker[engine.Time]
	Job         = Arrival[engine.Time]
	Dispatcher  = Dispatch[engine.Time]
	Recorder    = Observer[engine.Time]
)

// never returns the largest value of T: no event happens at or after it.
// For engine.Time it is [engine.Forever].
func never[T Number]() T {
	if isFloat[T]() {
		f := float64(engine.Forever)
		return T(f)
	}
	i := int64(math.MaxInt64)
	return T(i)
}

// isFloat reports whether T is a floating-point type.
func isFloat[T Number]() bool {
	// 0.5 survives the conversion to a float type and truncates to 0 for an
	// integer type.
	half := 0.5
	return T(half) != 0
}
