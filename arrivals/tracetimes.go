package arrivals

import "github.com/ratesim/ratesim/engine"

// NextTimes fills a prefix of dst with the instants of the next arrivals,
// those Next would return one by one (with their errors: an error, io.EOF
// at the end, comes after the instants before it), and returns its
// length; [Trace.BatchLines] gives their lines. It makes a trace without
// key or sub-bucket columns a [TimeFiller] (see [Times]).
func (t *Trace) NextTimes(dst []engine.Time) (int, error) {
	t.batchLines = t.batchLines[:0]
	for i := range dst {
		a, err := t.Next()
		if err != nil {
			return i, err
		}
		dst[i] = a.T
		t.batchLines = append(t.batchLines, a.Line)
	}
	return len(dst), nil
}

// BatchLines returns the lines of the arrivals of the last NextTimes, in
// order (valid until the next call).
func (t *Trace) BatchLines() []int { return t.batchLines }

// timesOnly reports whether t's arrivals carry nothing but their instants
// and lines (no key or sub-bucket column): Key 0, Hash 0, Sub -1.
func (t *Trace) timesOnly() bool { return t.keyCol < 0 && t.subCol < 0 }
