package plots

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
)

// notation is how the numbers of one axis, or of one set of labels (a
// heat map's cells), are written. One notation serves the whole set, so
// an axis never mixes "1e+03" with "500".
type notation int

const (
	// decimal: 0.0005, 0.25, 7.5, 5000.
	decimal notation = iota
	// siPrefix: 500, 2.5k, 750k, 1.2M, 3G: when a value reaches 10^4.
	siPrefix
	// powers: 5×10^−5, 2.5×10^3, 1 (10^0 is written as its mantissa):
	// when a nonzero value is below 10^−4 or reaches 10^21.
	powers
)

// The notation thresholds (see notation).
const (
	smallest = 1e-4 // below this (nonzero), powers of ten
	largest  = 1e4  // from this on, SI prefixes
	siLimit  = 1e21 // from this on, powers of ten (no prefix beyond E)
)

var siPrefixes = []string{"", "k", "M", "G", "T", "P", "E"}

// notationFor returns the notation of a set of values, each already
// rounded to the precision it is shown with. NaN and infinite values do
// not count.
func notationFor(vs []float64) notation {
	n := decimal
	for _, v := range vs {
		a := math.Abs(v)
		switch {
		case a == 0 || !finite(a):
		case a < smallest || a >= siLimit:
			return powers
		case a >= largest:
			n = siPrefix
		}
	}
	return n
}

// decimalsFor returns the number of decimals that show multiples of res
// > 0 exactly: 0 for 1 and 500, 1 for 0.5 and 2.5, 2 for 0.25; at most 17.
func decimalsFor(res float64) int {
	if !(res > 0) || !finite(res) {
		return 0
	}
	for d := 0; d < 17; d++ {
		s := res * math.Pow10(d)
		if math.Abs(s-math.Round(s)) <= 1e-9*s {
			return d
		}
	}
	return 17
}

// roundTo returns v rounded to a multiple of res (v itself when res is
// not a usable precision).
func roundTo(v, res float64) float64 {
	if !(res > 0) || !finite(res, v) {
		return v
	}
	q := math.Round(v / res)
	if !finite(q) {
		return v
	}
	if r := q * res; finite(r) {
		return r
	}
	return v
}

// sigRes returns the precision of v shown with digits significant digits:
// 10^(floor(log10 |v|) − digits + 1); 0 for v = 0, a value not finite, or
// one so small that the precision underflows.
func sigRes(v float64, digits int) float64 {
	if v == 0 || !finite(v) {
		return 0
	}
	return math.Pow10(decade(math.Abs(v)) - digits + 1)
}

// decade returns floor(log10 a) for a > 0 finite, also for subnormal a,
// where math.Log10 is not accurate.
func decade(a float64) int {
	if a < 1e-300 {
		return int(math.Floor(math.Log10(a*1e300))) - 300
	}
	return int(math.Floor(math.Log10(a)))
}

// mantissa returns v / 10^e, also when 10^e underflows.
func mantissa(v float64, e int) float64 {
	if e < -300 {
		return v * 1e300 / math.Pow10(e+300)
	}
	return v / math.Pow10(e)
}

// fixed writes v with d decimals and trims trailing zeros: "0.25", "3",
// never "-0".
func fixed(v float64, d int) string {
	s := strconv.FormatFloat(v, 'f', max(0, min(d, 17)), 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		s = "0"
	}
	return s
}

// formatNumber writes v, shown to a precision res (v is rounded to a
// multiple of res, and res decides the decimals; res <= 0 means 6
// significant digits), in notation n. NaN is "NaN", infinities "∞" and
// "-∞". A power of ten is written "m×10" expMark "e": the mark tells
// powerText to raise the exponent.
func formatNumber(v, res float64, n notation) string {
	switch {
	case math.IsNaN(v):
		return "NaN"
	case math.IsInf(v, 1):
		return "∞"
	case math.IsInf(v, -1):
		return "-∞"
	}
	if !(res > 0) || !finite(res) {
		res = sigRes(v, 6)
	}
	v = roundTo(v, res)
	if v == 0 {
		return "0"
	}
	a := math.Abs(v)
	switch {
	case n == siPrefix && a < siLimit:
		k := 0
		for k+1 < len(siPrefixes) && a >= math.Pow10(3*(k+1)) {
			k++
		}
		scale := math.Pow10(3 * k)
		return fixed(v/scale, decimalsFor(res/scale)) + siPrefixes[k]
	case n == powers || a >= siLimit:
		e := decade(a)
		m := mantissa(v, e)
		d := decimalsFor(mantissa(res, e))
		// Rounding may carry the mantissa to 10 (9.9996 with 3 decimals).
		if s := fixed(math.Abs(m), d); s == "10" {
			e++
			m /= 10
			d = max(0, d-1)
		}
		ms := fixed(m, d)
		switch {
		case e == 0:
			return ms
		case ms == "1":
			ms = ""
		case ms == "-1":
			ms = "-"
		default:
			ms += "×"
		}
		exp := strconv.Itoa(e)
		if e < 0 {
			exp = "−" + strconv.Itoa(-e) // U+2212, the minus sign
		}
		return ms + "10" + expMark + exp
	}
	return fixed(v, decimalsFor(res))
}

// formatAll writes values, each with its own precision res[i], in the one
// notation that suits them all (see notation).
func formatAll(vs, res []float64) []string {
	rounded := make([]float64, len(vs))
	for i, v := range vs {
		rounded[i] = roundTo(v, res[i])
	}
	n := notationFor(rounded)
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = formatNumber(v, res[i], n)
	}
	return out
}

// formatSig writes values with digits significant digits each, in one
// notation: the cells of a heat map, the values a figure marks on an axis.
func formatSig(vs []float64, digits int) []string {
	res := make([]float64, len(vs))
	for i, v := range vs {
		res[i] = sigRes(v, digits)
	}
	return formatAll(vs, res)
}

// expMark starts the exponent of a number written by formatNumber. It is
// a private-use character, so that no caller's text ("S^(k)(t)") is
// taken for a number.
const expMark = "\uE000"

// numberText is the text handler of every text plots draws: plain text,
// except that a number "m×10" expMark "e" is drawn with the exponent e
// raised and smaller (the default font has no superscript minus, zero or
// nine, and gonum's LaTeX handler no superscripts).
var numberText text.Handler = powerText{text.Plain{Fonts: font.DefaultCache}}

// powerText is text.Plain with raised exponents after expMark.
type powerText struct{ text.Plain }

// Exponents are drawn at 70% of the size, raised by 40% of the size.
const expScale, expRaise = 0.7, 0.4

func (h powerText) Box(txt string, fnt font.Font) (width, height, depth vg.Length) {
	base, exp, ok := strings.Cut(txt, expMark)
	if !ok {
		return h.Plain.Box(txt, fnt)
	}
	w, ht, d := h.Plain.Box(base, fnt)
	small := fnt
	small.Size *= expScale
	ew, eh, _ := h.Plain.Box(exp, small)
	return w + ew, max(ht, expRaise*fnt.Size+eh), d
}

func (h powerText) Draw(c vg.Canvas, txt string, sty text.Style, pt vg.Point) {
	base, exp, ok := strings.Cut(txt, expMark)
	if !ok || strings.Contains(txt, "\n") {
		h.Plain.Draw(c, txt, sty, pt)
		return
	}
	fnt := h.Fonts.Lookup(sty.Font, sty.Font.Size)
	small := sty.Font
	small.Size *= expScale
	sfnt := h.Fonts.Lookup(small, small.Size)
	c.SetColor(sty.Color)
	if sty.Rotation != 0 {
		c.Push()
		c.Rotate(sty.Rotation)
		defer c.Pop()
	}
	// The same placement as text.Plain's, for one line.
	sin64, cos64 := math.Sincos(sty.Rotation)
	sin, cos := vg.Length(sin64), vg.Length(cos64)
	pt.X, pt.Y = pt.Y*sin+pt.X*cos, pt.Y*cos-pt.X*sin
	w, ht, d := h.Box(txt, sty.Font)
	x := pt.X + vg.Length(sty.XAlign)*w
	y := pt.Y + (ht+d)*vg.Length(sty.YAlign) - fnt.Extents().Ascent + sty.Font.Size
	c.FillString(fnt, vg.Point{X: x, Y: y}, base)
	c.FillString(sfnt, vg.Point{X: x + fnt.Width(base), Y: y + expRaise*sty.Font.Size}, exp)
}
