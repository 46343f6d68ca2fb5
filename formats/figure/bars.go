package figure

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bars is grouped bar charts, one panel above another: a group of bars
// per category, a bar per series (a device, say), each series in its
// colour (plotutil.Color(i)) with a legend. vkstat bench draws its kernel
// throughputs with it. A panel whose bars span more than a decade (a small
// case beside a large one, a CPU beside a GPU) has a log axis: on a linear
// one the small bars vanish.
type Bars []BarPanel

// BarPanel is one chart.
type BarPanel struct {
	Title, YLabel string
	// Categories label the groups along x.
	Categories []string
	// Series are the bars of each group, one value per category (0: no
	// bar).
	Series []BarSeries
}

// BarSeries is one bar of each group.
type BarSeries struct {
	Label  string
	Values []float64
}

// Size is 900 points wide and 320 high a panel.
func (b Bars) Size() (vg.Length, vg.Length) { return 900, 320 * vg.Length(max(1, len(b))) }

// Draw draws the panels one above another.
func (b Bars) Draw(c draw.Canvas) {
	c.SetColor(paper)
	c.Fill(c.Rectangle.Path())
	if len(b) == 0 {
		return
	}
	plots := make([][]*plot.Plot, len(b))
	for i, pn := range b {
		plots[i] = []*plot.Plot{pn.plot()}
	}
	tiles := draw.Tiles{Rows: len(b), Cols: 1, PadX: vg.Millimeter * 2, PadY: vg.Millimeter * 6,
		PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 2}
	canvases := plot.Align(plots, tiles, c)
	for i := range plots {
		plots[i][0].Draw(canvases[i][0])
	}
}

func (pn BarPanel) plot() *plot.Plot {
	p := plot.New()
	p.Title.Text = pn.Title
	p.Title.TextStyle.Font.Size = titleSize
	p.Y.Label.Text = pn.YLabel
	p.Legend.TextStyle.Font.Size = tickSize
	nd := len(pn.Series)
	barWidth := vg.Points(math.Max(6, math.Min(28, 160/float64(max(nd, 1)))))
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
		floor, _ = plotter.NewBarChart(fv, barWidth)
		p.Y.Scale, p.Y.Tick.Marker = plot.LogScale{}, roundTicks{log: true}
		p.Y.Min, p.Y.Max = base, top*math.Pow(10, 0.2+0.35*float64(nd)) // room for the legend
	} else {
		p.Y.Min = 0
		// Head-room for the legend above the bars.
		p.Y.Max = math.Max(top, 1e-9) * (1.15 + 0.07*float64(nd))
		p.Y.Tick.Marker = roundTicks{}
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
			continue
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
	return p
}
