package splitstudy

import (
	"maps"
	"slices"
	"strings"
)

// PointKey implements the point keys of experiments.RunModel: the value of
// every sweepable parameter at the point, so that a point listed twice in
// the sweep (in two grids of a union) runs once.
func (m *Model) PointKey(point int) string {
	p := &m.pts[point]
	var b strings.Builder
	for _, name := range slices.Sorted(maps.Keys(axisKind)) {
		b.WriteString(name + "=" + formatAxisValue(p.axisValue(name)) + ";")
	}
	return b.String()
}
