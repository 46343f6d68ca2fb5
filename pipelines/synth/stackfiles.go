package synth

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/vkstat/vkstat/formats"
)

// Spec is a date's raster in driver ("GTiff" or "ENVI"): CInt16,
// CFloat32 or Float32 as s.Complex and s.Int16 say, georeferenced in UTM
// 20S (EPSG:32720; without GDAL no coordinate system, only the
// geotransform) at 10 m, with 0 the nodata value when s has a border.
func (s Stack) Spec(driver string) (formats.RasterSpec, error) {
	wkt := ""
	if formats.HaveGDAL {
		var err error
		if wkt, err = formats.EPSGWKT(32720); err != nil {
			return formats.RasterSpec{}, err
		}
	}
	typ := "Float32"
	switch {
	case s.Int16:
		typ = "CInt16"
	case s.Complex:
		typ = "CFloat32"
	}
	geo := formats.Georef{Transform: [6]float64{400000, 10, 0, 6300000, 0, -10}, HasTransform: true, Projection: wkt}
	spec := formats.RasterSpec{Driver: driver, Type: typ, Width: s.W, Height: s.H, Georef: geo}
	if s.Border > 0 {
		zero := 0.0
		spec.NoData = &zero
	}
	return spec, nil
}

// AddFiles stages s's files in out, in dir: the reflectivity map as
// reflectivity.tif (Float32, spec's georeferencing) and, when s.Change is
// not 1, the changed map as reflectivity_changed.tif; the dates as
// date_001<ext>, ... in spec (Spec's); and dates.txt listing them, for
// vkstat stack @dates.txt. progress, when set, hears of each date before
// it is drawn (t of Dates, 0-based) and of the last one done.
func (s Stack) AddFiles(ctx context.Context, out *formats.Outputs, dir, ext string, spec formats.RasterSpec, progress func(t, dates int)) error {
	sigma, changed := s.Maps()
	mapSpec := formats.RasterSpec{Driver: "GTiff", Type: "Float32", Width: s.W, Height: s.H, Georef: spec.Georef}
	if err := out.AddRaster(filepath.Join(dir, "reflectivity.tif"), mapSpec, sigma); err != nil {
		return err
	}
	if s.Change != 1 {
		if err := out.AddRaster(filepath.Join(dir, "reflectivity_changed.tif"), mapSpec, changed); err != nil {
			return err
		}
	}
	per := 1
	if s.Complex {
		per = 2
	}
	data := make([]float32, per*s.H*s.W)
	var list strings.Builder
	list.WriteString("# vkstat synth stack: one date per line\n")
	for t := 0; t < s.Dates; t++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if progress != nil {
			progress(t, s.Dates)
		}
		if err := s.Date(ctx, t, sigma, changed, data); err != nil {
			return err
		}
		name := fmt.Sprintf("date_%03d%s", t+1, ext)
		if err := out.AddRaster(filepath.Join(dir, name), spec, data); err != nil {
			return err
		}
		list.WriteString(name + "\n")
	}
	if progress != nil {
		progress(s.Dates, s.Dates)
	}
	return out.Add(filepath.Join(dir, "dates.txt"), func(wr io.Writer) error { _, err := io.WriteString(wr, list.String()); return err })
}
