package clients

import (
	"math"
	"slices"

	"github.com/ratesim/ratesim/internal/tailsketch"
)

// latencies holds the latencies of a population's successes in bounded
// memory (issue 29): exactly, one float64 of seconds each, up to
// tailsketch.ExactValues of them (8 MiB), and beyond that as the count of
// zero latencies (exact) and a DDSketch of the positive ones (relative
// accuracy tailsketch.RelativeAccuracy), whose memory grows with the
// logarithm of the latencies' range, not with their number. The count,
// the sum (in the order added, once sketched) and the maximum stay exact.
type latencies struct {
	exact  []float64          // in order of success; nil once sketched
	zeros  int64              // latencies <= 0, once sketched
	sketch *tailsketch.Sketch // the positive latencies, once sketched
}

// add records the latency x, s.
func (l *latencies) add(x float64) {
	if l.sketch == nil {
		l.exact = append(l.exact, x)
		if len(l.exact) > tailsketch.ExactValues {
			l.toSketch()
		}
		return
	}
	if x <= 0 {
		l.zeros++
		return
	}
	l.sketch.Add(x)
}

// toSketch moves the exact latencies into the sketch.
func (l *latencies) toSketch() {
	l.sketch = tailsketch.New(nil)
	for _, x := range l.exact {
		if x <= 0 {
			l.zeros++
		} else {
			l.sketch.Add(x)
		}
	}
	l.exact = nil
}

// merge adds o's latencies after l's.
func (l *latencies) merge(o *latencies) {
	if o.sketch == nil {
		for _, x := range o.exact {
			l.add(x)
		}
		return
	}
	if l.sketch == nil {
		l.toSketch()
	}
	l.zeros += o.zeros
	l.sketch.Merge(o.sketch)
}

// len returns the number of latencies.
func (l *latencies) len() int64 {
	if l.sketch == nil {
		return int64(len(l.exact))
	}
	return l.zeros + l.sketch.Len()
}

// summary returns the mean, the ceil(p·n)-th smallest for p = 0.5 and
// 0.99, and the maximum; exact while the latencies are, the quantiles
// within the sketch's relative accuracy beyond (a rank among the zeros
// is 0 exactly).
func (l *latencies) summary() (mean, p50, p99, most float64) {
	n := l.len()
	if n == 0 {
		return 0, 0, 0, 0
	}
	if l.sketch == nil {
		sorted := slices.Clone(l.exact)
		slices.Sort(sorted)
		sum := 0.0
		for _, x := range sorted {
			sum += x
		}
		return sum / float64(n), quantile(sorted, 0.5), quantile(sorted, 0.99), sorted[n-1]
	}
	rank := func(p float64) float64 {
		k := max(int64(math.Ceil(p*float64(n))), 1) - 1
		return l.rank(k)
	}
	return l.sketch.Sum() / float64(n), rank(0.5), rank(0.99), l.sketch.Max()
}

// rank returns the k-th smallest latency (0-based) of a sketched l.
func (l *latencies) rank(k int64) float64 {
	if k < l.zeros {
		return 0
	}
	return l.sketch.Rank(k - l.zeros)
}

// sampleSize is how many latencies [latencies.values] returns once they
// are sketched: 2^16, about 0.5 MB.
const sampleSize = 1 << 16

// values returns every latency in order of success while they are kept
// exactly; once sketched, sampleSize latencies standing for them with
// equal weights, the (j + 1/2)·n/sampleSize-th smallest for each j (sorted),
// which is what the figures' latency distribution draws.
func (l *latencies) values() []float64 {
	if l.sketch == nil {
		return slices.Clone(l.exact)
	}
	n := l.len()
	out := make([]float64, sampleSize)
	for j := range out {
		out[j] = l.rank(int64((float64(j) + 0.5) * float64(n) / sampleSize))
	}
	return out
}
