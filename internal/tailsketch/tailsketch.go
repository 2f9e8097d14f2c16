// Package tailsketch is the bounded half of the exact-then-sketch
// statistics of the commands that package experiments cannot serve (drl
// and clients sit below it or beside it): values are kept exactly, as
// float64, up to [ExactValues] of them, and moved into a DDSketch of
// relative accuracy [RelativeAccuracy] beyond, so memory stays bounded
// whatever the run's length. It is the method of experiments' delay
// statistics (experiments.ExactQuantileJobs and
// its relative accuracy, the same values): Masson, Rim and Lee,
// "DDSketch: A Fast and Fully-Mergeable Quantile Sketch with
// Relative-Error Guarantees", VLDB 2019; github.com/DataDog/sketches-go.
package tailsketch

import (
	"fmt"
	"math"

	"github.com/DataDog/sketches-go/ddsketch"
	"github.com/DataDog/sketches-go/ddsketch/mapping"
	"github.com/DataDog/sketches-go/ddsketch/store"
)

// ExactValues is how many values a caller keeps exactly before it moves
// them into a [Sketch] (8 MiB of float64). It is a variable only so that
// the memory benchmarks can show the bound at small sizes.
var ExactValues = 1 << 20

// RelativeAccuracy is the sketch's guarantee: a reported quantile q̂ of a
// true quantile q > 0 satisfies |q̂ − q| <= 0.01·q.
const RelativeAccuracy = 0.01

// Method describes a sketched quantile, for output.
var Method = fmt.Sprintf("ddsketch, relative accuracy %g", RelativeAccuracy)

// Sketch holds positive values (seconds) in a DDSketch, with their exact
// count, maximum and sum in the order added.
type Sketch struct {
	s   *ddsketch.DDSketch
	n   int64
	max float64
	sum float64
	err error
}

// New returns an empty sketch holding xs.
func New(xs []float64) *Sketch {
	m, err := mapping.NewCubicallyInterpolatedMapping(RelativeAccuracy)
	if err != nil {
		panic(err) // RelativeAccuracy is a valid constant
	}
	k := &Sketch{s: ddsketch.NewDDSketch(m, store.NewDenseStore(), store.NewDenseStore())}
	for _, x := range xs {
		k.Add(x)
	}
	return k
}

// Add adds x (> 0; a value the mapping cannot index, beyond about
// 1e307, is kept as the sketch's error).
func (k *Sketch) Add(x float64) {
	k.n++
	k.sum += x
	k.max = math.Max(k.max, x)
	if err := k.s.Add(x); err != nil && k.err == nil {
		k.err = fmt.Errorf("the value %v cannot be kept in the quantile sketch: %w", x, err)
	}
}

// Len returns the number of values added.
func (k *Sketch) Len() int64 { return k.n }

// Max returns the largest value added, exactly (0 for none).
func (k *Sketch) Max() float64 { return k.max }

// Sum returns the sum of the values in the order added.
func (k *Sketch) Sum() float64 { return k.sum }

// Err returns the first value the sketch could not keep, or nil.
func (k *Sketch) Err() error { return k.err }

// Rank returns the i-th smallest value (0-based, 0 <= i < Len()) within
// the relative accuracy, never above Max; NaN when the sketch fails.
func (k *Sketch) Rank(i int64) float64 {
	v, err := k.s.GetValueAtQuantile(float64(i) / math.Max(1, float64(k.n-1)))
	if err != nil {
		return math.NaN()
	}
	return math.Min(v, k.max)
}

// Merge adds the values of o to k: counts and sums add, the maximum is
// the larger, and the sketches merge bucket by bucket (the same mapping,
// so nothing is lost beyond the relative accuracy).
func (k *Sketch) Merge(o *Sketch) {
	k.n += o.n
	k.sum += o.sum
	k.max = math.Max(k.max, o.max)
	if err := k.s.MergeWith(o.s); err != nil && k.err == nil {
		k.err = fmt.Errorf("merging quantile sketches: %w", err)
	}
	if k.err == nil {
		k.err = o.err
	}
}
