package figure

import (
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Lines is an x–y plot of one or more curves, with a legend when a curve
// is labelled.
type Lines struct {
	Title, XLabel, YLabel string
	Series                []Series
	// LogX and LogY draw x or y on a log10 scale, ticked at round values
	// (decades, or 1-2-5 within them); non-positive values are left out.
	LogX, LogY bool
	// InvertY draws larger y values lower (magnitudes).
	InvertY bool
	// YRange fixes y's range (panels side by side on one scale); nil fits
	// the data.
	YRange *[2]float64
	// Width and Height are the picture's size in points (0: 480×320).
	Width, Height vg.Length
}

// Series is one curve: the points (a NaN, or a non-positive value on a log
// axis, breaks the line), its legend label, and whether it is dashed or
// dotted (models beside data, say). The curves take gonum/plot's colours
// in turn.
type Series struct {
	Label          string
	X, Y           []float64
	Dashed, Dotted bool
}

// Size is the picture's.
func (l Lines) Size() (vg.Length, vg.Length) {
	if l.Width > 0 && l.Height > 0 {
		return l.Width, l.Height
	}
	return 480, 320
}

// Draw draws the plot in c.
func (l Lines) Draw(c draw.Canvas) {
	c.SetColor(paper)
	c.Fill(c.Rectangle.Path())
	l.plot().Draw(draw.Crop(c, 6, -8, 6, -8)) // a margin, also between panels
}

// usable says whether (x, y) can be drawn on l's axes.
func (l Lines) usable(x, y float64) bool {
	bad := func(v float64, log bool) bool { return math.IsNaN(v) || math.IsInf(v, 0) || log && !(v > 0) }
	return !bad(x, l.LogX) && !bad(y, l.LogY)
}

func (l Lines) plot() *plot.Plot {
	p := plot.New()
	p.Title.Text = l.Title
	p.Title.TextStyle.Font.Size = titleSize
	p.X.Label.Text, p.Y.Label.Text = l.XLabel, l.YLabel
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = tickSize
	xlo, xhi, ylo, yhi := math.Inf(1), math.Inf(-1), math.Inf(1), math.Inf(-1)
	for i, s := range l.Series {
		var runs []plotter.XYs
		var cur plotter.XYs
		for k := range min(len(s.X), len(s.Y)) {
			x, y := s.X[k], s.Y[k]
			if !l.usable(x, y) {
				if len(cur) > 0 {
					runs, cur = append(runs, cur), nil
				}
				continue
			}
			cur = append(cur, plotter.XY{X: x, Y: y})
			xlo, xhi, ylo, yhi = min(xlo, x), max(xhi, x), min(ylo, y), max(yhi, y)
		}
		if len(cur) > 0 {
			runs = append(runs, cur)
		}
		for j, r := range runs {
			line, err := plotter.NewLine(r)
			if err != nil {
				continue
			}
			line.Color = plotutil.Color(i)
			line.Width = 1.5
			switch {
			case s.Dashed:
				line.Dashes = []vg.Length{5, 3}
			case s.Dotted:
				line.Dashes = []vg.Length{1.5, 2.5}
			}
			var thing plot.Plotter = line
			if len(r) == 1 { // a lone point: a dot
				sc, _ := plotter.NewScatter(r)
				sc.GlyphStyle = draw.GlyphStyle{Color: line.Color, Radius: 2, Shape: draw.CircleGlyph{}}
				thing = sc
			}
			p.Add(thing)
			if j == 0 && s.Label != "" {
				p.Legend.Add(s.Label, line)
			}
		}
	}
	if xlo > xhi { // nothing to draw
		xlo, xhi, ylo, yhi = 1, 10, 1, 10
	}
	p.X.Min, p.X.Max = xlo, xhi
	p.Y.Min, p.Y.Max = ylo, yhi
	if yhi > ylo { // a margin of 5 % above and below
		if l.LogY {
			f := math.Pow(yhi/ylo, 0.05)
			p.Y.Min, p.Y.Max = ylo/f, yhi*f
		} else {
			pad := 0.05 * (yhi - ylo)
			p.Y.Min, p.Y.Max = ylo-pad, yhi+pad
		}
	}
	if l.YRange != nil {
		p.Y.Min, p.Y.Max = l.YRange[0], l.YRange[1]
	}
	for _, a := range []struct {
		ax  *plot.Axis
		log bool
	}{{&p.X, l.LogX}, {&p.Y, l.LogY}} {
		if a.ax.Min == a.ax.Max {
			a.ax.Min, a.ax.Max = a.ax.Min*0.9-0.5, a.ax.Max*1.1+0.5
			if a.log {
				a.ax.Min, a.ax.Max = a.ax.Max/10, a.ax.Max*10
			}
		}
		if a.log {
			a.ax.Scale = plot.LogScale{}
		}
		a.ax.Tick.Marker = roundTicks{log: a.log}
		a.ax.Label.TextStyle.Font.Size = labelSize
		a.ax.Tick.Label.Font.Size = tickSize
	}
	if l.InvertY {
		p.Y.Scale = plot.InvertedScale{Normalizer: p.Y.Scale}
	}
	p.BackgroundColor = color.Transparent
	return p
}

// roundTicks ticks an axis at round values: niceTicks, or logTicks on a
// log axis.
type roundTicks struct{ log bool }

func (r roundTicks) Ticks(lo, hi float64) []plot.Tick {
	vals := niceTicks(lo, hi, 6)
	if r.log {
		vals = logTicks(lo, hi, 6)
	}
	ts := make([]plot.Tick, len(vals))
	for i, v := range vals {
		ts[i] = plot.Tick{Value: v, Label: formatTick(v)}
	}
	return ts
}
