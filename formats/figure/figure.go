// Package figure draws vkstat's pictures — maps with a colour bar, line
// plots, bar charts and grids of them — as PNG, SVG or PDF through
// gonum/plot's vector graphics, all in one font (gonum/plot's Liberation
// Sans) at one set of sizes. It is apart from package formats so that what
// reads and writes arrays does not carry a plotting library.
package figure

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"

	"git.sr.ht/~sbinet/gg"
	xdraw "golang.org/x/image/draw"
	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgpdf"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is a picture's file format.
type Format string

// The formats: PNG (at DPI), and SVG and PDF, vector with the font
// embedded.
const (
	PNG Format = "png"
	SVG Format = "svg"
	PDF Format = "pdf"
)

// Formats lists the formats, PNG first.
var Formats = []Format{PNG, SVG, PDF}

// ParseFormat reads a format's name; "" is PNG.
func ParseFormat(s string) (Format, error) {
	switch f := Format(strings.ToLower(strings.TrimSpace(s))); f {
	case "":
		return PNG, nil
	case PNG, SVG, PDF:
		return f, nil
	}
	return "", fmt.Errorf("picture format %q: want png, svg or pdf", s)
}

// FormatOf is the format a file name's extension names, and whether it
// names one.
func FormatOf(path string) (Format, bool) {
	i := strings.LastIndexByte(path, '.')
	if i < 0 {
		return "", false
	}
	f, err := ParseFormat(path[i+1:])
	return f, err == nil && path[i+1:] != ""
}

// File is base with the format's extension: "snr" → "snr.svg".
func (f Format) File(base string) string {
	if f == "" {
		f = PNG
	}
	return base + "." + string(f)
}

// DPI is the resolution of PNG pictures: their sizes are in points, 1/72
// inch, so a picture 400 points wide is 533 pixels.
const DPI = 96

// A Figure is a picture: its size and how to draw it in a canvas's
// rectangle (the whole canvas, or a panel of a Grid).
type Figure interface {
	Size() (w, h vg.Length)
	Draw(c draw.Canvas)
}

// Encode draws f and writes it to w in format.
func Encode(w io.Writer, f Figure, format Format) error {
	fw, fh := f.Size()
	if !(fw > 0 && fh > 0) || fw > 20000 || fh > 20000 {
		return fmt.Errorf("a picture of %v×%v points", fw, fh)
	}
	var c vg.CanvasWriterTo
	switch format {
	case PNG, "":
		return encodePNG(w, rasterise(f, fw, fh, false))
	case SVG:
		c = vgsvg.NewWith(vgsvg.UseWH(fw, fh), vgsvg.EmbedFonts(true))
	case PDF:
		c = pdfCanvas{vgpdf.New(fw, fh)}
	default:
		return fmt.Errorf("picture format %q: want png, svg or pdf", format)
	}
	f.Draw(draw.New(c))
	if format != SVG {
		_, err := c.WriteTo(w)
		return err
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	_, err := w.Write(fixSVG(buf.Bytes()))
	return err
}

// rasterise draws f, fw×fh points, in pixels at DPI: on a pngCanvas with
// nearest's scaling, or with plain on vgimg's own canvas with
// NearestNeighbor's (the pixels they must match).
func rasterise(f Figure, fw, fh vg.Length, plain bool) *image.RGBA {
	px := func(l vg.Length) int { return int(math.Ceil(l.Dots(DPI))) }
	img := image.NewRGBA(image.Rect(0, 0, px(fw), px(fh)))
	ctx := gg.NewContextForRGBA(img)
	// Map pixels scaled up stay squares of one colour.
	if plain {
		ctx.SetInterpolator(xdraw.NearestNeighbor)
	} else {
		ctx.SetInterpolator(nearest{})
	}
	ctx.SetLineCapButt()
	ctx.InvertY()
	vc := vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(DPI))
	if plain {
		f.Draw(draw.New(vc))
	} else {
		f.Draw(draw.New(newPNGCanvas(vc)))
	}
	return img
}

// fixSVG mends what gonum/plot's vgsvg (v0.17) writes for images: their
// data are PNG, not the "image/jpg" it names (viewers that trust the type
// show nothing), and they are to fill the rectangle given, not keep their
// own aspect ratio (a colour bar's 1-pixel-wide gradient became a line).
func fixSVG(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("data:image/jpg;base64,"), []byte("data:image/png;base64,"))
	return bytes.ReplaceAll(b, []byte("<image "), []byte(`<image preserveAspectRatio="none" `))
}

// pdfCanvas mends two faults of gonum/plot's vgpdf (v0.17): it draws
// images upside down, and it writes text as UTF-8 bytes into fonts encoded
// as Windows-1252 ("—" came out as "â€”").
type pdfCanvas struct{ *vgpdf.Canvas }

func (c pdfCanvas) DrawImage(r vg.Rectangle, img image.Image) {
	b := img.Bounds()
	flip := image.NewRGBA(image.Rect(0, 0, b.Dx(), b.Dy()))
	for y := range b.Dy() {
		for x := range b.Dx() {
			flip.Set(x, b.Dy()-1-y, img.At(b.Min.X+x, b.Min.Y+y))
		}
	}
	c.Canvas.DrawImage(r, flip)
}

func (c pdfCanvas) FillString(f font.Face, pt vg.Point, s string) {
	c.Canvas.FillString(f, pt, windows1252(s))
}

// windows1252 writes s in the encoding of vgpdf's fonts: what it lacks
// spelled in letters it has (σ as sigma, − as -), the rest as "?".
func windows1252(s string) string {
	s = strings.NewReplacer("−", "-", "σ", "sigma", "θ", "theta", "ρ", "rho", "μ", "µ", "Δ", "delta", "∝", "~", "√", "sqrt", "→", "->", "′", "'", "″", "\"").Replace(s)
	out, err := encoding.ReplaceUnsupported(charmap.Windows1252.NewEncoder()).String(s)
	if err != nil {
		return s
	}
	return out
}

// Every picture's text is Liberation Sans: gonum/plot's default font is
// its serif face, which plot.New then gives titles, axes and legends too.
func init() { plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"} }

// The sizes of text, in points, as gonum/plot's defaults: titles and axis
// labels 12, tick labels and legends 10.
const (
	titleSize = 12
	labelSize = 12
	tickSize  = 10
)

var (
	ink   = color.Black
	paper = color.White
)

// textStyle is the one font at size, black, left and bottom aligned.
func textStyle(size vg.Length) text.Style {
	return text.Style{Color: ink, Font: font.From(plot.DefaultFont, size), Handler: plot.DefaultTextHandler,
		XAlign: draw.XLeft, YAlign: draw.YBottom}
}

// aligned is sty aligned so.
func aligned(sty text.Style, x text.XAlignment, y text.YAlignment) text.Style {
	sty.XAlign, sty.YAlign = x, y
	return sty
}

// fit shortens s with an ellipsis until it is at most width wide in sty.
func fit(sty text.Style, s string, width vg.Length) string {
	if sty.Width(s) <= width {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && sty.Width(string(r)+"…") > width {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}

// haloText draws s in colour fill with an outline of colour halo, readable
// on any background (labels on a map).
func haloText(c draw.Canvas, sty text.Style, pt vg.Point, s string, fill, halo color.Color) {
	sty.Color = halo
	for _, d := range [][2]vg.Length{{-1, 0}, {1, 0}, {0, -1}, {0, 1}, {-0.7, -0.7}, {0.7, 0.7}, {-0.7, 0.7}, {0.7, -0.7}} {
		c.FillText(sty, vg.Point{X: pt.X + d[0], Y: pt.Y + d[1]}, s)
	}
	sty.Color = fill
	c.FillText(sty, pt, s)
}

// Grid lays figures out in rows of cols panels, each in a cell the size of
// the largest.
type Grid struct {
	Panels []Figure
	Cols   int
}

func (g Grid) cell() (w, h vg.Length) {
	for _, p := range g.Panels {
		pw, ph := p.Size()
		w, h = max(w, pw), max(h, ph)
	}
	return w, h
}

func (g Grid) cols() int { return max(1, min(g.Cols, len(g.Panels))) }

// Size is the grid's.
func (g Grid) Size() (vg.Length, vg.Length) {
	w, h := g.cell()
	rows := (len(g.Panels) + g.cols() - 1) / g.cols()
	return w * vg.Length(g.cols()), h * vg.Length(rows)
}

// Draw draws each panel in its cell, row by row from the top.
func (g Grid) Draw(c draw.Canvas) {
	w, h := g.cell()
	for i, p := range g.Panels {
		col, row := i%g.cols(), i/g.cols()
		minPt := vg.Point{X: c.Min.X + w*vg.Length(col), Y: c.Max.Y - h*vg.Length(row+1)}
		p.Draw(draw.Canvas{Canvas: c.Canvas, Rectangle: vg.Rectangle{Min: minPt, Max: vg.Point{X: minPt.X + w, Y: minPt.Y + h}}})
	}
}

// niceTicks returns round values (multiples of 1, 2 or 5 × 10^k) in
// [lo, hi], about n of them.
func niceTicks(lo, hi float64, n int) []float64 {
	if !(hi > lo) || n < 1 {
		return []float64{lo}
	}
	raw := (hi - lo) / float64(n)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	var step float64 // Heckbert's "nice numbers"
	switch f := raw / mag; {
	case f < 1.5:
		step = mag
	case f < 3:
		step = 2 * mag
	case f < 7:
		step = 5 * mag
	default:
		step = 10 * mag
	}
	var ticks []float64
	for k := math.Ceil(lo/step - 1e-9); k*step <= hi+1e-9*step; k++ {
		t := k * step
		if math.Abs(t) < step*1e-9 {
			t = 0
		}
		ticks = append(ticks, t)
	}
	return ticks
}

// formatTick writes a tick value briefly.
func formatTick(t float64) string {
	return strconv.FormatFloat(t, 'g', 4, 64)
}

// logTicks returns about n ticks over [lo, hi] (values, both > 0) that a
// reader can name: whole decades when the range spans three or more, 1, 2
// and 5 times a power of ten when it spans one or more, else round values
// within the decade.
func logTicks(lo, hi float64, n int) []float64 {
	llo, lhi := math.Log10(lo), math.Log10(hi)
	var vals []float64
	switch span := lhi - llo; {
	case span >= 3:
		step := math.Ceil(span / float64(n))
		for e := math.Ceil(llo); e <= lhi; e += step {
			vals = append(vals, math.Pow(10, e))
		}
	case span >= 1:
		for e := math.Floor(llo); e <= math.Ceil(lhi); e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); math.Log10(v) >= llo-1e-9 && math.Log10(v) <= lhi+1e-9 {
					vals = append(vals, v)
				}
			}
		}
	default:
		vals = niceTicks(lo, hi, n)
	}
	out := vals[:0]
	for _, v := range vals {
		if v > 0 {
			out = append(out, v)
		}
	}
	return out
}
