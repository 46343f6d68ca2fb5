package figure

import (
	"errors"
	"fmt"
	"image"
	"image/color"
	"math"
	"slices"
	"strconv"

	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vkstat/vkstat/tensor"
)

// Map draws an (H, W) array as an image with a colour bar: a PACO SNR map,
// a SAR statistic, a correlation matrix.
type Map struct {
	Data  *tensor.Tensor // (H, W)
	Title string
	// Colors maps [0, 1] to colours (nil: Viridis); NaN pixels are
	// NaNColor, +Inf and −Inf the ends.
	Colors Colors
	// Range fixes the colours' range; nil spreads them over the finite
	// values, or over their 2nd to 98th percentiles with Clip (a few
	// bright scatterers then do not leave the rest dark).
	Range *[2]float64
	Clip  bool
	// DB draws 10·log10 of the values (0 or less: the bottom colour).
	DB bool
	// BarLabel labels the colour bar ("SNR", "dB").
	BarLabel string
	// RowsDown draws row 0 at the top, as images are shown; otherwise at
	// the bottom, as the sky is (y up).
	RowsDown bool
	// Aspect is a pixel's height on the ground over its width (0: 1), so
	// that a multilooked image keeps its ground shape.
	Aspect float64
	// X and Y say what the columns and rows are: the zero Axis numbers
	// them from 0 (pixel centres), labelled x and y.
	X, Y Axis
	// ScaleBar, when set, draws a bar of a round length in X's units at
	// the map's bottom left (X's step must be the same on the ground as
	// Y's: a projected map).
	ScaleBar *ScaleBar
	Marks    []Mark
	// Compass, when set, draws north and east arrows (position angles 0°
	// and 90°, east of north, with north up (+y) and east left (−x) turned
	// by the north offset, the true-north correction added to position
	// angles).
	Compass *Compass
}

// Axis is what a map's columns (or rows) stand for: a pixel edge at
// position p (0 at the first pixel's outer edge, in pixels) has the value
// Origin + Step·p, as a GDAL geotransform gives them. Step 0 numbers the
// pixels from 0 at their centres.
type Axis struct {
	Label        string
	Origin, Step float64
}

// ScaleBar labels a scale bar's length in Unit ("m": metres, written in
// km from 1,000 m).
type ScaleBar struct{ Unit string }

// Mark is a point on a map: (Y, X) in pixel coordinates (row Y, column X,
// 0-based, the pixel's centre), circled in red with its label, or a star
// marker (a white cross) with Star.
type Mark struct {
	Y, X  float64
	Label string
	Star  bool
}

// Compass is the north offset of a sky map's compass, in degrees.
type Compass struct{ NorthOffset float64 }

// mapLong is the longer side of the map itself, in points.
const mapLong = 400

// mapLayout is where the parts of a map picture go, in points from the
// picture's bottom left.
type mapLayout struct {
	w, h                 vg.Length // the picture
	mapR, barR           vg.Rectangle
	lo, hi               float64 // the colours' range
	title                string
	xTicks, yTicks, bars []tick
}

// tick is an axis tick: where (points along its axis from the map's
// bottom or left edge) and its label.
type tick struct {
	at    vg.Length
	label string
}

// values are the map's values as drawn (dB applied), and the colours'
// range.
func (m Map) values() (v []float64, lo, hi float64, err error) {
	t := m.Data
	if t == nil || len(t.Shape) != 2 || t.Shape[0] < 1 || t.Shape[1] < 1 {
		shape := "none"
		if t != nil {
			shape = tensor.ShapeString(t.Shape)
		}
		return nil, 0, 0, fmt.Errorf("a map picture needs a 2-d (H, W) map, got shape %s", shape)
	}
	h, w := t.Shape[0], t.Shape[1]
	if h > 1<<14 || w > 1<<14 {
		return nil, 0, 0, fmt.Errorf("map of %d×%d pixels is too large to draw (at most 16384 a side)", h, w)
	}
	if v = t.Float64s(); len(v) != h*w {
		return nil, 0, 0, errors.New("map data does not match its shape")
	}
	if m.DB {
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
	if m.Range != nil {
		if lo, hi = m.Range[0], m.Range[1]; !(hi > lo) {
			return nil, 0, 0, fmt.Errorf("colour range [%v, %v] is empty", lo, hi)
		}
		return v, lo, hi, nil
	}
	var fin []float64
	for _, x := range v {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			fin = append(fin, x)
		}
	}
	switch {
	case len(fin) == 0:
		lo, hi = 0, 1
	case m.Clip:
		slices.Sort(fin)
		lo, hi = fin[len(fin)*2/100], fin[(len(fin)-1)*98/100]
	default:
		lo, hi = slices.Min(fin), slices.Max(fin)
	}
	if lo == hi {
		lo, hi = lo-0.5, hi+0.5
	}
	return v, lo, hi, nil
}

// value is an axis's value at edge position p of n pixels.
func (a Axis) value(p float64) float64 {
	if a.Step == 0 {
		return p - 0.5
	}
	return a.Origin + a.Step*p
}

// position is the edge position of value v.
func (a Axis) position(v float64) float64 {
	if a.Step == 0 {
		return v + 0.5
	}
	return (v - a.Origin) / a.Step
}

// ticks places round values of a along length points spanning pixels:
// as many as fit with room between their labels (across the axis when
// across, as on a y axis), at most n.
func (a Axis) ticks(pixels int, length vg.Length, n int, across bool) []tick {
	lo, hi := a.value(0), a.value(float64(pixels))
	if lo > hi {
		lo, hi = hi, lo
	}
	if a.Step == 0 { // pixel indices
		lo, hi = 0, float64(pixels-1)
	}
	ts := textStyle(tickSize)
	var out []tick
	for ; n >= 2; n-- {
		vals := niceTicks(lo, hi, n)
		out = out[:0]
		room := vg.Length(math.Inf(1))
		if len(vals) > 1 {
			room = vg.Length((vals[1]-vals[0])/math.Abs(hi-lo)) * length
		}
		need := vg.Length(0)
		for _, t := range vals {
			if a.Step == 0 && t != math.Round(t) {
				continue // pixels are counted in whole numbers
			}
			if p := a.position(t); p >= 0 && p <= float64(pixels) {
				label := stepTick(t, vals)
				out = append(out, tick{vg.Length(p/float64(pixels)) * length, label})
				if across {
					need = max(need, 2*ts.Height(label))
				} else {
					need = max(need, ts.Width(label)+10)
				}
			}
		}
		if need <= room {
			break
		}
	}
	return out
}

// stepTick writes tick t of the round values vals: large values in full,
// with the decimals their step needs (a UTM northing is 6298000, not
// 6.298e+06), others briefly.
func stepTick(t float64, vals []float64) string {
	if top := math.Abs(vals[len(vals)-1]); len(vals) >= 2 && top >= 1e4 && top < 1e10 {
		return strconv.FormatFloat(t, 'f', max(0, -int(math.Floor(math.Log10(vals[1]-vals[0])))), 64)
	}
	return formatTick(t)
}

func (m Map) layout() (mapLayout, []float64, error) {
	v, lo, hi, err := m.values()
	if err != nil {
		return mapLayout{}, nil, err
	}
	h, w := m.Data.Shape[0], m.Data.Shape[1]
	aspect := m.Aspect
	if !(aspect > 0) || math.IsInf(aspect, 0) {
		aspect = 1
	}
	k := mapLong / math.Max(float64(w), float64(h)*aspect)
	mw, mh := vg.Length(math.Max(1, float64(w)*k)), vg.Length(math.Max(1, float64(h)*aspect*k))
	l := mapLayout{lo: lo, hi: hi}
	l.xTicks = m.X.ticks(w, mw, 6, false)
	l.yTicks = m.Y.ticks(h, mh, 6, true)
	if m.RowsDown { // rows count from the top
		for i := range l.yTicks {
			l.yTicks[i].at = mh - l.yTicks[i].at
		}
	}
	for _, t := range niceTicks(lo, hi, max(2, min(7, int(mh/40)))) {
		l.bars = append(l.bars, tick{vg.Length((t-lo)/(hi-lo)) * mh, formatTick(t)})
	}
	ts, ls := textStyle(tickSize), textStyle(labelSize)
	var yw, bw vg.Length
	for _, t := range l.yTicks {
		yw = max(yw, ts.Width(t.label))
	}
	for _, t := range l.bars {
		bw = max(bw, ts.Width(t.label))
	}
	left := 6 + ls.Height("y") + 6 + yw + 6
	bottom := 6 + ls.Height("x") + 4 + ts.Height("0") + 6
	top := 8 + textStyle(titleSize).Height("T") + 6 + ls.Height("S") + 9
	bx := left + mw + 16
	l.mapR = vg.Rectangle{Min: vg.Point{X: left, Y: bottom}, Max: vg.Point{X: left + mw, Y: bottom + mh}}
	l.barR = vg.Rectangle{Min: vg.Point{X: bx, Y: bottom}, Max: vg.Point{X: bx + 14, Y: bottom + mh}}
	l.w = max(bx+14+6+bw+10, bx+ls.Width(m.BarLabel)+10)
	l.h = bottom + mh + top
	tt := textStyle(titleSize)
	l.w = max(l.w, min(tt.Width(m.Title)+20, 900))
	l.title = fit(tt, m.Title, l.w-20)
	return l, v, nil
}

// Size is the picture's; a map that cannot be drawn has a nominal size
// (Draw then draws nothing, and Check says why).
func (m Map) Size() (vg.Length, vg.Length) {
	l, _, err := m.layout()
	if err != nil {
		return 100, 100
	}
	return l.w, l.h
}

// Check reports why the map cannot be drawn, if it cannot.
func (m Map) Check() error {
	_, _, err := m.layout()
	return err
}

// image is the map's pixels in their colours, row 0 at the top of the
// image when RowsDown, each pixel repeated rep times along each side, or
// with rep 0 so that the image is at least 600 pixels on its longer side
// (viewers that smooth an SVG's or a PDF's image then blur only the edges
// between pixels).
func (m Map) image(v []float64, lo, hi float64, rep int) *image.RGBA {
	h, w := m.Data.Shape[0], m.Data.Shape[1]
	colors := m.Colors
	if colors == nil {
		colors = Viridis
	}
	if rep == 0 {
		rep = max(1, min(600/max(h, w), 64))
	}
	img := image.NewRGBA(image.Rect(0, 0, w*rep, h*rep))
	for r := range h {
		row := r
		if !m.RowsDown {
			row = h - 1 - r
		}
		// The row's first line of pixels, each map pixel's colour rep
		// times, then the line copied to the rest.
		line := img.Pix[r*rep*img.Stride:][:img.Stride]
		for x := range w {
			var c color.RGBA
			switch val := v[row*w+x]; {
			case math.IsNaN(val):
				c = NaNColor
			case math.IsInf(val, 1):
				c = colors(1)
			case math.IsInf(val, -1):
				c = colors(0)
			default:
				c = colors((val - lo) / (hi - lo))
			}
			fill(line[4*x*rep:4*(x+1)*rep], [4]byte{c.R, c.G, c.B, c.A})
		}
		for dy := 1; dy < rep; dy++ {
			copy(img.Pix[(r*rep+dy)*img.Stride:], line)
		}
	}
	return img
}

// Draw draws the map in c's rectangle (from its top left).
func (m Map) Draw(c draw.Canvas) {
	l, v, err := m.layout()
	if err != nil {
		return
	}
	o := vg.Point{X: c.Min.X, Y: c.Max.Y - l.h} // the picture's bottom left
	mr, br := l.mapR.Add(o), l.barR.Add(o)
	c.SetColor(paper)
	c.Fill(c.Rectangle.Path())
	// The vector formats get the map's pixels scaled up, which their
	// viewers would smooth; a PNG, drawn by nearest, the same pixels
	// from the map's own (TestPNGCanvasSamePixels), without a copy 600
	// pixels wide (1.3 MB to fill, at 64×64).
	rep := 0
	if _, ok := c.Canvas.(*pngCanvas); ok {
		rep = 1
	}
	c.DrawImage(mr, m.image(v, l.lo, l.hi, rep))
	frame(c, mr)

	ts, ls := textStyle(tickSize), textStyle(labelSize)
	line := draw.LineStyle{Color: ink, Width: 0.75}
	for _, t := range l.xTicks {
		x := mr.Min.X + t.at
		c.StrokeLine2(line, x, mr.Min.Y, x, mr.Min.Y-4)
		c.FillText(aligned(ts, draw.XCenter, draw.YTop), vg.Point{X: x, Y: mr.Min.Y - 5}, t.label)
	}
	for _, t := range l.yTicks {
		y := mr.Min.Y + t.at
		c.StrokeLine2(line, mr.Min.X, y, mr.Min.X-4, y)
		c.FillText(aligned(ts, draw.XRight, draw.YCenter), vg.Point{X: mr.Min.X - 6, Y: y}, t.label)
	}
	xl, yl := m.X.Label, m.Y.Label
	if xl == "" && m.X.Step == 0 {
		xl = "x"
	}
	if yl == "" && m.Y.Step == 0 {
		yl = "y"
	}
	c.FillText(aligned(ls, draw.XCenter, draw.YBottom), vg.Point{X: (mr.Min.X + mr.Max.X) / 2, Y: o.Y + 6}, xl)
	up := aligned(ls, draw.XCenter, draw.YTop)
	up.Rotation = math.Pi / 2
	c.FillText(up, vg.Point{X: o.X + 6, Y: (mr.Min.Y + mr.Max.Y) / 2}, yl)

	// The colour bar: the top is the largest value.
	colors := m.Colors
	if colors == nil {
		colors = Viridis
	}
	grad := image.NewRGBA(image.Rect(0, 0, 1, 256))
	for i := range 256 {
		grad.SetRGBA(0, i, colors(1-(float64(i)+0.5)/256))
	}
	c.DrawImage(br, grad)
	frame(c, br)
	for _, t := range l.bars {
		y := br.Min.Y + t.at
		c.StrokeLine2(line, br.Max.X, y, br.Max.X+3, y)
		c.FillText(aligned(ts, draw.XLeft, draw.YCenter), vg.Point{X: br.Max.X + 6, Y: y}, t.label)
	}
	c.FillText(ls, vg.Point{X: br.Min.X, Y: br.Max.Y + 9}, m.BarLabel)
	c.FillText(aligned(textStyle(titleSize), draw.XLeft, draw.YTop), vg.Point{X: o.X + 10, Y: o.Y + l.h - 8}, l.title)

	mc := draw.Canvas{Canvas: c.Canvas, Rectangle: mr}
	m.drawMarks(mc)
	if m.Compass != nil {
		m.drawCompass(mc)
	}
	if m.ScaleBar != nil {
		m.drawScaleBar(mc)
	}
}

// frame strokes r's outline.
func frame(c draw.Canvas, r vg.Rectangle) {
	c.StrokeLines(draw.LineStyle{Color: ink, Width: 0.75}, []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}, r.Min})
}

// at is where map pixel (row y, column x)'s centre lies in mc, the map's
// canvas.
func (m Map) at(mc draw.Canvas, y, x float64) vg.Point {
	h, w := m.Data.Shape[0], m.Data.Shape[1]
	fy := (y + 0.5) / float64(h)
	if !m.RowsDown {
		fy = 1 - fy
	}
	return vg.Point{X: mc.Min.X + vg.Length((x+0.5)/float64(w))*(mc.Max.X-mc.Min.X), Y: mc.Max.Y - vg.Length(fy)*(mc.Max.Y-mc.Min.Y)}
}

func (m Map) drawMarks(mc draw.Canvas) {
	h, w := m.Data.Shape[0], m.Data.Shape[1]
	px := float64(mc.Max.X-mc.Min.X) / float64(w)
	r := vg.Length(math.Max(4*px, 6))
	ls := textStyle(labelSize)
	for _, k := range m.Marks {
		if math.IsNaN(k.X) || math.IsNaN(k.Y) || k.X < -0.5 || k.Y < -0.5 || k.X > float64(w)-0.5 || k.Y > float64(h)-0.5 {
			continue
		}
		p := m.at(mc, k.Y, k.X)
		if k.Star {
			for _, pass := range []draw.LineStyle{{Color: ink, Width: 3.5}, {Color: paper, Width: 1.5}} {
				mc.StrokeLines(pass, mc.ClipLinesXY([]vg.Point{{X: p.X - 7, Y: p.Y}, {X: p.X + 7, Y: p.Y}}, []vg.Point{{X: p.X, Y: p.Y - 7}, {X: p.X, Y: p.Y + 7}})...)
			}
		} else {
			ring := make([]vg.Point, 49)
			for i := range ring {
				a := 2 * math.Pi * float64(i) / 48
				ring[i] = vg.Point{X: p.X + r*vg.Length(math.Cos(a)), Y: p.Y + r*vg.Length(math.Sin(a))}
			}
			mc.StrokeLines(draw.LineStyle{Color: MarkColor, Width: 1.5}, mc.ClipLinesXY(ring)...)
		}
		if k.Label != "" {
			pt := vg.Point{X: min(p.X+0.75*r+2, mc.Max.X-ls.Width(k.Label)-2), Y: min(p.Y+0.75*r, mc.Max.Y-ls.Height(k.Label)-2)}
			haloText(mc, ls, pt, k.Label, paper, ink)
		}
	}
}

// drawCompass draws N and E arrows from a point near the map's top left.
func (m Map) drawCompass(mc draw.Canvas) {
	n := math.Min(float64(mc.Max.X-mc.Min.X), float64(mc.Max.Y-mc.Min.Y))
	length := vg.Length(math.Max(10, math.Min(40, n/8)))
	ls := textStyle(labelSize)
	o := vg.Point{X: mc.Min.X + length + 16, Y: mc.Max.Y - length - 18}
	for _, a := range []struct {
		label string
		theta float64 // map angle from +x towards +y, degrees
	}{{"N", 90 - m.Compass.NorthOffset}, {"E", 180 - m.Compass.NorthOffset}} {
		t := a.theta * math.Pi / 180
		ux, uy := math.Cos(t), math.Sin(t)
		if m.RowsDown { // +y (rows) points down the picture
			uy = -uy
		}
		tip := vg.Point{X: o.X + length*vg.Length(ux), Y: o.Y + length*vg.Length(uy)}
		head := func(side float64) vg.Point {
			c, s := math.Cos(side), math.Sin(side)
			return vg.Point{X: tip.X - 6*vg.Length(ux*c-uy*s), Y: tip.Y - 6*vg.Length(ux*s+uy*c)}
		}
		for _, pass := range []draw.LineStyle{{Color: paper, Width: 3}, {Color: ink, Width: 1.2}} {
			mc.StrokeLines(pass, mc.ClipLinesXY([]vg.Point{o, tip}, []vg.Point{head(0.5), tip, head(-0.5)})...)
		}
		lp := vg.Point{X: tip.X + 9*vg.Length(ux), Y: tip.Y + 9*vg.Length(uy)}
		haloText(mc, aligned(ls, draw.XCenter, draw.YCenter), lp, a.label, ink, paper)
	}
}

// scaleLength is the round length (1, 2 or 5 × 10^k) at most want, and its
// label in unit (metres from 1,000 in km).
func scaleLength(want float64, unit string) (float64, string) {
	length := math.Pow(10, math.Floor(math.Log10(want)))
	for _, f := range []float64{5, 2} {
		if f*length <= want {
			length *= f
			break
		}
	}
	if unit == "m" && length >= 1000 {
		return length, formatTick(length/1000) + " km"
	}
	return length, formatTick(length) + " " + unit
}

// drawScaleBar draws a bar of a round length, about a quarter of the
// map's width, at its bottom left.
func (m Map) drawScaleBar(mc draw.Canvas) {
	w := m.Data.Shape[1]
	step := math.Abs(m.X.Step)
	if !(step > 0) || math.IsInf(step, 0) {
		return
	}
	length, label := scaleLength(0.25*step*float64(w), m.ScaleBar.Unit)
	bar := vg.Length(length/step/float64(w)) * (mc.Max.X - mc.Min.X)
	x0, y0 := mc.Min.X+10, mc.Min.Y+10
	r := vg.Rectangle{Min: vg.Point{X: x0, Y: y0}, Max: vg.Point{X: x0 + bar, Y: y0 + 4}}
	mc.SetColor(paper)
	mc.Fill(r.Path())
	frame(mc, r)
	haloText(mc, aligned(textStyle(tickSize), draw.XLeft, draw.YBottom), vg.Point{X: x0, Y: y0 + 7}, label, ink, paper)
}
