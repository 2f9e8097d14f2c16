package arrivals

import (
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestTraceNextTimes: NextTimes hands over what Next returns, in batches
// of 3: the instants, their lines (a blank line and a skipped bad line
// between them) and then Next's error; a trace with a key column is not a
// TimeFiller.
func TestTraceNextTimes(t *testing.T) {
	const text = "t\n1\n2\n\nx\n3.5\n4\n5\n3\n"
	opt := TraceOptions{SkipBad: true, MaxBad: -1}
	open := func() *Trace {
		tr, err := NewTrace(strings.NewReader(text), "t.csv", opt)
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	a := open()
	want, endA := nextAll(a)
	b := open()
	tf, ok := Times(b)
	if !ok {
		t.Fatal("a trace of times alone is not a TimeFiller")
	}
	var got []Arrival
	var endB error
	dst := make([]engine.Time, 3)
	for endB == nil {
		n, err := tf.NextTimes(dst)
		for i := range n {
			got = append(got, Arrival{T: dst[i], Sub: -1, Line: b.BatchLines()[i]})
		}
		endB = err
	}
	if len(got) != len(want) {
		t.Fatalf("%d arrivals by NextTimes, %d by Next", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("arrival %d: %+v, by Next %+v", i, got[i], want[i])
		}
	}
	if endA.Error() != endB.Error() || a.Skipped() != b.Skipped() {
		t.Errorf("end %v (skipped %d), by Next %v (skipped %d)", endB, b.Skipped(), endA, a.Skipped())
	}
	keyed, err := NewTrace(strings.NewReader("t,k\n1,a\n"), "k.csv", TraceOptions{KeyCol: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := Times(keyed); ok {
		t.Error("a trace with keys is a TimeFiller")
	}
}
