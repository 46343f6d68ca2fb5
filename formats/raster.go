package formats

// GDAL rasters as arrays, and the one ReadArray/WriteArray face.

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// rasterExts are the names read and written through GDAL.
var rasterExts = []string{".tif", ".tiff", ".img", ".envi", ".vrt"}

// isRasterName reports whether path names a GDAL raster by its extension.
func isRasterName(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	for _, e := range rasterExts {
		if ext == e {
			return true
		}
	}
	return false
}

// ReadRaster reads every band of a real raster as float32: shape (H, W) for
// one band, (bands, H, W) for more. Complex rasters are refused (read them
// with OpenRaster and ReadComplex, as the stack pipeline does).
func ReadRaster(path string) (*tensor.Tensor, error) {
	r, err := OpenRaster(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	if r.Complex() {
		return nil, fmt.Errorf("%s: complex raster (%s): read it with ReadComplex", path, r.Type)
	}
	n := r.Width * r.Height
	t := tensor.New(tensor.F32, r.Bands, r.Height, r.Width)
	for b := 1; b <= r.Bands; b++ {
		if err := r.ReadReal(b, 0, 0, r.Width, r.Height, t.F32[(b-1)*n:b*n]); err != nil {
			return nil, err
		}
	}
	if r.Bands == 1 {
		t.Shape = []int{r.Height, r.Width}
	}
	return t, nil
}

// EncodeGeoTIFF writes a 2-d array (H, W) or a stack of bands (B, H, W) as
// a float32 GeoTIFF with the given georeferencing and band descriptions
// (NaN as nodata), to w.
func EncodeGeoTIFF(w io.Writer, t *tensor.Tensor, g Georef, desc []string) error {
	nan := math.NaN()
	return encodeGeoTIFF(w, t, g, desc, "Float32", &nan)
}

// EncodeCountGeoTIFF is EncodeGeoTIFF for counts: t's values (whole
// numbers) written as Int32, without nodata (a count of 0 is a count).
func EncodeCountGeoTIFF(w io.Writer, t *tensor.Tensor, g Georef, desc []string) error {
	return encodeGeoTIFF(w, t, g, desc, "Int32", nil)
}

// encodeGeoTIFF is EncodeGeoTIFF as GDAL's data type typ, with nodata.
func encodeGeoTIFF(w io.Writer, t *tensor.Tensor, g Georef, desc []string, typ string, nodata *float64) error {
	if t == nil || (len(t.Shape) != 2 && len(t.Shape) != 3) {
		return fmt.Errorf("GeoTIFF: want a 2-d or 3-d array")
	}
	b, h, wd := 1, t.Shape[0], t.Shape[1]
	if len(t.Shape) == 3 {
		b, h, wd = t.Shape[0], t.Shape[1], t.Shape[2]
	}
	if b*h*wd == 0 {
		return fmt.Errorf("GeoTIFF: empty array %s", tensor.ShapeString(t.Shape))
	}
	var f []float32
	if t.DType == tensor.F32 {
		f = t.F32
	} else {
		f = make([]float32, len(t.F64))
		for i, v := range t.F64 {
			f[i] = float32(v)
		}
	}
	bands := make([]RasterBand, b)
	for i := range bands {
		bands[i].Data = f[i*h*wd : (i+1)*h*wd]
		if i < len(desc) {
			bands[i].Desc = desc[i]
		}
	}
	_, err := EncodeRaster(w, "out.tif", RasterSpec{Driver: "GTiff", Type: typ, Width: wd, Height: h, Georef: g, NoData: nodata}, bands)
	return err
}

// WriteArray writes t to path in the format its name says: .npy (NumPy),
// .fits/.fit/.fts (FITS), .tif/.tiff (float32 GeoTIFF, no georeferencing),
// atomically.
func WriteArray(path string, t *tensor.Tensor) error {
	name := strings.ToLower(path)
	switch {
	case strings.HasSuffix(name, ".npy"):
		return WriteNPY(path, t)
	case strings.HasSuffix(name, ".fits"), strings.HasSuffix(name, ".fit"), strings.HasSuffix(name, ".fts"):
		return WriteFITS(path, t, nil)
	case strings.HasSuffix(name, ".tif"), strings.HasSuffix(name, ".tiff"):
		return AtomicWrite(path, func(w io.Writer) error { return EncodeGeoTIFF(w, t, Georef{}, nil) })
	}
	return fmt.Errorf("%s: unknown array format: want .npy, .fits or .tif", path)
}

// AddRaster declares a one-band raster of spec at path: through GDAL
// (EncodeRaster) with the side files its driver writes, or, where GDAL is
// absent (HaveGDAL false), as ENVI written in Go (EncodeENVI): path with
// the extension .bin and its .hdr.
func (o *Outputs) AddRaster(path string, spec RasterSpec, data []float32) error {
	dir, name := filepath.Split(path)
	if !HaveGDAL {
		base := strings.TrimSuffix(path, filepath.Ext(name))
		var hdr []byte
		if err := o.Add(base+".bin", func(wr io.Writer) error {
			var err error
			hdr, err = EncodeENVI(wr, spec, RasterBand{Data: data})
			return err
		}); err != nil {
			return err
		}
		return o.Add(base+".hdr", func(wr io.Writer) error { _, err := wr.Write(hdr); return err })
	}
	var side map[string][]byte
	if err := o.Add(path, func(wr io.Writer) error {
		var err error
		side, err = EncodeRaster(wr, name, spec, []RasterBand{{Data: data}})
		return err
	}); err != nil {
		return err
	}
	for f, b := range side {
		if err := o.Add(filepath.Join(dir, f), func(wr io.Writer) error { _, err := wr.Write(b); return err }); err != nil {
			return err
		}
	}
	return nil
}

// checkRasterFile refuses a raster that is not a regular file: GDAL and the
// ENVI reader seek in it and open it more than once, which a pipe cannot
// serve (nothing is read twice from a FIFO; a second open waits for a
// writer that never comes). A regular file is noted as this process's
// input. A path the system does not know (GDAL's /vsi paths) passes.
func checkRasterFile(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return nil // GDAL words it
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		return fmt.Errorf("%s: not a regular file (a pipe or a device): rasters are read from regular files only; save it to a file first", path)
	}
	noteInput(st)
	return nil
}
