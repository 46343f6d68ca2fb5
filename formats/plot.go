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
	// LogY draws y on a log10 scale (non-positive values are left out).
	LogY bool
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
	ty := func(v float64) float64 {
		if p.LogY {
			if !(v > 0) {
				return math.NaN()
			}
			return math.Log10(v)
		}
		return v
	}
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i := range p.X {
		x, y := p.X[i], ty(p.Y[i])
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
	for _, t := range niceTicks(xlo, xhi, 8) {
		x := int(math.Round(sx(t)))
		vline(img, x, area.Max.Y+1, area.Max.Y+4, pngInk)
		lab := formatTick(t)
		drawText(img, x-len(lab)*glyphW/2, area.Max.Y+5+glyphAscent, lab, pngInk)
	}
	for _, t := range niceTicks(ylo, yhi, 6) {
		y := int(math.Round(sy(t)))
		hline(img, area.Min.X-4, area.Min.X-1, y, pngInk)
		lab := formatTick(t)
		if p.LogY {
			lab = strconv.FormatFloat(math.Pow(10, t), 'g', 3, 64)
		}
		drawText(img, area.Min.X-6-len(lab)*glyphW, y+glyphAscent/2-1, lab, pngInk)
	}
	drawText(img, area.Min.X+area.Dx()/2-len(p.XLabel)*glyphW/2, height-12, p.XLabel, pngInk)
	drawText(img, 4, 34, p.YLabel, pngInk)
	title := asciiOnly(p.Title)
	if n := (width - 16) / glyphW; len(title) > n {
		title = title[:max(0, n-3)] + "..."
	}
	drawText(img, 8, 16, title, pngInk)

	// The curve: segments between consecutive finite points, 2 px thick.
	prevOK := false
	var px, py float64
	for i := range p.X {
		y := ty(p.Y[i])
		if math.IsNaN(p.X[i]) || math.IsNaN(y) || math.IsInf(y, 0) {
			prevOK = false
			continue
		}
		x1, y1 := sx(p.X[i]), sy(y)
		if prevOK {
			segment(img, px, py, x1, y1, 2, area, pngCurve)
		} else {
			segment(img, x1, y1, x1, y1, 2, area, pngCurve)
		}
		px, py, prevOK = x1, y1, true
	}
	return img, nil
}
