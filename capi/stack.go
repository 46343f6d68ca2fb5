package capi

import (
	"context"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// stackCall are a stack call's parameters beside stack's own
// (stack.Params: looks, as a number n×n, a string as --looks takes it
// ("2x8") or [rows, columns]; window, GDAL's -srcwin [xoff, yoff, xsize,
// ysize] in input pixels, xsize or ysize 0 to the edge, multilooked from
// its corner, empty or null all of it; quantity, filter, filter_size
// (null or 0: 5), enl, ddof).
type stackCall struct {
	// Crop is the window's earliest spelling, [row, column, rows, columns]
	// of the multilooked image: the window of input pixels at those boxes.
	Crop []int `json:"crop"`
	// Stats are the statistics to return (empty: all).
	Stats []string `json:"stats"`
	// DB gives stack.DBStats in decibels (stack.ToDB).
	DB bool `json:"db"`
	// NoData marks missing samples of arrays in memory (a complex sample:
	// both parts); files say their own.
	NoData *float64 `json:"nodata"`
	// Paths, when given, are the dates' files (read with package formats;
	// GDAL is loaded when a raster is first opened), and Band the band
	// read (null: 1). Otherwise the dates are the call's arrays: "dates",
	// (T, H, W), or "date0", "date1", ... each (H, W), float32 (intensity)
	// or complex64 (SLC), read where they lie.
	Paths []string `json:"paths"`
	Band  *int     `json:"band"`
}

// stackParams is the type a stack call's parameters decode into:
// stack.Params, then stackCall's.
var stackParams = sync.OnceValue(func() reflect.Type { return paramsType(stack.Params(), extraFields(stackCall{})...) })

// StackInfo is stack's Info.
type StackInfo struct {
	Names      []string `json:"names"` // the statistics returned, in order
	Dates      int      `json:"dates"`
	InputShape []int    `json:"input_shape"` // (H, W) of a date
	Complex    bool     `json:"complex"`
	// Window is the input window read, as GDAL's -srcwin: xoff, yoff,
	// xsize, ysize (whole boxes: the remainder dropped).
	Window []int `json:"window"`
	// Geotransform (GDAL's six coefficients) and Projection (WKT) of the
	// outputs' grid, for dates from files; Geotransform is null when the
	// first file has none.
	Geotransform []float64 `json:"geotransform,omitempty"`
	Projection   *string   `json:"projection,omitempty"`
	FromFiles    bool      `json:"from_files"`
}

// runStack computes per-pixel temporal statistics of a stack of dates
// (stack.Run): the arrays the caller lends, or the files Paths names.
// Outputs: the statistics asked for, float32 (H, W), named as vkstat
// stack's files.
func runStack(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	j, err := prepareStack(c)
	if err != nil {
		return nil, err
	}
	r, err := stack.Run(ctx, dev, j.dates, stack.Options{Plan: j.plan})
	if err != nil {
		return nil, err
	}
	// The compute is the kernel time, the wall the pipeline's.
	return j.result(c, r).timed(engine.Timing{Kernel: r.Timing.Kernel, Wall: r.Timing.Wall}), nil
}

// stackJob is a stack call's plan: the statistics asked for, the dates,
// their grid and georeferencing (nil for arrays).
type stackJob struct {
	names  []string
	dates  []stack.Date
	grid   stack.Grid
	georef *formats.Georef
	plan   *stack.Plan
	db     bool // mean, min and max in dB (stack.ToDB)
}

// stackNames are p's statistics, checked (empty or all: every one).
func stackNames(p stackCall) ([]string, error) {
	names := p.Stats
	if len(names) == 0 || len(names) == 1 && names[0] == "all" {
		names = stack.Stats
	}
	for _, n := range names {
		if !slices.Contains(stack.Stats, n) {
			return nil, inputf("stat: unknown %q; want %s, or all", n, strings.Join(stack.Stats, ", "))
		}
	}
	return names, nil
}

// prepareStack checks the call's parameters and plans the stack of the
// dates they name (the call's arrays, or the files of Paths).
func prepareStack(c *Call) (*stackJob, error) {
	var p stackCall
	v, err := decodeCall(c, stackParams(), stack.Params(), &p)
	if err != nil {
		return nil, err
	}
	cfg, err := stackConfig(v, p.Crop)
	if err != nil {
		return nil, err
	}
	j := &stackJob{db: p.DB}
	if j.names, err = stackNames(p); err != nil {
		return nil, err
	}
	band := stack.DefaultBand
	if p.Band != nil {
		band = *p.Band
	}
	if err := stack.CheckBand(band); err != nil {
		return nil, inputError(err)
	}
	if len(p.Paths) > 0 {
		if len(c.specs) > 0 {
			return nil, inputf("dates: give paths or arrays, not both")
		}
		if p.NoData != nil {
			return nil, inputf("nodata is for arrays; files say their own")
		}
		files := c.dates
		if files == nil { // a caller other than Session.Run
			if err := inspectStack(c); err != nil {
				return nil, err
			}
			files = c.dates
		}
		f := files[0]
		j.grid = stack.Grid{Width: f.Width, Height: f.Height, Complex: f.Complex}
		j.georef = &f.Georef
		for _, f := range files {
			j.dates = append(j.dates, stack.DateOf(f.Path, f.Open))
		}
	} else {
		if band != 1 {
			return nil, inputf("band is for dates read from files")
		}
		if j.dates, j.grid, err = memoryDates(c, p.NoData); err != nil {
			return nil, err
		}
	}
	if j.plan, err = stackPlan(cfg, j.grid); err != nil {
		return nil, err
	}
	return j, nil
}

// stackPlan is stack.NewPlan, its refusal the input's.
func stackPlan(cfg stack.Config, g stack.Grid) (*stack.Plan, error) {
	plan, err := stack.NewPlan(cfg, g)
	if err != nil {
		return nil, InputError{fmt.Errorf("dates of %d×%d pixels (width×height): %w", g.Width, g.Height, err)}
	}
	return plan, nil
}

// result is r as the call's outputs (the statistics asked for, float32
// (H, W), named as vkstat stack's files) and Info.
func (j *stackJob) result(c *Call, r *stack.Result) *Result {
	res := c.Result()
	for _, n := range j.names {
		v, _ := r.Output(n, j.db, j.plan.Quantity)
		if stack.IsCount(n) { // whole numbers: int32
			res.addRaw(n, "int32", []int{r.H, r.W}, 4*int64(len(v)), func(b []byte) { copy(b, stack.Int32Bytes(v)) })
			continue
		}
		res.add(n, tensor.FromF32(v, r.H, r.W))
	}
	plan, grid := j.plan, j.grid
	info := &StackInfo{Names: j.names, Dates: r.Dates, InputShape: []int{grid.Height, grid.Width}, Complex: grid.Complex,
		Window: []int{plan.InX, plan.InY, plan.InW, plan.InH}}
	if j.georef != nil {
		g := j.georef.Window(plan.InX, plan.InY, plan.LooksRg, plan.LooksAz)
		info.FromFiles, info.Projection = true, &g.Projection
		if g.HasTransform {
			info.Geotransform = g.Transform[:]
		}
	}
	res.Info = info
	return res
}

// inspectStack opens and checks the date files a stack call names, into
// c.dates; Session.Run calls it before taking the session's lock
// (inspects). A call on arrays inspects nothing.
func inspectStack(c *Call) error {
	var p stackCall
	if _, err := decodeCall(c, stackParams(), stack.Params(), &p); err != nil || len(p.Paths) == 0 || len(c.specs) > 0 || p.NoData != nil {
		return nil // runStack words these
	}
	band := stack.DefaultBand
	if p.Band != nil {
		band = *p.Band
	}
	if stack.CheckBand(band) != nil {
		return nil
	}
	files, err := formats.CheckDates(p.Paths, band, !formats.HaveGDAL) // GDAL for the projection, where there is one
	if err != nil {
		return InputError{err}
	}
	c.dates = files
	return nil
}

// stackConfig is stack.Config from v, a decoded stack call's parameters
// (decodeCall), and its crop, checked (Config.Check) before any date is
// read.
func stackConfig(v reflect.Value, crop []int) (stack.Config, error) {
	cfg := stack.DefaultConfig()
	if err := setParams(v, stack.Params(), &cfg); err != nil {
		return cfg, err
	}
	if len(crop) > 0 {
		if cfg.Window != (stack.Window{}) {
			return cfg, inputf("crop and window are one window: give window=(xoff, yoff, xsize, ysize)")
		}
		w, err := stack.NewWindow(crop, true, cfg.LooksAz, cfg.LooksRg)
		if err != nil {
			return cfg, inputError(err)
		}
		cfg.Window = w
	}
	f := cfg.Filter
	cfg.Filter = stack.NewFilter(f.Kind, f.Size, f.ENL)
	if err := cfg.Check(); err != nil {
		return cfg, inputError(err)
	}
	return cfg, nil
}

// memoryDates wraps the call's arrays as dates, where they lie: "dates"
// (T, H, W), or "date0", "date1", ... each (H, W); float32 or complex64,
// all alike.
func memoryDates(c *Call, nodata *float64) ([]stack.Date, stack.Grid, error) {
	var g stack.Grid
	if c.Has("dates") {
		if len(c.specs) > 1 {
			return nil, g, inputf("dates: give one (T, H, W) array or date0, date1, ..., not both")
		}
		v, cplx, err := c.Float32s("dates")
		if err != nil {
			return nil, g, err
		}
		sh := c.Spec("dates").Shape
		if len(sh) != 3 || sh[0] < 1 {
			return nil, g, inputf("dates has shape %s; want (T, H, W) with T ≥ 1", tensor.ShapeString(sh))
		}
		g = stack.Grid{Width: sh[2], Height: sh[1], Complex: cplx}
		ds, err := stack.MemoryDates(v, sh[0], g, nodata)
		if err != nil {
			return nil, g, InputError{err}
		}
		return ds, g, nil
	}
	n := len(c.specs)
	if n == 0 {
		return nil, g, inputf("dates: none given")
	}
	ds := make([]stack.Date, n)
	var first ArraySpec
	for i := range n {
		name := fmt.Sprintf("date%d", i)
		if !c.Has(name) {
			return nil, g, inputf("dates: %d arrays but no %s", n, name)
		}
		v, cplx, err := c.Float32s(name)
		if err != nil {
			return nil, g, err
		}
		a := c.Spec(name)
		if len(a.Shape) != 2 {
			return nil, g, inputf("%s has shape %s; want a 2-d image per date", name, tensor.ShapeString(a.Shape))
		}
		if i == 0 {
			first, g = a, stack.Grid{Width: a.Shape[1], Height: a.Shape[0], Complex: cplx}
		} else if !tensor.SameShape(a.Shape, first.Shape) || a.DType != first.DType {
			return nil, g, inputf("%s is %s %s, but date0 is %s %s: every date must have the first's shape and type",
				name, a.DType, tensor.ShapeString(a.Shape), first.DType, tensor.ShapeString(first.Shape))
		}
		if ds[i], err = stack.MemoryDate(fmt.Sprintf("date %d", i+1), v, g, nodata); err != nil {
			return nil, g, InputError{err}
		}
	}
	return ds, g, nil
}
