package experiments

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
)

// keyedModel is a Model of 4 points whose points 1 and 3 are equal (the
// same key): each replication returns its point and seed.
type keyedModel struct{ calls atomic.Int64 }

func (m *keyedModel) NumPoints() int       { return 4 }
func (m *keyedModel) NumReplications() int { return 2 }
func (m *keyedModel) RootSeed() uint64     { return 7 }
func (m *keyedModel) Columns() []string    { return []string{"seeds"} }
func (m *keyedModel) PointKey(p int) string {
	return map[int]string{0: "a", 1: "b", 2: "c", 3: "b"}[p]
}
func (m *keyedModel) Replicate(_ context.Context, p, rep int, seed uint64) (any, error) {
	m.calls.Add(1)
	return fmt.Sprintf("%d:%d", p, seed), nil
}
func (m *keyedModel) Rows(p int, reps []any) ([][]any, error) {
	return [][]any{{fmt.Sprint(reps...)}}, nil
}

// TestModelSamePointRunsOnce: of 4 points of which 3 is 1 again, RunModel
// runs 3 · 2 = 6 replications, and point 3's row is point 1's (the same
// replications, seeded from point 1) under index 3. A shard holding point
// 3 but not point 1 runs it, seeded from point 1, with the same row.
func TestModelSamePointRunsOnce(t *testing.T) {
	m := &keyedModel{}
	tab, err := RunModel(context.Background(), "k", "keyed", m, SweepOptions{Workers: 2})
	if err != nil {
		t.Fatal(err)
	}
	want1 := fmt.Sprint(fmt.Sprintf("1:%d", ReplicationSeed(7, 1, 0)), fmt.Sprintf("1:%d", ReplicationSeed(7, 1, 1)))
	if m.calls.Load() != 6 || len(tab.Rows) != 4 || tab.Rows[1][1] != want1 || tab.Rows[3][1] != want1 || tab.Rows[3][0] != 3.0 {
		t.Fatalf("%d replications, rows %v; want 6 and point 3's row %q", m.calls.Load(), tab.Rows, want1)
	}
	m2 := &keyedModel{}
	// A shard that holds point 3 but not point 1.
	for n := 2; n <= 4; n++ {
		for i := 1; i <= n; i++ {
			sh := Shard{Index: i, Count: n}
			if !sh.Has(3) || sh.Has(1) {
				continue
			}
			tab, err := RunModel(context.Background(), "k", "keyed", m2, SweepOptions{Workers: 1, Shard: sh})
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range tab.Rows {
				if r[0] == 3.0 && r[1] != want1 {
					t.Errorf("shard %s: point 3's row %v, want %q", sh, r, want1)
				}
			}
			return
		}
	}
	t.Fatal("no shard holds point 3 without point 1")
}
