package splitstudy

import (
	"math"
	"strings"
)

// LeastBadRow is the point of a group (see [SweepFigures]) with the
// smallest split/one ratio among its stable points.
type LeastBadRow struct {
	Group         string  // the fixed axes, "burst = 10, load = 0.9" ("all" with none)
	Point         string  // the plotted axes at the best point, "p = 0.5, q = 0.5"
	Ratio, Lo, Hi float64 // the ratio and its 95% confidence interval
	Stable        int     // stable points in the group
	Points        int     // points in the group
}

// LeastBad returns, for each group of points, the stable point with the
// smallest split/one ratio, in group order; points with k = 1 (no split:
// the ratio is 1) do not count, and groups without a stable split with a
// finite ratio are left out.
func LeastBad(res *Results) []LeastBadRow {
	var rows []LeastBadRow
	for _, g := range groups(res) {
		var best *PointResult
		stable := 0
		for _, pr := range g.pts {
			if !pr.Stable() && !math.IsNaN(float64(pr.MaxSubLoad)) {
				continue
			}
			stable++
			if pr.K > 1 && finite(float64(pr.Ratio)) && (best == nil || pr.Ratio < best.Ratio) {
				best = pr
			}
		}
		if best == nil {
			continue
		}
		var parts []string
		for _, a := range []string{g.ser, g.x} {
			if a != "" {
				parts = append(parts, shortName(a)+" = "+formatAxisValue(best.axisValue(a)))
			}
		}
		group := g.label
		if group == "" {
			group = "all"
		}
		rows = append(rows, LeastBadRow{Group: group, Point: strings.Join(parts, ", "), Ratio: float64(best.Ratio),
			Lo: float64(best.RatioLo), Hi: float64(best.RatioHi), Stable: stable, Points: len(g.pts)})
	}
	return rows
}
