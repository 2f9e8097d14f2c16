package heap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestHeapSorts: pushing values in random order and popping them all
// gives them sorted; New heapifies as well; FixMin restores the order
// after the minimum grows.
func TestHeapSorts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	less := func(a, b int) bool { return a < b }
	for n := range 50 {
		xs := make([]int, n)
		for i := range xs {
			xs[i] = rng.IntN(20)
		}
		want := slices.Sorted(slices.Values(xs))
		h := New(less, nil)
		for _, x := range xs {
			h.Push(x)
		}
		h2 := New(less, slices.Clone(xs))
		for i, w := range want {
			if a, b := h.Pop(), h2.Pop(); a != w || b != w {
				t.Fatalf("n=%d: pop %d gives %d and %d, want %d", n, i, a, b, w)
			}
		}
		if h.Len() != 0 || h2.Len() != 0 {
			t.Fatalf("n=%d: %d and %d left", n, h.Len(), h2.Len())
		}
	}
	h := New(less, []int{1, 5, 3})
	*h.Min() = 4
	h.FixMin()
	if got := []int{h.Pop(), h.Pop(), h.Pop()}; !slices.Equal(got, []int{3, 4, 5}) {
		t.Errorf("after FixMin: %v, want [3 4 5]", got)
	}
}
