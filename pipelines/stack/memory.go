package stack

import "fmt"

// memoryDate is one date held in memory: its grid's samples (2·W·H floats,
// interleaved, for a complex grid).
type memoryDate struct {
	name   string
	g      Grid
	data   []float32
	nodata float64
	has    bool
}

// MemoryDates wraps dates held in memory, T of them one after another in
// data (each 2·W·H floats, interleaved re, im, for a complex grid; W·H
// otherwise), as Dates: for `vkstat verify`, `vkstat bench` and tests.
// nodata, when not nil, marks missing samples in every date.
func MemoryDates(data []float32, T int, g Grid, nodata *float64) ([]Date, error) {
	per := g.Width * g.Height
	if g.Complex {
		per *= 2
	}
	if T < 1 || len(data) != T*per {
		return nil, fmt.Errorf("%w: %d floats for %d dates of %d×%d (complex %v)", ErrConfig, len(data), T, g.Width, g.Height, g.Complex)
	}
	ds := make([]Date, T)
	for t := range ds {
		ds[t], _ = MemoryDate(fmt.Sprintf("date %d", t+1), data[t*per:(t+1)*per], g, nodata)
	}
	return ds, nil
}

// MemoryDate wraps one date held in memory, read where it lies (no copy):
// 2·W·H floats, interleaved re, im, for a complex grid; W·H otherwise.
// nodata, when not nil, marks missing samples.
func MemoryDate(name string, data []float32, g Grid, nodata *float64) (Date, error) {
	per := g.Width * g.Height
	if g.Complex {
		per *= 2
	}
	if len(data) != per {
		return nil, fmt.Errorf("%w: %s: %d floats for a date of %d×%d (complex %v)", ErrConfig, name, len(data), g.Width, g.Height, g.Complex)
	}
	d := &memoryDate{name: name, g: g, data: data}
	if nodata != nil {
		d.nodata, d.has = *nodata, true
	}
	return d, nil
}

func (d *memoryDate) Name() string            { return d.name }
func (d *memoryDate) Open() (Reader, error)   { return d, nil }
func (d *memoryDate) Close() error            { return nil }
func (d *memoryDate) NoData() (float64, bool) { return d.nodata, d.has }

func (d *memoryDate) Read(x0, y0, w, h int, dst []float32) error {
	per := 1
	if d.g.Complex {
		per = 2
	}
	if x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0+w > d.g.Width || y0+h > d.g.Height || len(dst) < w*h*per {
		return fmt.Errorf("%s: window %d×%d at (%d, %d) outside %d×%d", d.name, w, h, x0, y0, d.g.Width, d.g.Height)
	}
	for y := 0; y < h; y++ {
		row := ((y0+y)*d.g.Width + x0) * per
		copy(dst[y*w*per:(y+1)*w*per], d.data[row:row+w*per])
	}
	return nil
}
