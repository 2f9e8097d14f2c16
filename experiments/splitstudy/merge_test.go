package splitstudy

import (
	"strings"
	"testing"

	"github.com/ratesim/ratesim/internal/version"
)

func part(spec *Spec, seed uint64, shard string, idx ...int) *Results {
	r := &Results{Schema: version.Schema, Version: "v", GoVersion: "go", Seed: seed, Spec: spec, Shard: shard, PointsTotal: 3}
	for _, i := range idx {
		r.Points = append(r.Points, PointResult{Point: Point{Index: i}})
	}
	return r
}

func TestMergeErrors(t *testing.T) {
	s := DefaultSpec()
	other := DefaultSpec()
	other.Load = 0.5
	for _, tc := range []struct {
		name  string
		parts []*Results
		want  string
	}{
		{"none", nil, "nothing"},
		{"duplicate", []*Results{part(&s, 1, "1/2", 0, 2), part(&s, 1, "2/2", 1, 2)}, "point 2 is in part 1 and part 2"},
		{"missing", []*Results{part(&s, 1, "1/2", 0, 2)}, "missing [1]"},
		{"spec", []*Results{part(&s, 1, "1/2", 0, 2), part(&other, 1, "2/2", 1)}, "different spec"},
		{"seed", []*Results{part(&s, 1, "1/2", 0, 2), part(&s, 2, "2/2", 1)}, "seed 2"},
		{"out of range", []*Results{part(&s, 1, "", 0, 1, 2, 3)}, "outside"},
		{"schema", []*Results{part(&s, 1, "1/2", 0, 2), func() *Results { r := part(&s, 1, "2/2", 1); r.Schema = 1; return r }()}, "part 2 has schema_version 1"},
	} {
		_, err := Merge(tc.parts)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
	m, err := Merge([]*Results{part(&s, 1, "2/2", 1), part(&s, 1, "1/2", 2, 0)})
	if err != nil {
		t.Fatal(err)
	}
	if m.Shard != "" || len(m.Points) != 3 || m.Points[0].Index != 0 || m.Points[2].Index != 2 {
		t.Errorf("merged %+v, want 3 points in order and no shard", m)
	}
}
