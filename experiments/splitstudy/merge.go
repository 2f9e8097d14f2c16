package splitstudy

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/ratesim/ratesim/internal/version"
)

// Merge combines the results of shards of one sweep (see [experiments.Shard]) into the
// results a single run of the whole sweep gives: the same metadata with no
// shard, and every point once, in point order. Written with WriteCSV and
// WriteJSON, the merged results are byte for byte the files the single run
// writes.
//
// The parts must come from the same spec, seed and ratesim build, hold
// disjoint points, and together cover every point; the error otherwise
// names the part (by its position, 1-based) and the points.
func Merge(parts []*Results) (*Results, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("experiments: nothing to merge")
	}
	ref := parts[0]
	refSpec, err := json.Marshal(ref.Spec)
	if err != nil {
		return nil, err
	}
	out := &Results{Schema: ref.Schema, Version: ref.Version, GoVersion: ref.GoVersion, Commit: ref.Commit, Seed: ref.Seed,
		Spec: ref.Spec, PointsTotal: ref.PointsTotal}
	seen := make(map[int]int, ref.PointsTotal)
	for i, p := range parts {
		spec, err := json.Marshal(p.Spec)
		if err != nil {
			return nil, err
		}
		switch {
		case p.Schema != version.Schema:
			return nil, fmt.Errorf("experiments: part %d has schema_version %d; this ratesim reads %d: rerun that part with this build", i+1, p.Schema, version.Schema)
		case !bytes.Equal(spec, refSpec):
			return nil, fmt.Errorf("experiments: part %d has a different spec from part 1", i+1)
		case p.Seed != ref.Seed:
			return nil, fmt.Errorf("experiments: part %d has seed %d, part 1 seed %d", i+1, p.Seed, ref.Seed)
		case p.Version != ref.Version || p.GoVersion != ref.GoVersion || p.Commit != ref.Commit:
			return nil, fmt.Errorf("experiments: part %d was run by ratesim %s %s (%s), part 1 by %s %s (%s): results must come from one build",
				i+1, p.Version, p.Commit, p.GoVersion, ref.Version, ref.Commit, ref.GoVersion)
		case p.PointsTotal != ref.PointsTotal:
			return nil, fmt.Errorf("experiments: part %d has %d points in all, part 1 %d", i+1, p.PointsTotal, ref.PointsTotal)
		}
		for _, pt := range p.Points {
			if pt.Index < 0 || pt.Index >= ref.PointsTotal {
				return nil, fmt.Errorf("experiments: part %d has point %d, outside [0, %d)", i+1, pt.Index, ref.PointsTotal)
			}
			if j, dup := seen[pt.Index]; dup {
				return nil, fmt.Errorf("experiments: point %d is in part %d and part %d", pt.Index, j+1, i+1)
			}
			seen[pt.Index] = i
			out.Points = append(out.Points, pt)
		}
	}
	if len(seen) != ref.PointsTotal {
		var missing []int
		for p := 0; p < ref.PointsTotal && len(missing) < 10; p++ {
			if _, ok := seen[p]; !ok {
				missing = append(missing, p)
			}
		}
		return nil, fmt.Errorf("experiments: the parts hold %d of %d points; missing %v%s (an interrupted or absent shard?)",
			len(seen), ref.PointsTotal, missing, map[bool]string{true: ", ...", false: ""}[ref.PointsTotal-len(seen) > len(missing)])
	}
	slices.SortFunc(out.Points, func(a, b PointResult) int { return a.Index - b.Index })
	return out, nil
}
