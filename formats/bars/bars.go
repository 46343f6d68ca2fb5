// Package bars draws grouped bar charts as PNG: one panel per quantity,
// a group of bars per category, a bar per series (a device, say), each
// series in its colour (plotutil.Color(i)) with a legend. vkstat bench draws its kernel
// throughputs with it. It is apart from package formats so that what
// reads and writes arrays does not carry a plotting library.
package bars

import (
	"errors"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// Panel is one chart.
type Panel struct {
	Title, YLabel string
	// Categories label the groups along x.
	Categories []string
	// Series are the bars of each group, one value per category (0: no
	// bar).
	Series []Series
}

// Series is one bar of each group.
type Series struct {
	Label  string
	Values []float64
}

// WritePNG draws the panels one above another, 900 points wide and 320
// high each, and writes the picture to w as a PNG. A panel whose bars span
// more than a decade (a small case beside a large one, a CPU beside a GPU)
// has a log axis: on a linear one the small bars vanish.
func WritePNG(w io.Writer, panels []Panel) error {
	if len(panels) == 0 {
		return errors.New("no bars to draw")
	}
	plots := make([][]*plot.Plot, len(panels))
	for i, pn := range panels {
		p, err := panel(pn)
		if err != nil {
			return err
		}
		plots[i] = []*plot.Plot{p}
	}
	width, height := vg.Points(900), vg.Points(320*float64(len(panels)))
	img := vgimg.New(width, height)
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(panels), Cols: 1, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 6,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, dc)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
	_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(w)
	return err
}

func panel(pn Panel) (*plot.Plot, error) {
	p := plot.New()
	p.Title.Text = pn.Title
	p.Y.Label.Text = pn.YLabel
	nd := len(pn.Series)
	barWidth := vg.Points(math.Max(6, math.Min(28, 160/float64(nd))))
	top, low := 0.0, math.Inf(1)
	for _, s := range pn.Series {
		for _, v := range s.Values {
			top = math.Max(top, v)
			if v > 0 {
				low = math.Min(low, v)
			}
		}
	}
	// Log bars stand on a hidden floor of round value.
	var floor *plotter.BarChart
	logY := top > 10*low
	if logY {
		base := math.Pow(10, math.Ceil(math.Log10(low))-1) // below the lowest bar
		fv := make(plotter.Values, len(pn.Categories))
		for k := range fv {
			fv[k] = base
		}
		var err error
		if floor, err = plotter.NewBarChart(fv, barWidth); err != nil {
			return nil, err
		}
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, plot.LogTicks{Prec: -1}
		p.Y.Min, p.Y.Max = base, top*math.Pow(10, 0.2+0.35*float64(nd)) // room for the legend
	} else {
		p.Y.Min = 0
		// Head-room for the legend above the bars.
		p.Y.Max = math.Max(top, 1e-9) * (1.15 + 0.07*float64(nd))
	}
	for j, s := range pn.Series {
		vals := make(plotter.Values, len(pn.Categories))
		copy(vals, s.Values)
		if logY {
			for k, v := range vals {
				vals[k] = math.Max(0, v-floor.Values[k])
			}
		}
		bars, err := plotter.NewBarChart(vals, barWidth)
		if err != nil {
			return nil, err
		}
		if logY {
			bars.StackOn(floor)
		}
		bars.LineStyle.Width = 0
		bars.Color = plotutil.Color(j)
		bars.Offset = vg.Length(float64(j)-float64(nd-1)/2) * barWidth
		p.Add(bars)
		p.Legend.Add(s.Label, bars)
	}
	p.Legend.Top = true
	p.Legend.Left = true
	p.Legend.XOffs = vg.Millimeter * 4
	p.Legend.Padding = vg.Points(4)
	p.X.Padding = vg.Millimeter * 10
	p.NominalX(pn.Categories...)
	return p, nil
}
