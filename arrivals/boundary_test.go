package arrivals

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/ratesim/ratesim/engine"
)

// TestBoundary: W = 4 s, no offset, gap 1 s, bursts of 4, a stream of 4, two
// cycles. Cycle 0 is built around the edge 4 s: 4 jobs at 3 s, 4 at 5 s, and
// the stream at the midpoints of four slots of (4 - 2)/4 = 0.5 s after 5 s:
// 5.25, 5.75, 6.25, 6.75 s. Cycle 1 is the same 3W = 12 s later, around 16 s.
func TestBoundary(t *testing.T) {
	const s1, ms = engine.Second, engine.Millisecond
	s := BoundarySpec{Window: 4 * s1, Gap: s1, Burst: 4, Stream: 4, Cycles: 2}
	b, err := NewBoundary(s)
	if err != nil {
		t.Fatal(err)
	}
	cycle := []engine.Time{3 * s1, 3 * s1, 3 * s1, 3 * s1, 5 * s1, 5 * s1, 5 * s1, 5 * s1, 5250 * ms, 5750 * ms, 6250 * ms, 6750 * ms}
	var want []engine.Time
	for _, c := range []engine.Time{0, 12 * s1} {
		for _, x := range cycle {
			want = append(want, x+c)
		}
	}
	var got []engine.Time
	for {
		a, err := b.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if a.Sub != -1 || a.Key != 0 || a.Line != 0 {
			t.Fatalf("arrival %+v: want Sub -1, Key 0, Line 0", a)
		}
		got = append(got, a.T)
	}
	if !slices.Equal(got, want) {
		t.Errorf("arrivals %v, want %v", got, want)
	}
	if s.Jobs() != int64(len(want)) || s.Edge(1) != 16*s1 {
		t.Errorf("Jobs() = %d, Edge(1) = %v; want %d and 16", s.Jobs(), s.Edge(1), len(want))
	}
	if _, err := b.Next(); err != io.EOF {
		t.Errorf("after the end: %v, want io.EOF", err)
	}
}

// TestBoundaryOffset: with the edges at 10 + 60k s and no stream, cycle 0
// has 2 jobs at 70 - 1 = 69 s and 2 at 71 s.
func TestBoundaryOffset(t *testing.T) {
	const s1 = engine.Second
	b, _ := NewBoundary(BoundarySpec{Window: 60 * s1, Offset: 10 * s1, Gap: s1, Burst: 2, Cycles: 1})
	var got []engine.Time
	for a, err := b.Next(); err == nil; a, err = b.Next() {
		got = append(got, a.T)
	}
	if want := []engine.Time{69 * s1, 69 * s1, 71 * s1, 71 * s1}; !slices.Equal(got, want) {
		t.Errorf("arrivals %v, want %v", got, want)
	}
}

// TestBoundaryStreamCeil: W = 1 s, gap 0.1 s, a stream of 3 jobs over
// 0.8 s: slots of 0.8/3 s, midpoints (2i+1)·0.4/3 s after 1.1 s, that is
// 1.1 s + 133333333.3, 400000000 and 666666666.7 ns, each at the first
// nanosecond at or after it.
func TestBoundaryStreamCeil(t *testing.T) {
	const ms = engine.Millisecond
	b, _ := NewBoundary(BoundarySpec{Window: 1000 * ms, Gap: 100 * ms, Burst: 1, Stream: 3, Cycles: 1})
	var got []engine.Time
	for a, err := b.Next(); err == nil; a, err = b.Next() {
		got = append(got, a.T)
	}
	want := []engine.Time{900 * ms, 1100 * ms, 1100*ms + 133_333_334, 1100*ms + 400_000_000, 1100*ms + 666_666_667}
	if !slices.Equal(got, want) {
		t.Errorf("arrivals %v, want %v", got, want)
	}
}

func TestBoundaryErrors(t *testing.T) {
	const s1 = engine.Second
	ok := BoundarySpec{Window: 60 * s1, Gap: s1, Burst: 1, Cycles: 1}
	for _, c := range []struct {
		name string
		edit func(*BoundarySpec)
	}{
		{"window", func(s *BoundarySpec) { s.Window = 0 }},
		{"window", func(s *BoundarySpec) { s.Window = -s1 }},
		{"offset", func(s *BoundarySpec) { s.Offset = 60 * s1 }},
		{"gap", func(s *BoundarySpec) { s.Gap = 0 }},
		{"gap", func(s *BoundarySpec) { s.Gap = 30 * s1 }},
		{"burst", func(s *BoundarySpec) { s.Burst = 0 }},
		{"burst", func(s *BoundarySpec) { s.Burst = MaxBoundaryJobs + 1 }},
		{"stream", func(s *BoundarySpec) { s.Stream = -1 }},
		{"cycles", func(s *BoundarySpec) { s.Cycles = 0 }},
		{"pattern", func(s *BoundarySpec) { s.Window = engine.Forever / 2; s.Cycles = 2 }},
	} {
		s := ok
		c.edit(&s)
		_, err := NewBoundary(s)
		if err == nil || !strings.Contains(err.Error(), "boundary "+c.name) {
			t.Errorf("%+v: err = %v, want one naming the %s", s, err, c.name)
		}
	}
}
