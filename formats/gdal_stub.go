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
type Raster = ENVIRaster

// OpenRaster opens an ENVI file (with its .hdr beside it); other formats
// need GDAL. A "map info" the reader cannot read (a rotated grid) leaves the
// raster without a geotransform.
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
	return newENVIRaster(path, e), nil
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
