package formats

// Pictures of maps: an SNR (or any) map as a PNG with a colour bar, pixel
// axes and circles around detections, drawn with the standard library and
// x/image's 7×13 bitmap font.

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"

	"github.com/vkstat/vkstat/tensor"
)

// Mark is a point to circle on a map: (Y, X) in the map's pixel
// coordinates (0-based, row Y, column X), with a short label.
type Mark struct {
	Y, X  float64
	Label string
}

// viridis is matplotlib's viridis colour map at 11 evenly spaced points,
// interpolated linearly in between: perceptually uniform, readable in grey
// and by colour-blind readers.
var viridis = [...]color.RGBA{
	{0x44, 0x01, 0x54, 0xff}, {0x48, 0x24, 0x75, 0xff}, {0x41, 0x44, 0x87, 0xff}, {0x35, 0x5f, 0x8d, 0xff},
	{0x2a, 0x78, 0x8e, 0xff}, {0x21, 0x91, 0x8c, 0xff}, {0x22, 0xa8, 0x84, 0xff}, {0x44, 0xbf, 0x70, 0xff},
	{0x7a, 0xd1, 0x51, 0xff}, {0xbd, 0xdf, 0x26, 0xff}, {0xfd, 0xe7, 0x25, 0xff},
}

var (
	pngNaN    = color.RGBA{0xa0, 0xa0, 0xa0, 0xff} // NaN pixels
	pngMark   = color.RGBA{0xff, 0x20, 0x20, 0xff} // detection circles
	pngInk    = color.RGBA{0x00, 0x00, 0x00, 0xff}
	pngPaper  = color.RGBA{0xff, 0xff, 0xff, 0xff}
	pngShadow = color.RGBA{0x00, 0x00, 0x00, 0xff}
)

// colormap maps f in [0, 1] to viridis.
func colormap(f float64) color.RGBA {
	if !(f > 0) { // also NaN
		return viridis[0]
	}
	if f >= 1 {
		return viridis[len(viridis)-1]
	}
	x := f * float64(len(viridis)-1)
	i := int(x)
	t := x - float64(i)
	a, b := viridis[i], viridis[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + t*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

// snrLayout places the parts of the picture of an h×w map.
type snrLayout struct {
	scale               int             // screen pixels per map pixel, when square and whole (else 0)
	sx, sy              float64         // screen pixels per map column and per map row
	mapRect, barRect    image.Rectangle // the map and the colour bar
	width, height, titY int
}

const (
	glyphW       = 7  // basicfont.Face7x13
	glyphAscent  = 11 //
	glyphDescent = 2  //
)

// layoutSNR lays out an h×w map of square pixels: each map pixel a square
// of 1 to 32 screen pixels, the map's longer side about 400 screen pixels
// where that needs no shrinking.
func layoutSNR(h, w int) snrLayout { return layoutMap(h, w, 1) }

// layoutMap lays out an h×w map whose pixels are aspect times as tall on
// the ground as they are wide (a multilooked SAR image, say), drawn at that
// aspect with its longer side 400 screen pixels.
func layoutMap(h, w int, aspect float64) snrLayout {
	var l snrLayout
	if aspect <= 0 || aspect == 1 || math.IsNaN(aspect) || math.IsInf(aspect, 0) {
		l.scale = max(1, min(32, (400+max(h, w)-1)/max(h, w)))
		l.sx, l.sy = float64(l.scale), float64(l.scale)
	} else {
		k := 400 / max(float64(w), float64(h)*aspect)
		l.sx, l.sy = k, k*aspect
	}
	left, top := 8+6*glyphW+2*glyphAscent, 44
	l.titY = 8 + glyphAscent
	l.mapRect = image.Rect(left, top, left+max(1, int(math.Round(float64(w)*l.sx))), top+max(1, int(math.Round(float64(h)*l.sy))))
	bx := l.mapRect.Max.X + 20
	l.barRect = image.Rect(bx, top, bx+16, l.mapRect.Max.Y)
	l.width = l.barRect.Max.X + 6 + 10*glyphW
	l.height = l.mapRect.Max.Y + 4 + 2*(glyphAscent+glyphDescent) + 6
	return l
}

// WriteSNRPNG draws an (H, W) map — a PACO SNR map, say — as a PNG at path:
// viridis colours from the map's smallest to its largest finite value, NaN
// pixels grey, each map pixel a square of 1 to 8 screen pixels (a 100×100
// map is drawn 4× larger), y growing upwards as astronomical images are
// shown, pixel axes, a colour bar with values, the title above, and a red
// circle (radius 4 map pixels) with its label around each mark. The file is
// written atomically.
func WriteSNRPNG(path string, snr *tensor.Tensor, detections []Mark, title string) error {
	img, err := renderSNR(snr, detections, title)
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return AtomicWrite(path, func(w io.Writer) error {
		return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, img)
	})
}

// renderSNR draws the picture WriteSNRPNG writes.
func renderSNR(snr *tensor.Tensor, marks []Mark, title string) (*image.RGBA, error) {
	return renderMap(snr, marks, title, mapStyle{barLabel: "SNR"})
}

// Quicklook says how RenderQuicklook draws a map.
type Quicklook struct {
	Title string
	// Units labels the colour bar ("dB", "m", ...); empty for none.
	Units string
	// DB draws 10·log10 of the values: SAR intensities, whose range spans
	// decades (a value of 0 or less is drawn as the bottom colour).
	DB bool
	// Aspect is a pixel's height on the ground over its width (0 or 1:
	// square), so that a multilooked image keeps its ground shape.
	Aspect float64
}

// RenderQuicklook draws an image map (a SAR statistic, say) with a colour
// bar: row 0 at the top as images are shown, and the colours spread over the
// 2nd to 98th percentiles of the finite values, so that a few bright
// scatterers do not leave the rest of the picture dark (values outside
// take the end colours).
func RenderQuicklook(t *tensor.Tensor, q Quicklook) (*image.RGBA, error) {
	return renderMap(t, nil, q.Title, mapStyle{yDown: true, clip: true, db: q.DB, aspect: q.Aspect, barLabel: q.Units})
}

// mapStyle says how renderMap draws: row 0 at the top (yDown), colours over
// the 2nd to 98th percentiles (clip) or over a fixed range, a colour map
// (viridis unless set), the axes' labels (x and y unless set), the colour
// bar's label, values in decibels (db) and the pixels' aspect.
type mapStyle struct {
	yDown, clip    bool
	fixed          bool
	lo, hi         float64
	cmap           func(float64) color.RGBA
	xLabel, yLabel string
	barLabel       string
	db             bool
	aspect         float64
}

// RenderHeatmap draws a matrix (a correlation matrix, say) with a colour
// bar over the fixed range [lo, hi] in a diverging blue–white–red map
// (NaN grey), row 0 at the top, with the given axis and colour bar labels.
func RenderHeatmap(t *tensor.Tensor, title, xLabel, yLabel, barLabel string, lo, hi float64) (*image.RGBA, error) {
	if !(hi > lo) {
		return nil, fmt.Errorf("heat map range [%v, %v] is empty", lo, hi)
	}
	return renderMap(t, nil, title, mapStyle{yDown: true, fixed: true, lo: lo, hi: hi, cmap: diverging, xLabel: xLabel, yLabel: yLabel, barLabel: barLabel})
}

// rdbu are ColorBrewer's RdBu stops, blue to red.
var rdbu = []color.RGBA{
	{0x21, 0x66, 0xac, 0xff}, {0x67, 0xa9, 0xcf, 0xff}, {0xd1, 0xe5, 0xf0, 0xff}, {0xf7, 0xf7, 0xf7, 0xff},
	{0xfd, 0xdb, 0xc7, 0xff}, {0xef, 0x8a, 0x62, 0xff}, {0xb2, 0x18, 0x2b, 0xff},
}

// diverging maps f in [0, 1] to blue (0), white (0.5) and red (1).
func diverging(f float64) color.RGBA {
	f = max(0, min(1, f))
	x := f * float64(len(rdbu)-1)
	i := min(int(x), len(rdbu)-2)
	t := x - float64(i)
	a, b := rdbu[i], rdbu[i+1]
	mix := func(p, q uint8) uint8 { return uint8(math.Round(float64(p) + t*(float64(q)-float64(p)))) }
	return color.RGBA{mix(a.R, b.R), mix(a.G, b.G), mix(a.B, b.B), 0xff}
}

func renderMap(snr *tensor.Tensor, marks []Mark, title string, st mapStyle) (*image.RGBA, error) {
	yDown, clip := st.yDown, st.clip
	colormap := colormap
	if st.cmap != nil {
		colormap = st.cmap
	}
	if snr == nil || len(snr.Shape) != 2 || snr.Shape[0] < 1 || snr.Shape[1] < 1 {
		shape := "none"
		if snr != nil {
			shape = tensor.ShapeString(snr.Shape)
		}
		return nil, fmt.Errorf("a map picture needs a 2-d (H, W) map, got shape %s", shape)
	}
	h, w := snr.Shape[0], snr.Shape[1]
	if h > 1<<14 || w > 1<<14 {
		return nil, fmt.Errorf("map of %d×%d pixels is too large to draw (at most 16384 a side)", h, w)
	}
	v := snr.Float64s()
	if len(v) != h*w {
		return nil, errors.New("map data does not match its shape")
	}
	if st.db {
		d := make([]float64, len(v))
		for i, x := range v {
			switch {
			case x > 0:
				d[i] = 10 * math.Log10(x)
			case x <= 0:
				d[i] = math.Inf(-1)
			default:
				d[i] = x // NaN
			}
		}
		v = d
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	if lo > hi { // nothing finite
		lo, hi = 0, 1
	} else if clip {
		var fin []float64
		for _, x := range v {
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				fin = append(fin, x)
			}
		}
		slices.Sort(fin)
		lo, hi = fin[len(fin)*2/100], fin[(len(fin)-1)*98/100]
	}
	rowF := func(y float64) float64 { // screen row (in map rows) of map row y
		if yDown {
			return y
		}
		return float64(h-1) - y
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	if st.fixed {
		lo, hi = st.lo, st.hi
	}

	l := layoutMap(h, w, st.aspect)
	title = asciiOnly(title)
	// Wide enough for the title and the colour bar's label, within reason.
	l.width = max(l.width, min(16+len(title)*glyphW, 1600), l.barRect.Min.X+len(st.barLabel)*glyphW+8)
	img := image.NewRGBA(image.Rect(0, 0, l.width, l.height))
	draw.Draw(img, img.Bounds(), image.NewUniform(pngPaper), image.Point{}, draw.Src)

	// The map, each screen pixel the colour of the map pixel under it (row
	// y = 0 at the bottom unless yDown).
	colour := func(val float64) color.RGBA {
		switch {
		case math.IsNaN(val):
			return pngNaN
		case math.IsInf(val, 1):
			return colormap(1)
		case math.IsInf(val, -1):
			return colormap(0)
		}
		return colormap((val - lo) / (hi - lo))
	}
	for py := l.mapRect.Min.Y; py < l.mapRect.Max.Y; py++ {
		r := min(h-1, int(float64(py-l.mapRect.Min.Y)/l.sy))
		y := r
		if !yDown {
			y = h - 1 - r
		}
		for px := l.mapRect.Min.X; px < l.mapRect.Max.X; px++ {
			x := min(w-1, int(float64(px-l.mapRect.Min.X)/l.sx))
			img.SetRGBA(px, py, colour(v[y*w+x]))
		}
	}
	frame(img, l.mapRect.Inset(-1), pngInk)

	// Pixel axes: ticks at round values of x and y, at pixel centres.
	for _, t := range niceTicks(0, float64(w-1), max(2, min(6, l.mapRect.Dx()/60))) {
		sx := l.mapRect.Min.X + int((t+0.5)*l.sx)
		vline(img, sx, l.mapRect.Max.Y+1, l.mapRect.Max.Y+4, pngInk)
		lab := formatTick(t)
		drawText(img, sx-len(lab)*glyphW/2, l.mapRect.Max.Y+5+glyphAscent, lab, pngInk)
	}
	for _, t := range niceTicks(0, float64(h-1), max(2, min(6, l.mapRect.Dy()/40))) {
		sy := l.mapRect.Min.Y + int((rowF(t)+0.5)*l.sy)
		hline(img, l.mapRect.Min.X-4, l.mapRect.Min.X-1, sy, pngInk)
		lab := formatTick(t)
		drawText(img, l.mapRect.Min.X-6-len(lab)*glyphW, sy+glyphAscent/2-1, lab, pngInk)
	}
	axisY := l.mapRect.Max.Y + 5 + 2*glyphAscent + glyphDescent
	xl, yl := "x", "y"
	if st.xLabel != "" {
		xl, yl = asciiOnly(st.xLabel), asciiOnly(st.yLabel)
	}
	drawText(img, l.mapRect.Min.X+l.mapRect.Dx()/2-len(xl)*glyphW/2, axisY, xl, pngInk)
	drawTextUp(img, 4, l.mapRect.Min.Y+l.mapRect.Dy()/2, yl, pngInk)

	// Colour bar: the top row is the largest value; its label above it.
	bh := l.barRect.Dy()
	for i := 0; i < bh; i++ {
		f := 1 - (float64(i)+0.5)/float64(bh)
		hline(img, l.barRect.Min.X, l.barRect.Max.X-1, l.barRect.Min.Y+i, colormap(f))
	}
	frame(img, l.barRect.Inset(-1), pngInk)
	for _, t := range niceTicks(lo, hi, max(2, min(7, bh/40))) {
		sy := l.barRect.Min.Y + int(math.Round((hi-t)/(hi-lo)*float64(bh-1)))
		hline(img, l.barRect.Max.X, l.barRect.Max.X+3, sy, pngInk)
		drawText(img, l.barRect.Max.X+6, sy+glyphAscent/2-1, formatTick(t), pngInk)
	}
	if st.barLabel != "" {
		drawText(img, l.barRect.Min.X, l.barRect.Min.Y-8, st.barLabel, pngInk)
	}

	// Marks.
	r := max(4*min(l.sx, l.sy), 8)
	for _, m := range marks {
		if math.IsNaN(m.X) || math.IsNaN(m.Y) || m.X < -0.5 || m.Y < -0.5 || m.X > float64(w)-0.5 || m.Y > float64(h)-0.5 {
			continue
		}
		cx := float64(l.mapRect.Min.X) + (m.X+0.5)*l.sx
		cy := float64(l.mapRect.Min.Y) + (rowF(m.Y)+0.5)*l.sy
		circle(img, cx, cy, r, 1.2, l.mapRect, pngMark)
		if m.Label != "" {
			tx, ty := int(cx+r*0.75)+2, int(cy-r*0.75)
			tx = min(tx, l.mapRect.Max.X-len(m.Label)*glyphW)
			ty = max(ty, l.mapRect.Min.Y+glyphAscent)
			outlinedText(img, tx, ty, m.Label)
		}
	}

	// Title, cut to the picture's width.
	if n := (l.width - 16) / glyphW; len(title) > n {
		title = title[:max(0, n-3)] + "..."
	}
	drawText(img, 8, l.titY, title, pngInk)
	return img, nil
}

// drawTextUp draws s reading upwards (turned 90° anticlockwise), its
// glyphs' tops to the left at x, centred on row yMid: a y axis's label.
func drawTextUp(img *image.RGBA, x, yMid int, s string, c color.Color) {
	s = asciiOnly(s)
	tw, th := len(s)*glyphW, glyphAscent+glyphDescent
	tmp := image.NewRGBA(image.Rect(0, 0, tw, th))
	drawText(tmp, 0, glyphAscent, s, c)
	y0 := yMid + tw/2
	for ty := 0; ty < th; ty++ {
		for tx := 0; tx < tw; tx++ {
			if p := tmp.RGBAAt(tx, ty); p.A != 0 {
				img.SetRGBA(x+ty, y0-tx, p)
			}
		}
	}
}

// asciiOnly replaces what the bitmap font cannot draw.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 32 || r > 126 {
			return '?'
		}
		return r
	}, s)
}

func drawText(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(asciiOnly(s))
}

// outlinedText draws white text with a black outline, readable on any colour.
func outlinedText(img *image.RGBA, x, y int, s string) {
	for dy := -1; dy <= 1; dy++ {
		for dx := -1; dx <= 1; dx++ {
			if dx != 0 || dy != 0 {
				drawText(img, x+dx, y+dy, s, pngShadow)
			}
		}
	}
	drawText(img, x, y, s, pngPaper)
}

func hline(img *image.RGBA, x0, x1, y int, c color.RGBA) {
	for x := x0; x <= x1; x++ {
		img.SetRGBA(x, y, c)
	}
}

func vline(img *image.RGBA, x, y0, y1 int, c color.RGBA) {
	for y := y0; y <= y1; y++ {
		img.SetRGBA(x, y, c)
	}
}

// frame draws the rectangle's outline (its last row and column inside).
func frame(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	hline(img, r.Min.X, r.Max.X-1, r.Min.Y, c)
	hline(img, r.Min.X, r.Max.X-1, r.Max.Y-1, c)
	vline(img, r.Min.X, r.Min.Y, r.Max.Y-1, c)
	vline(img, r.Max.X-1, r.Min.Y, r.Max.Y-1, c)
}

// circle draws a ring of radius r and half-thickness t around (cx, cy),
// clipped to clip.
func circle(img *image.RGBA, cx, cy, r, t float64, clip image.Rectangle, c color.RGBA) {
	for y := int(cy - r - t - 1); y <= int(cy+r+t+1); y++ {
		for x := int(cx - r - t - 1); x <= int(cx+r+t+1); x++ {
			if !(image.Point{X: x, Y: y}).In(clip) {
				continue
			}
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			if math.Abs(d-r) <= t {
				img.SetRGBA(x, y, c)
			}
		}
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

// RenderSNR draws a map with a colour bar, pixel axes and circles around
// marks (what WriteSNRPNG writes), for callers that publish it themselves.
func RenderSNR(snr *tensor.Tensor, marks []Mark, title string) (*image.RGBA, error) {
	return renderSNR(snr, marks, title)
}

// EncodePNG writes img as a PNG at the best compression.
func EncodePNG(w io.Writer, img image.Image) error {
	return (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(w, img)
}
