// Package benchchart draws a bench report (suite.BenchReport) as bar
// charts, as vkstat bench --png does. It is not package suite's: the
// Python library, which runs suite's checks, links no drawing (gonum/plot's
// start-up parses 12 fonts).
package benchchart

import (
	"errors"
	"fmt"
	"io"
	"slices"

	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/suite"
)

// Bars is rep as bar charts, one panel per operation: the throughput of
// each case (x) on each device (bars), in the operation's unit, from the
// kernel time (the wall time where the device has no timestamps); nil
// without results.
func Bars(rep *suite.BenchReport) figure.Bars {
	var panels figure.Bars
	index := map[string]int{} // operation → panel
	for _, d := range rep.Devices {
		for _, r := range d.Results {
			i, ok := index[r.Op]
			if !ok {
				i = len(panels)
				index[r.Op] = i
				panels = append(panels, figure.BarPanel{Title: fmt.Sprintf("%s: throughput from kernel time (%s), %s size, median of %d", r.Op, r.Unit, rep.Size, rep.Repeat),
					YLabel: r.Unit})
			}
			if label := r.Case + " " + r.Precision; !slices.Contains(panels[i].Categories, label) {
				panels[i].Categories = append(panels[i].Categories, label)
			}
		}
	}
	for op, i := range index {
		pn := &panels[i]
		for _, d := range rep.Devices {
			s := figure.BarSeries{Label: d.Device.Label, Values: make([]float64, len(pn.Categories))}
			if d.Copy.GBs > 0 {
				s.Label += fmt.Sprintf(" (copy %.0f GB/s)", d.Copy.GBs)
			}
			for _, r := range d.Results {
				if k := slices.Index(pn.Categories, r.Case+" "+r.Precision); r.Op == op && r.Status == "ok" && k >= 0 {
					s.Values[k] = r.Throughput
					if !r.GPUTimed {
						s.Values[k] = r.ThroughputWall
					}
				}
			}
			pn.Series = append(pn.Series, s)
		}
	}
	return panels
}

// Write draws rep's chart (Bars) to w in the format name's extension says
// (.svg or .pdf; PNG otherwise); a report without results is an error.
func Write(w io.Writer, rep *suite.BenchReport, name string) error {
	panels := Bars(rep)
	if len(panels) == 0 {
		return errors.New("no results to plot")
	}
	f, ok := figure.FormatOf(name)
	if !ok {
		f = figure.PNG
	}
	return figure.Encode(w, panels, f)
}
