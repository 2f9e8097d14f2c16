package plots

import (
	"math"
	"strconv"
)

// SecondsText writes a duration of s seconds for a figure's text (a
// legend, a label): four significant digits and the unit, µs below 1 ms,
// ms below 1 s, s beyond.
//
// Special cases: 0 is "0 ms"; NaN and ±Inf are written in seconds ("NaN s",
// "+Inf s").
func SecondsText(s float64) string {
	if s != 0 && math.Abs(s) < 1e-3 {
		return strconv.FormatFloat(s*1e6, 'g', 4, 64) + " µs"
	}
	if math.Abs(s) < 1 {
		return strconv.FormatFloat(s*1e3, 'g', 4, 64) + " ms"
	}
	return strconv.FormatFloat(s, 'g', 4, 64) + " s"
}
