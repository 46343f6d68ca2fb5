//go:build nogdal

package formats

// Built with -tags nogdal (the binaries carried to machines that have no
// GDAL, such as the offline GPU machine): ENVI rasters are read by envi.go;
// everything else (GeoTIFF, writing rasters) fails and says so.

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// HaveGDAL reports whether this vkstat was built with GDAL.
const HaveGDAL = false

// ErrNoGDAL is the error of every raster operation in a nogdal build.
var ErrNoGDAL = errors.New("this vkstat was built without GDAL (-tags nogdal): it reads ENVI rasters only and writes none; build it with libgdal-dev installed")

// GDALVersion is empty without GDAL.
func GDALVersion() string { return "" }

// Raster is an open raster: without GDAL, an ENVI file.
type Raster struct {
	Path          string
	Width, Height int
	Bands         int
	Type, Driver  string
	e             *enviFile
}

// OpenRaster opens an ENVI file (with its .hdr beside it); other formats
// need GDAL.
func OpenRaster(path string) (*Raster, error) {
	if _, ok := enviHeader(path); !ok {
		if _, err := os.Stat(path); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w (only ENVI files, with their .hdr, are read without it)", path, ErrNoGDAL)
	}
	e, err := openENVI(path)
	if err != nil {
		return nil, err
	}
	return &Raster{Path: path, Width: e.width, Height: e.height, Bands: e.bands, Type: e.typ, Driver: "ENVI", e: e}, nil
}

// Close closes the file.
func (r *Raster) Close() error {
	if r == nil || r.e == nil {
		return nil
	}
	err := r.e.f.Close()
	r.e = nil
	return err
}

// Complex reports whether the samples are complex.
func (r *Raster) Complex() bool { return r.e != nil && r.e.cplx }

func (r *Raster) check(b, x0, y0, w, h, per int, dst []float32) error {
	if r.e == nil {
		return fmt.Errorf("%s: raster is closed", r.Path)
	}
	if b < 1 || b > r.Bands {
		return fmt.Errorf("%s: band %d does not exist (the file has %d)", r.Path, b, r.Bands)
	}
	if x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0+w > r.Width || y0+h > r.Height {
		return fmt.Errorf("%s: window %d×%d at (x %d, y %d) lies outside the %d×%d raster", r.Path, w, h, x0, y0, r.Width, r.Height)
	}
	if len(dst) < w*h*per {
		return fmt.Errorf("%s: buffer of %d floats for a %d×%d window", r.Path, len(dst), w, h)
	}
	return nil
}

// NoData has none.
func (r *Raster) NoData(b int) (float64, bool) { return 0, false }

// Georef is empty.
func (r *Raster) Georef() Georef { return Georef{} }

// ReadComplex reads a window as interleaved (re, im) float32 pairs.
func (r *Raster) ReadComplex(b, x0, y0, w, h int, dst []float32) error {
	if err := r.check(b, x0, y0, w, h, 2, dst); err != nil {
		return err
	}
	return r.e.read(b, x0, y0, w, h, 2, dst)
}

// ReadReal reads a window as float32 (the real part of complex samples).
func (r *Raster) ReadReal(b, x0, y0, w, h int, dst []float32) error {
	if err := r.check(b, x0, y0, w, h, 1, dst); err != nil {
		return err
	}
	return r.e.read(b, x0, y0, w, h, 1, dst)
}

// EncodeRaster fails: no GDAL.
func EncodeRaster(w io.Writer, name string, spec RasterSpec, bands []RasterBand) (map[string][]byte, error) {
	return nil, fmt.Errorf("%s: %w", name, ErrNoGDAL)
}

// WriteRaster fails: no GDAL.
func WriteRaster(path string, spec RasterSpec, bands []RasterBand) error {
	return fmt.Errorf("%s: %w", path, ErrNoGDAL)
}

// EPSGWKT fails: no GDAL.
func EPSGWKT(code int) (string, error) { return "", ErrNoGDAL }
