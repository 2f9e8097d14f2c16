package experiments

import (
	"bytes"
	"context"
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"
)

// seedModel is a Model whose replication returns its seed: each row of a
// point holds the point, a label, the sum of its replications' seeds (mod
// 2^20, as a float64) and NaN / +Inf cells for the JSON encoding.
type seedModel struct {
	points, reps int
	failAt       int // point whose replication 1 fails; -1: none
}

func (m seedModel) NumPoints() int       { return m.points }
func (m seedModel) NumReplications() int { return m.reps }
func (m seedModel) RootSeed() uint64     { return 42 }
func (m seedModel) Columns() []string    { return []string{"label", "seed_sum", "nan", "inf"} }
func (m seedModel) Replicate(_ context.Context, p, rep int, seed uint64) (any, error) {
	if p == m.failAt && rep == 1 {
		return nil, errors.New("boom")
	}
	return seed, nil
}
func (m seedModel) Rows(p int, reps []any) ([][]any, error) {
	var sum uint64
	for _, r := range reps {
		sum += r.(uint64) % (1 << 20)
	}
	return [][]any{{"a/b", float64(sum), math.NaN(), math.Inf(1)}, {"c", float64(p), 0.5, -1.0}}, nil
}

// The rows of each point come from the seeds ReplicationSeed gives, for
// any number of workers and any shard; merged shards give the whole
// table's bytes; ReadTable reads back what WriteJSON writes.
func TestRunModel(t *testing.T) {
	m := seedModel{points: 5, reps: 3, failAt: -1}
	want := func(p int) float64 {
		var s uint64
		for r := range 3 {
			s += ReplicationSeed(42, p, r) % (1 << 20)
		}
		return float64(s)
	}
	var outs [2]string
	var whole *Table
	for i, w := range []int{1, 3} {
		tab, err := RunModel(context.Background(), "n", "seeds", m, SweepOptions{Workers: w})
		if err != nil {
			t.Fatal(err)
		}
		if len(tab.Rows) != 10 || tab.Columns[0] != "point" {
			t.Fatalf("%d rows, columns %v", len(tab.Rows), tab.Columns)
		}
		for p := range 5 {
			if r := tab.Rows[2*p]; r[0] != float64(p) || r[2] != want(p) {
				t.Errorf("point %d: row %v, want seed sum %v", p, r, want(p))
			}
		}
		var b bytes.Buffer
		tab.WriteCSV(&b)
		tab.WriteJSON(&b)
		outs[i] = b.String()
		whole = tab
	}
	if outs[0] != outs[1] {
		t.Errorf("1 and 3 workers differ")
	}
	if !strings.Contains(outs[0], `"nan": null, "inf": "inf"`) || !strings.Contains(outs[0], "0,a/b,") || !strings.Contains(outs[0], ",NaN,+Inf") {
		t.Errorf("encoding of NaN and +Inf:\n%s", outs[0])
	}
	dir := t.TempDir()
	var parts []*Table
	for i := 1; i <= 2; i++ {
		tab, err := RunModel(context.Background(), "n", "seeds", m, SweepOptions{Workers: 2, Shard: Shard{Index: i, Count: 2}})
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, "s.json")
		if err := tab.WriteFiles(filepath.Join(dir, "s.csv"), path); err != nil {
			t.Fatal(err)
		}
		back, err := ReadTable(path)
		if err != nil {
			t.Fatal(err)
		}
		var a, b bytes.Buffer
		tab.WriteJSON(&a)
		back.WriteJSON(&b)
		if a.String() != b.String() {
			t.Errorf("ReadTable changed the table:\n%s\n%s", a.String(), b.String())
		}
		parts = append(parts, back)
	}
	merged, err := MergeTables(parts)
	if err != nil {
		t.Fatal(err)
	}
	var a, b bytes.Buffer
	whole.WriteJSON(&a)
	merged.WriteJSON(&b)
	if a.String() != b.String() {
		t.Errorf("merged shards:\n%s\nwhole:\n%s", b.String(), a.String())
	}
	// Resuming from the first shard runs the other points only, and gives
	// the whole table.
	resumed, err := RunModel(context.Background(), "n", "seeds", m, SweepOptions{Workers: 2, DoneTable: parts[0]})
	if err != nil {
		t.Fatal(err)
	}
	var c bytes.Buffer
	resumed.WriteJSON(&c)
	if c.String() != a.String() {
		t.Errorf("resumed:\n%s\nwhole:\n%s", c.String(), a.String())
	}
	if err := parts[0].CheckResume("seeds", "", 42, 3, whole.Columns, Shard{}, whole.Version, whole.GoVersion, whole.Commit); err == nil || !strings.Contains(err.Error(), "shard") {
		t.Errorf("CheckResume of shard 1/2 for the whole sweep: %v", err)
	}
	if _, err := MergeTables(parts[:1]); err == nil || !strings.Contains(err.Error(), "3 of 5 points") {
		t.Errorf("merging one shard of two: %v", err)
	}
	parts[1].Seed = 7
	if _, err := MergeTables(parts); err == nil || !strings.Contains(err.Error(), "part 2 has seed 7") {
		t.Errorf("merging different seeds: %v", err)
	}
}

func TestRunModelErrors(t *testing.T) {
	_, err := RunModel(context.Background(), "", "seeds", seedModel{points: 4, reps: 2, failAt: 2}, SweepOptions{Workers: 2})
	if err == nil || !strings.Contains(err.Error(), "point 2 replication 1: boom") {
		t.Errorf("error %v, want point 2 replication 1: boom", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	tab, err := RunModel(ctx, "", "seeds", seedModel{points: 3, reps: 1, failAt: -1}, SweepOptions{Workers: 1})
	if !errors.Is(err, context.Canceled) || tab == nil || !tab.Interrupted {
		t.Errorf("cancelled: %v, %+v", err, tab)
	}
}
