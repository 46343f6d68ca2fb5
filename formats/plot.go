package formats

import (
	"errors"
	"image"
	"image/color"
	"image/draw"
	"math"
	"strconv"
)

// LinePlot is a simple x–y line plot: one curve, axes with round ticks,
// labels and a title.
type LinePlot struct {
	X, Y           []float64 // the points; a NaN y breaks the line
	Title          string
	XLabel, YLabel string
	// LogX and LogY draw x or y on a log10 scale, ticked at round values
	// (decades, or 1-2-5 within them); non-positive values are left out.
	LogX, LogY bool
	// InvertY draws larger y values lower (magnitudes).
	InvertY bool
}

var pngCurve = color.RGBA{0x1f, 0x77, 0xb4, 0xff}

// RenderLinePlot draws p as a 640×420 picture.
func RenderLinePlot(p LinePlot) (*image.RGBA, error) {
	if len(p.X) != len(p.Y) {
		return nil, errors.New("a line plot needs as many x as y values")
	}
	const width, height = 640, 420
	area := image.Rect(90, 42, width-20, height-50)
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.NewUniform(pngPaper), image.Point{}, draw.Src)
	scale := func(log bool) func(float64) float64 {
		return func(v float64) float64 {
			if !log {
				return v
			}
			if !(v > 0) {
				return math.NaN()
			}
			return math.Log10(v)
		}
	}
	tx, ty := scale(p.LogX), scale(p.LogY)
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range p.X {
		x, y := tx(p.X[i]), ty(p.Y[i])
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			continue
		}
		xlo, xhi, ylo, yhi = min(xlo, x), max(xhi, x), min(ylo, y), max(yhi, y)
	}
	if xlo > xhi {
		xlo, xhi, ylo, yhi = 0, 1, 0, 1
	}
	if xlo == xhi {
		xlo, xhi = xlo-0.5, xhi+0.5
	}
	if ylo == yhi {
		ylo, yhi = ylo-0.5, yhi+0.5
	}
	pad := (yhi - ylo) * 0.05
	ylo, yhi = ylo-pad, yhi+pad
	sx := func(x float64) float64 {
		return float64(area.Min.X) + (x-xlo)/(xhi-xlo)*float64(area.Dx()-1)
	}
	sy := func(y float64) float64 {
		f := (y - ylo) / (yhi - ylo)
		if p.InvertY {
			f = 1 - f
		}
		return float64(area.Max.Y-1) - f*float64(area.Dy()-1)
	}
	frame(img, area.Inset(-1), pngInk)
	for _, t := range axisTicks(xlo, xhi, 8, p.LogX) {
		x := int(math.Round(sx(t.at)))
		vline(img, x, area.Max.Y+1, area.Max.Y+4, pngInk)
		drawText(img, x-len(t.label)*glyphW/2, area.Max.Y+5+glyphAscent, t.label, pngInk)
	}
	for _, t := range axisTicks(ylo, yhi, 6, p.LogY) {
		y := int(math.Round(sy(t.at)))
		hline(img, area.Min.X-4, area.Min.X-1, y, pngInk)
		drawText(img, area.Min.X-6-len(t.label)*glyphW, y+glyphAscent/2-1, t.label, pngInk)
	}
	drawText(img, area.Min.X+area.Dx()/2-len(p.XLabel)*glyphW/2, height-12, p.XLabel, pngInk)
	drawTextUp(img, 4, area.Min.Y+area.Dy()/2, p.YLabel, pngInk)
	title := asciiOnly(p.Title)
	if n := (width - 16) / glyphW; len(title) > n {
		title = title[:max(0, n-3)] + "..."
	}
	drawText(img, 8, 16, title, pngInk)

	// The curve: segments between consecutive finite points, 2 px thick.
	prevOK := false
	var px, py float64
	for i := range p.X {
		x, y := tx(p.X[i]), ty(p.Y[i])
		if math.IsNaN(x) || math.IsInf(x, 0) || math.IsNaN(y) || math.IsInf(y, 0) {
			prevOK = false
			continue
		}
		x1, y1 := sx(x), sy(y)
		if prevOK {
			segment(img, px, py, x1, y1, 2, area, pngCurve)
		} else {
			segment(img, x1, y1, x1, y1, 2, area, pngCurve)
		}
		px, py, prevOK = x1, y1, true
	}
	return img, nil
}

// tick is an axis tick: where it sits (in the axis's units, log10 of the
// value on a log axis) and its label.
type tick struct {
	at    float64
	label string
}

// axisTicks returns about n round ticks over [lo, hi]; on a log axis lo
// and hi are log10 of the values, and the ticks are whole decades when
// the axis spans three or more, 1, 2 and 5 times a power of ten when it
// spans one or more, else round values within the decade.
func axisTicks(lo, hi float64, n int, log bool) []tick {
	var ts []tick
	if !log {
		for _, t := range niceTicks(lo, hi, n) {
			ts = append(ts, tick{t, formatTick(t)})
		}
		return ts
	}
	var vals []float64
	switch span := hi - lo; {
	case span >= 3:
		step := math.Ceil(span / float64(n))
		for e := math.Ceil(lo); e <= hi; e += step {
			vals = append(vals, math.Pow(10, e))
		}
	case span >= 1:
		for e := math.Floor(lo); e <= math.Ceil(hi); e++ {
			for _, m := range []float64{1, 2, 5} {
				if v := m * math.Pow(10, e); math.Log10(v) >= lo-1e-9 && math.Log10(v) <= hi+1e-9 {
					vals = append(vals, v)
				}
			}
		}
	default:
		vals = niceTicks(math.Pow(10, lo), math.Pow(10, hi), n)
	}
	for _, v := range vals {
		if v > 0 {
			ts = append(ts, tick{math.Log10(v), strconv.FormatFloat(v, 'g', 3, 64)})
		}
	}
	return ts
}
