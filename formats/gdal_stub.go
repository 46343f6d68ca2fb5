//go:build nogdal

package formats

// Built with -tags nogdal (the binaries carried to machines that have no
// GDAL, such as the offline GPU machine): rasters are unavailable and say so.

import (
	"errors"
	"fmt"
	"io"
)

// HaveGDAL reports whether this vkstat was built with GDAL.
const HaveGDAL = false

// ErrNoGDAL is the error of every raster operation in a nogdal build.
var ErrNoGDAL = errors.New("this vkstat was built without GDAL (-tags nogdal): rasters (GeoTIFF, ENVI) cannot be read or written; build it with libgdal-dev installed")

// GDALVersion is empty without GDAL.
func GDALVersion() string { return "" }

// Raster is an open GDAL dataset; without GDAL none can be opened.
type Raster struct {
	Path          string
	Width, Height int
	Bands         int
	Type, Driver  string
}

// OpenRaster fails: no GDAL.
func OpenRaster(path string) (*Raster, error) { return nil, fmt.Errorf("%s: %w", path, ErrNoGDAL) }

// Close does nothing.
func (r *Raster) Close() error { return nil }

// Complex is false.
func (r *Raster) Complex() bool { return false }

// NoData has none.
func (r *Raster) NoData(b int) (float64, bool) { return 0, false }

// Georef is empty.
func (r *Raster) Georef() Georef { return Georef{} }

// ReadComplex fails: no GDAL.
func (r *Raster) ReadComplex(b, x0, y0, w, h int, dst []float32) error { return ErrNoGDAL }

// ReadReal fails: no GDAL.
func (r *Raster) ReadReal(b, x0, y0, w, h int, dst []float32) error { return ErrNoGDAL }

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
