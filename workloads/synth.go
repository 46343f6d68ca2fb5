package workloads

// The files of vkstat synth stack and synth latent, above the pipelines
// that draw them (which may not import formats).

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// WriteSynthStack writes s's files to dir, all or none, as vkstat synth
// stack does (synth.Stack.Files): the dates in f (formats.HaveGDAL is
// needed for GeoTIFF), the reflectivity maps as Float32 GeoTIFF, and
// dates.txt. They are georeferenced in UTM 20S (EPSG:32720) at 10 m;
// without GDAL, by the geotransform alone. A border (s.Border) marks 0 as
// nodata. progress is Files'.
func WriteSynthStack(ctx context.Context, dir string, s synth.Stack, f synth.StackFormat, progress func(t, dates int)) error {
	wkt := ""
	if formats.HaveGDAL {
		var err error
		if wkt, err = formats.EPSGWKT(32720); err != nil {
			return err
		}
	}
	geo := formats.Georef{Transform: [6]float64{400000, 10, 0, 6300000, 0, -10}, HasTransform: true, Projection: wkt}
	date := formats.RasterSpec{Driver: f.Driver, Type: f.Type, Width: s.W, Height: s.H, Georef: geo}
	if s.Border > 0 {
		zero := 0.0
		date.NoData = &zero
	}
	maps := formats.RasterSpec{Driver: "GTiff", Type: "Float32", Width: s.W, Height: s.H, Georef: geo}
	outs := formats.Outputs{Ctx: ctx}
	defer outs.Abort()
	outs.OwnDir(dir, "synth stack")
	list, err := s.Files(ctx, f.Ext, func(name string, isDate bool, data []float32) error {
		if isDate {
			return outs.AddRaster(filepath.Join(dir, name), date, data)
		}
		return outs.AddRaster(filepath.Join(dir, name), maps, data)
	}, progress)
	if err != nil {
		return err
	}
	if err := outs.Add(filepath.Join(dir, "dates.txt"), func(w io.Writer) error { _, err := io.WriteString(w, list); return err }); err != nil {
		return err
	}
	return outs.Commit()
}

// WriteSynthLatent writes a synthetic latent of cfg (latent.Synth), stored
// as dtype (f16, bf16, f32 or f64), to path as vkstat synth latent does:
// an NPY file, or a safetensors one holding it as name with cfg's
// metadata (of shape, as given); with truth set, cfg's known structure
// as JSON there too. All or none.
func WriteSynthLatent(ctx context.Context, cfg latent.SynthConfig, dtype, shape, path, name, truth string) error {
	encode, ok := formats.TensorEncoder(path, name)
	if !ok {
		return fmt.Errorf("%s: want a .npy or .safetensors file", path)
	}
	dt, err := tensor.ParseDType(dtype)
	if err != nil {
		return err
	}
	x, err := latent.Synth(cfg)
	if err != nil {
		return err
	}
	x = x.As(dt)
	outs := formats.Outputs{Ctx: ctx}
	defer outs.Abort()
	if err := outs.Add(path, func(w io.Writer) error { return encode(w, x, cfg.Metadata(shape)) }); err != nil {
		return err
	}
	if truth != "" {
		if err := outs.Add(truth, formats.JSON(cfg.Truth(dtype))); err != nil {
			return err
		}
	}
	return outs.Commit()
}
