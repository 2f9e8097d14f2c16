package plots

import (
	"bytes"
	"context"
	"fmt"
	"image/color"
	"io"
	"math"
	"path/filepath"
	"strings"

	"github.com/ratesim/ratesim/internal/atomicfile"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Formats lists the file formats a figure can be saved in, chosen by the
// file name's extension.
var Formats = []string{"png", "svg", "pdf"}

// A Figure is a drawing that can be saved to a file.
type Figure interface {
	// Save writes the figure to path in the format its extension names
	// (.png, .svg or .pdf), whole or not at all (see
	// internal/atomicfile: a symbolic link is written through, a new
	// file's mode honours the umask). It returns an error, never panics,
	// for data it cannot draw.
	Save(path string) error
}

// saverContext is a [Figure] whose Save can be given a context.
type saverContext interface {
	saveContext(ctx context.Context, path string) error
}

// SaveContext is f.Save(path) that gives up, returning ctx.Err() and
// writing nothing, when ctx is done before the figure is encoded or
// written: a caller that stops waiting for a figure (a signal while
// drawing) is sure that no file appears after it returned.
func SaveContext(ctx context.Context, f Figure, path string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if s, ok := f.(saverContext); ok {
		return s.saveContext(ctx, path)
	}
	return f.Save(path)
}

// Default sizes: a figure fits a single column of a two-column paper at
// 100% or a slide; PNGs are rendered at 200 dpi.
const (
	width  = 6.4 * vg.Inch
	height = 4.2 * vg.Inch
	dpi    = 200
)

// palette is the Okabe-Ito palette, distinguishable with the common forms
// of colour blindness (M. Okabe and K. Ito, "Color Universal Design", 2008).
var okabeIto = []color.NRGBA{
	{0x00, 0x72, 0xB2, 0xff}, // blue
	{0xD5, 0x5E, 0x00, 0xff}, // vermillion
	{0x00, 0x9E, 0x73, 0xff}, // bluish green
	{0xCC, 0x79, 0xA7, 0xff}, // reddish purple
	{0xE6, 0x9F, 0x00, 0xff}, // orange
	{0x56, 0xB4, 0xE9, 0xff}, // sky blue
	{0x00, 0x00, 0x00, 0xff}, // black
	{0xF0, 0xE4, 0x42, 0xff}, // yellow
}

var gray = color.NRGBA{0x80, 0x80, 0x80, 0xff}

// Color returns colour i of the figure palette (cycling), or gray for i < 0.
func Color(i int) color.NRGBA {
	if i < 0 {
		return gray
	}
	return okabeIto[i%len(okabeIto)]
}

func withAlpha(c color.NRGBA, a uint8) color.NRGBA {
	c.A = a
	return c
}

// format returns the format named by path's extension.
func format(path string) (string, error) {
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(path), "."))
	for _, f := range Formats {
		if ext == f {
			return f, nil
		}
	}
	return "", fmt.Errorf("plots: %s: unknown figure format %q, want one of .png, .svg, .pdf", path, ext)
}

// newCanvas returns a canvas of the given size for format.
func newCanvas(format string, w, h vg.Length) vg.CanvasWriterTo {
	switch format {
	case "svg":
		return vgsvg.New(w, h)
	case "pdf":
		c := vgpdf.New(w, h)
		c.EmbedFonts(true)
		return c
	}
	return vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(w, h), vgimg.UseDPI(dpi), vgimg.UseBackgroundColor(color.White))}
}

// captionStyle is the style of the caption lines under a figure; the
// footer's is smaller and lighter.
func captionStyle(footer bool) text.Style {
	p := plot.New()
	sty := p.Title.TextStyle
	sty.Handler = numberText
	sty.Font.Size = vg.Points(8.5)
	sty.Color = color.NRGBA{0x33, 0x33, 0x33, 0xff}
	if footer {
		sty.Font.Size = vg.Points(7.5)
		sty.Color = color.NRGBA{0x66, 0x66, 0x66, 0xff}
	}
	sty.XAlign = draw.XLeft
	sty.YAlign = draw.YBottom
	return sty
}

// wrap splits s into lines no wider than w in style sty, at spaces.
func wrap(s string, sty text.Style, w vg.Length) []string {
	var lines []string
	for _, para := range strings.Split(s, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			try := word
			if line != "" {
				try = line + " " + word
			}
			if line != "" && sty.Width(try) > w {
				lines = append(lines, line)
				line = word
			} else {
				line = try
			}
		}
		if line != "" {
			lines = append(lines, line)
		}
	}
	return lines
}

const margin = vg.Length(6) // points around the figure

// render draws a figure of size (w, h) whose content draw fills the
// canvas it is given, with the caption's lines and then the footer's
// under it (the caller's text, as given: plots adds none of its own), and
// writes it to path whole or not at all.
func render(ctx context.Context, path string, w, h vg.Length, caption, footer string, content func(c draw.Canvas) error) error {
	f, err := format(path)
	if err != nil {
		return err
	}
	cw := newCanvas(f, w, h)
	dc := draw.New(cw)
	y := dc.Min.Y + margin
	for _, part := range []struct {
		text   string
		footer bool
	}{{footer, true}, {caption, false}} {
		sty := captionStyle(part.footer)
		lines := wrap(part.text, sty, w-2*margin)
		for i := len(lines) - 1; i >= 0; i-- {
			dc.FillText(sty, vg.Point{X: dc.Min.X + margin, Y: y}, lines[i])
			y += sty.Font.Size * 1.25
		}
	}
	body := draw.Crop(dc, margin, -margin, y-dc.Min.Y+captionStyle(false).Font.Size*0.625, -margin)
	if err := content(body); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	// Encode first, so that an encoding error never reaches the file.
	var buf bytes.Buffer
	if _, err := cw.WriteTo(&buf); err != nil {
		return fmt.Errorf("plots: rendering %s: %w", path, err)
	}
	err = atomicfile.Write(ctx, path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
	if err != nil {
		return fmt.Errorf("plots: %w", err)
	}
	return nil
}

// styleAxes sets the fonts, the text handler (see powerText) and the
// tick markers shared by every figure.
func styleAxes(p *plot.Plot) {
	p.Title.TextStyle.Font.Size = vg.Points(12)
	p.Title.TextStyle.Handler = numberText
	p.Title.Padding = vg.Points(6)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10.5)
		a.Label.TextStyle.Handler = numberText
		a.Tick.Label.Font.Size = vg.Points(9)
		a.Tick.Label.Handler = numberText
		a.Padding = vg.Points(2)
		a.Tick.Marker = checkedTicks{Ticker: linearTicks{}}
	}
}

// finite reports whether every value is a finite number.
func finite(xs ...float64) bool {
	for _, x := range xs {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return false
		}
	}
	return true
}
