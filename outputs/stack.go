package outputs

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/formats/figure"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// Stack is how a stack's statistics are written: the statistics, formats
// (tif, npy, fits) and quicklooks asked for, the plan, and what the dates
// say.
type Stack struct {
	Dir                   string
	Stats, Formats, Plots []string // Plots: the statistics drawn
	Plot                  figure.Format
	DB                    bool // mean, min and max in dB (stack.Result.Output)
	Plan                  *stack.Plan
	First                 formats.DateFile // whose georeferencing the maps carry
	Dates                 int
	Creator               string // the FITS files' CREATOR card
	Device                string // where the statistics were computed (the summary's "device")
}

// Files are the files of res: DIR/<stat>.tif (float32 GeoTIFF with the
// first date's georeferencing shifted and scaled to the window and the
// looks; the counts Int32), .npy or .fits for each statistic and format,
// and a quicklook with a colour bar for each of Plots.
func (o *Stack) Files(res *stack.Result) []File {
	plan := o.Plan
	geo := o.First.Georef.Window(plan.InX, plan.InY, plan.LooksRg, plan.LooksAz)
	var files []File
	add := func(name string, write func(w io.Writer) error) {
		p := filepath.Join(o.Dir, name)
		files = append(files, File{Path: p, Line: fmt.Sprintf("%s\t%d×%d (columns×rows)", p, res.W, res.H), Write: write})
	}
	for _, st := range o.Stats {
		v, inDB := res.Output(st, o.DB, plan.Quantity)
		t, desc := tensor.FromF32(v, res.H, res.W), []string{st}
		if inDB {
			desc = []string{st + " (dB)"}
		}
		count := stack.IsCount(st) // whole numbers: Int32 GeoTIFF, int32 NPY
		for _, f := range o.Formats {
			switch {
			case f == "tif" && count:
				add(st+".tif", func(w io.Writer) error { return formats.EncodeCountGeoTIFF(w, t, geo, desc) })
			case f == "tif":
				add(st+".tif", func(w io.Writer) error { return formats.EncodeGeoTIFF(w, t, geo, desc) })
			case f == "npy" && count:
				add(st+".npy", func(w io.Writer) error { return formats.EncodeRawNPY(w, "<i4", t.Shape, stack.Int32Bytes(t.F32)) })
			case f == "npy":
				add(st+".npy", func(w io.Writer) error { return formats.EncodeNPY(w, t) })
			case f == "fits":
				cards := []formats.FITSCard{{Key: "CREATOR", Value: o.Creator, Comment: "software"},
					{Key: "STAT", Value: st, Comment: "temporal statistic"}, {Key: "NDATES", Value: o.Dates, Comment: "dates in the stack"}}
				add(st+".fits", func(w io.Writer) error { return formats.EncodeFITS(w, t, cards) })
			}
		}
	}
	for _, st := range o.Plots {
		q := o.quicklook(res, st, geo)
		add(o.Plot.File(st), func(w io.Writer) error { return figure.Encode(w, q, o.Plot) })
	}
	return files
}

// quicklook is the map of statistic st at the ground shape of a pixel:
// the geotransform's, else the looks' (input pixels taken as square);
// intensities in dB.
func (o *Stack) quicklook(res *stack.Result, st string, geo formats.Georef) figure.Map {
	a, r := o.Plan.LooksAz, o.Plan.LooksRg
	aspect, ok := geo.PixelAspect()
	if !ok {
		aspect = float64(a) / float64(r)
	}
	q := figure.Map{Data: tensor.FromF32(res.Stat(st), res.H, res.W), Title: fmt.Sprintf("%s of %s, %d dates, %d×%d looks", st, o.Plan.Quantity, o.Dates, a, r),
		Aspect: aspect, RowsDown: true, Clip: true}
	q.X, q.Y, q.ScaleBar = o.axes(geo)
	switch st {
	case "mean", "std", "min", "max":
		q.DB, q.BarLabel = true, "dB"
		if o.Plan.Quantity == stack.Amplitude {
			q.BarLabel = "dB (10 log10 of amplitude)"
		}
	case "cv":
		q.BarLabel = "std / mean"
	case "count":
		q.BarLabel = "valid dates"
	}
	return q
}

// axes are a quicklook's axes: map coordinates where the dates have a
// north-up geotransform (figure.GeoAxes), else the input's range columns
// and azimuth lines.
func (o *Stack) axes(geo formats.Georef) (x, y figure.Axis, bar *figure.ScaleBar) {
	if x, y, bar, ok := figure.GeoAxes(geo.Transform, geo.Projection); o.First.Georef.HasTransform && ok {
		return x, y, bar
	}
	p := o.Plan
	return figure.Axis{Label: "range (input column)", Origin: float64(p.InX), Step: float64(p.LooksRg)},
		figure.Axis{Label: "azimuth (input line)", Origin: float64(p.InY), Step: float64(p.LooksAz)}, nil
}

// Summary is what a summary says of res besides its files: the dates, the
// device, the first date's size and type, the looks, the window, the
// output's size and the pixels with no valid sample in any date.
func (o *Stack) Summary(res *stack.Result) map[string]any {
	p, first := o.Plan, o.First
	return map[string]any{"dates": o.Dates, "device": o.Device,
		"input":   map[string]any{"columns": first.Width, "rows": first.Height, "type": first.Type, "first": first.Path},
		"looks":   map[string]int{"rows": p.LooksAz, "columns": p.LooksRg},
		"window":  map[string]int{"xoff": p.Window.X, "yoff": p.Window.Y, "xsize": p.Window.W, "ysize": p.Window.H},
		"columns": res.W, "rows": res.H, "empty_pixels": res.Empty()}
}
