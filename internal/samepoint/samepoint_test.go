package samepoint

import (
	"slices"
	"testing"
)

// TestFirstAndSplit: keys a b a c b: points 2 and 4 repeat 0 and 1. A run
// of every point runs 0, 1, 3 and copies 2, 4; a shard of the odd points
// (1, 3) runs them; a shard of 2, 3, 4 without 0 and 1 runs 2 (seeded
// from 0 by its caller), 3 and 4.
func TestFirstAndSplit(t *testing.T) {
	keys := []string{"a", "b", "a", "c", "b"}
	first := First(len(keys), func(i int) string { return keys[i] })
	if !slices.Equal(first, []int{0, 1, 0, 3, 1}) {
		t.Fatalf("First = %v", first)
	}
	all := func(int) bool { return true }
	if run, cp := Split([]int{0, 1, 2, 3, 4}, first, all); !slices.Equal(run, []int{0, 1, 3}) || !slices.Equal(cp, []int{2, 4}) {
		t.Errorf("every point: run %v copy %v", run, cp)
	}
	late := func(i int) bool { return i >= 2 }
	if run, cp := Split([]int{2, 3, 4}, first, late); !slices.Equal(run, []int{2, 3, 4}) || cp != nil {
		t.Errorf("points 2-4: run %v copy %v", run, cp)
	}
}
