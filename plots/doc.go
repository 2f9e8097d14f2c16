// Package plots owns ratesim's figures. It draws from results data (plain
// slices and tables), never from live simulation objects, and imports no
// simulation package.
//
// Each figure is a value ([LinePlot], [Stack], [HeatMap], [TraceFigure],
// or the data of one, [ArrivalCurves], [BoundaryZoom], [Response], whose
// Figure method returns it) saved by [Figure.Save] as PNG, SVG or PDF.
// Lengths are in postscript points (vg.Length); data are in the units
// their labels give.
//
// # Errors and degenerate data
//
// Save and the Figure methods return an error, prefixed "plots:" and
// saying why on one line, for data that are inconsistent (lengths that
// differ, a probability outside [0, 1]) or that no axis can show (values
// spanning more than float64 can subtract); they never panic and always
// return. Everything else draws:
//
//   - NaN and infinite values are left out and break a curve there; on a
//     log axis so are values <= 0 (and those below 2^-1022, where math.Log
//     is not accurate).
//   - A log axis with no positive value to show becomes linear, and a
//     note at the top of the panel says so; a panel with nothing to show
//     says "no data" or "no finite values".
//   - A range of a single value (one point, a constant series) is widened
//     to v ± |v|/2, or to [v/10, 10·v] on a log axis; a line plot whose
//     values are all 0 shows [0, 1], not [-1, 1]. A line plot whose drawn
//     x (or y) values are all one value says so in a note ("every y value
//     is 0"), as the range around it carries no information.
//
// # Numbers
//
// One formatter writes every number plots draws: tick labels, heat map
// cells, numbers in legends. All the labels of one axis (or one heat map)
// share a notation: decimals (0.0005, 2.5, 5000), SI prefixes as soon as
// one reaches 10^4 (500, 2.5k, 750k, 1.2M), or powers of ten, m×10^e with
// a raised exponent, as soon as one is below 10^-4 (or reaches 10^21).
//
// # Legends
//
// A legend stands to the right of its axes, one entry per line. When its
// entries do not fit in the panel's height they flow into further columns;
// when the columns would take more than 40% of the figure's width, the
// last line shown reads "+ n more" for the rest. In a [Stack] all panels
// share one legend column, an entry is listed once, at the first panel
// that has it, and the data areas of the panels line up on both sides.
//
// # Black and white
//
// Colours come from the Okabe-Ito palette (see [Color]), and series are
// also told apart without colour: each labelled series with marks gets
// its own mark shape (solid curves always carry a few marks), and each
// labelled dashed curve its own dash pattern, the same in every panel of
// a figure.
//
// # Text under a figure
//
// The caption and the footer (a smaller last line, for provenance such as
// a version or a commit) are the caller's text, drawn as given; plots adds
// no text of its own there, and an empty one takes no room.
//
// # Files
//
// Save writes through internal/atomicfile: the file is whole or absent,
// a symbolic link is written through (the link stays), a new file's mode
// is 0666 minus the umask and a replaced file keeps its mode.
package plots
