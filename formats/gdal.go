//go:build !nogdal

package formats

// A thin cgo binding to GDAL (Debian's libgdal-dev), for the raster formats
// SAR users have: GeoTIFF, ENVI and whatever else the installed GDAL reads.
// There is no Go binding on the module proxy, so this is our own, kept to
// what vkstat needs: open a raster, its size, bands, data type, nodata,
// geotransform and projection; read a window of a band as complex or real
// float32; write float32 GeoTIFFs and complex or real ENVI files with the
// georeferencing of an input.
//
// GDAL keeps its last error per OS thread, so every call that may fail runs
// with the goroutine locked to its thread, the error reset before and read
// after (CPLGetLastErrorMsg). GDAL's own printing to stderr is turned off:
// its messages reach the user in our errors, which name the file.

/*
#cgo pkg-config: gdal
#include <stdlib.h>
#include <gdal.h>
#include <cpl_conv.h>
#include <cpl_error.h>
#include <cpl_string.h>
#include <cpl_vsi.h>
#include <ogr_srs_api.h>

static void vk_default(const char *k, const char *v) {
	if (CPLGetConfigOption(k, NULL) == NULL) {
		CPLSetConfigOption(k, v);
	}
}

static void vk_gdal_init(void) {
	GDALAllRegister();
	CPLSetErrorHandler(CPLQuietErrorHandler);
	// Windows are read once, in order: straight from the file into the
	// caller's buffer where the driver can (raw formats such as ENVI,
	// uncompressed GeoTIFF), and a small block cache for the rest, so that
	// memory stays bounded. The environment overrides these.
	vk_default("GDAL_ONE_BIG_READ", "YES");
	vk_default("GTIFF_DIRECT_IO", "YES");
	vk_default("GDAL_CACHEMAX", "128");
}

static char *vk_epsg_wkt(int code) {
	OGRSpatialReferenceH srs = OSRNewSpatialReference(NULL);
	char *wkt = NULL;
	if (OSRImportFromEPSG(srs, code) == OGRERR_NONE) {
		OSRExportToWkt(srs, &wkt);
	}
	OSRDestroySpatialReference(srs);
	return wkt;
}

static char **vk_opts(char **l, const char *kv) { return CSLAddString(l, kv); }
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

var gdalOnce sync.Once

func gdalInit() { gdalOnce.Do(func() { C.vk_gdal_init() }) }

// gdalErr runs f on one OS thread with GDAL's error state reset, and returns
// GDAL's last message (or what, when GDAL left none) when f reports failure.
func gdalErr(what string, f func() bool) error {
	gdalInit()
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	C.CPLErrorReset()
	if f() {
		return nil
	}
	msg := strings.TrimSpace(C.GoString(C.CPLGetLastErrorMsg()))
	if msg == "" {
		msg = "failed"
	}
	return fmt.Errorf("%s: %s", what, msg)
}

// HaveGDAL reports whether this vkstat was built with GDAL (without the
// nogdal build tag).
const HaveGDAL = true

// GDALVersion is the version of the GDAL library linked in ("3.6.2").
func GDALVersion() string {
	gdalInit()
	k := C.CString("RELEASE_NAME")
	defer C.free(unsafe.Pointer(k))
	return C.GoString(C.GDALVersionInfo(k))
}

// Raster is an open GDAL dataset. It is not safe for concurrent use.
type Raster struct {
	ds     C.GDALDatasetH
	Path   string
	Width  int    // pixels per line (x, range)
	Height int    // lines (y, azimuth)
	Bands  int    // raster bands
	Type   string // GDAL's name of band 1's data type: "CInt16", "CFloat32", "Float32", "Int16", ...
	Driver string // GDAL's short driver name: "GTiff", "ENVI", ...
	cplx   bool
}

// OpenRaster opens a raster file read-only through GDAL. Errors name the
// file and carry GDAL's message (a corrupt GeoTIFF, an unknown format).
func OpenRaster(path string) (*Raster, error) {
	r := &Raster{Path: path}
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	err := gdalErr(path, func() bool {
		r.ds = C.GDALOpen(cpath, C.GA_ReadOnly)
		return r.ds != nil
	})
	if err != nil {
		return nil, err
	}
	r.Width = int(C.GDALGetRasterXSize(r.ds))
	r.Height = int(C.GDALGetRasterYSize(r.ds))
	r.Bands = int(C.GDALGetRasterCount(r.ds))
	if drv := C.GDALGetDatasetDriver(r.ds); drv != nil {
		r.Driver = C.GoString(C.GDALGetDriverShortName(drv))
	}
	if r.Bands < 1 {
		r.Close()
		return nil, fmt.Errorf("%s: no raster bands (a %s file)", path, r.Driver)
	}
	dt := C.GDALGetRasterDataType(C.GDALGetRasterBand(r.ds, 1))
	r.Type = C.GoString(C.GDALGetDataTypeName(dt))
	r.cplx = C.GDALDataTypeIsComplex(dt) != 0
	return r, nil
}

// Close closes the dataset; a closed Raster may be closed again.
func (r *Raster) Close() error {
	if r == nil || r.ds == nil {
		return nil
	}
	err := gdalErr(r.Path, func() bool { C.GDALClose(r.ds); return C.CPLGetLastErrorType() < C.CE_Failure })
	r.ds = nil
	return err
}

// Complex reports whether band 1 holds complex samples (CInt16, CFloat32...).
func (r *Raster) Complex() bool { return r.cplx }

func (r *Raster) band(b int) (C.GDALRasterBandH, error) {
	if r.ds == nil {
		return nil, fmt.Errorf("%s: raster is closed", r.Path)
	}
	if b < 1 || b > r.Bands {
		return nil, fmt.Errorf("%s: band %d does not exist (the file has %d)", r.Path, b, r.Bands)
	}
	return C.GDALGetRasterBand(r.ds, C.int(b)), nil
}

// NoData returns band b's nodata value, if it has one.
func (r *Raster) NoData(b int) (float64, bool) {
	h, err := r.band(b)
	if err != nil {
		return 0, false
	}
	var ok C.int
	v := C.GDALGetRasterNoDataValue(h, &ok)
	return float64(v), ok != 0
}

// Georef returns the raster's geotransform and projection.
func (r *Raster) Georef() Georef {
	var g Georef
	if r.ds == nil {
		return g
	}
	var t [6]C.double
	gdalInit()
	runtime.LockOSThread()
	if C.GDALGetGeoTransform(r.ds, &t[0]) == C.CE_None {
		g.HasTransform = true
		for i := range t {
			g.Transform[i] = float64(t[i])
		}
	}
	C.CPLErrorReset()
	runtime.UnlockOSThread()
	g.Projection = C.GoString(C.GDALGetProjectionRef(r.ds))
	return g
}

// check checks a window and a destination of per floats per pixel.
func (r *Raster) check(b, x0, y0, w, h, per int, dst []float32) (C.GDALRasterBandH, error) {
	hb, err := r.band(b)
	if err != nil {
		return nil, err
	}
	if x0 < 0 || y0 < 0 || w < 1 || h < 1 || x0+w > r.Width || y0+h > r.Height {
		return nil, fmt.Errorf("%s: window %d×%d at (x %d, y %d) lies outside the %d×%d raster", r.Path, w, h, x0, y0, r.Width, r.Height)
	}
	if len(dst) < w*h*per {
		return nil, fmt.Errorf("%s: buffer of %d floats for a %d×%d window", r.Path, len(dst), w, h)
	}
	return hb, nil
}

func (r *Raster) read(b, x0, y0, w, h int, dst []float32, typ C.GDALDataType, per int) error {
	hb, err := r.check(b, x0, y0, w, h, per, dst)
	if err != nil {
		return err
	}
	what := fmt.Sprintf("%s: read band %d, %d×%d at (x %d, y %d)", r.Path, b, w, h, x0, y0)
	return gdalErr(what, func() bool {
		return C.GDALRasterIO(hb, C.GF_Read, C.int(x0), C.int(y0), C.int(w), C.int(h),
			unsafe.Pointer(&dst[0]), C.int(w), C.int(h), typ, 0, 0) == C.CE_None
	})
}

// ReadComplex reads the w×h window at (x0, y0) of band b into dst as
// interleaved (re, im) float32 pairs, row-major: 2·w·h floats. Real bands
// read with a zero imaginary part; integer types (CInt16) are converted.
func (r *Raster) ReadComplex(b, x0, y0, w, h int, dst []float32) error {
	return r.read(b, x0, y0, w, h, dst, C.GDT_CFloat32, 2)
}

// ReadReal reads the w×h window at (x0, y0) of band b into dst as float32,
// row-major (w·h floats). A complex band gives its real part.
func (r *Raster) ReadReal(b, x0, y0, w, h int, dst []float32) error {
	return r.read(b, x0, y0, w, h, dst, C.GDT_Float32, 1)
}

// EncodeRaster writes a raster through GDAL to w: GDAL writes it in its
// in-memory file system (/vsimem), whose bytes are then copied to w, so
// that callers can publish it atomically. Drivers that write side files
// (ENVI's .hdr) return them in side, keyed by the suffix they add to or
// put in place of name's extension (".hdr"); name is the file's base name.
func EncodeRaster(w io.Writer, name string, spec RasterSpec, bands []RasterBand) (side map[string][]byte, err error) {
	files, err := encodeVSIMem(name, spec, bands)
	if err != nil {
		return nil, err
	}
	main, ok := files[name]
	if !ok {
		return nil, fmt.Errorf("%s: GDAL's %s driver wrote no file of that name", name, spec.Driver)
	}
	delete(files, name)
	if _, err := w.Write(main); err != nil {
		return nil, err
	}
	return files, nil
}

var vsimemSeq struct {
	sync.Mutex
	n int
}

func encodeVSIMem(name string, spec RasterSpec, bands []RasterBand) (map[string][]byte, error) {
	gdalInit()
	if len(bands) == 0 {
		return nil, fmt.Errorf("%s: no bands to write", name)
	}
	ct := C.CString(spec.Type)
	defer C.free(unsafe.Pointer(ct))
	dt := C.GDALGetDataTypeByName(ct)
	if dt == C.GDT_Unknown {
		return nil, fmt.Errorf("%s: unknown GDAL data type %q", name, spec.Type)
	}
	per := 1
	if C.GDALDataTypeIsComplex(dt) != 0 {
		per = 2
	}
	for i, b := range bands {
		if len(b.Data) != per*spec.Width*spec.Height {
			return nil, fmt.Errorf("%s: band %d holds %d floats, want %d for %d×%d %s", name, i+1, len(b.Data), per*spec.Width*spec.Height, spec.Width, spec.Height, spec.Type)
		}
	}
	cd := C.CString(spec.Driver)
	defer C.free(unsafe.Pointer(cd))
	drv := C.GDALGetDriverByName(cd)
	if drv == nil {
		return nil, fmt.Errorf("%s: GDAL has no %s driver", name, spec.Driver)
	}
	vsimemSeq.Lock()
	vsimemSeq.n++
	dir := fmt.Sprintf("/vsimem/vkstat%d", vsimemSeq.n)
	vsimemSeq.Unlock()
	cdir := C.CString(dir)
	defer C.free(unsafe.Pointer(cdir))
	defer C.VSIRmdirRecursive(cdir)
	cpath := C.CString(dir + "/" + name)
	defer C.free(unsafe.Pointer(cpath))
	var opts **C.char
	for _, o := range spec.Options {
		co := C.CString(o)
		opts = C.vk_opts(opts, co)
		C.free(unsafe.Pointer(co))
	}
	defer C.CSLDestroy(opts)

	var ds C.GDALDatasetH
	if err := gdalErr(name+": create", func() bool {
		C.VSIMkdir(cdir, 0o755)
		ds = C.GDALCreate(drv, cpath, C.int(spec.Width), C.int(spec.Height), C.int(len(bands)), dt, opts)
		return ds != nil
	}); err != nil {
		return nil, err
	}
	closed := false
	defer func() {
		if !closed {
			C.GDALClose(ds)
		}
	}()
	// Some drivers write another type than asked for (ENVI has no CInt16
	// and falls back to Byte): refuse rather than write wrong data.
	if got := C.GDALGetRasterDataType(C.GDALGetRasterBand(ds, 1)); got != dt {
		return nil, fmt.Errorf("%s: GDAL's %s driver cannot write %s (it would write %s)", name, spec.Driver, spec.Type, C.GoString(C.GDALGetDataTypeName(got)))
	}
	// The dataset's description is what ENVI writes as "description": the
	// file's name, not where in /vsimem it was made.
	cname := C.CString(name)
	C.GDALSetDescription(C.GDALMajorObjectH(ds), cname)
	C.free(unsafe.Pointer(cname))
	g := spec.Georef
	if g.HasTransform {
		var t [6]C.double
		for i := range t {
			t[i] = C.double(g.Transform[i])
		}
		if err := gdalErr(name+": set geotransform", func() bool { return C.GDALSetGeoTransform(ds, &t[0]) == C.CE_None }); err != nil {
			return nil, err
		}
	}
	if g.Projection != "" {
		cp := C.CString(g.Projection)
		defer C.free(unsafe.Pointer(cp))
		if err := gdalErr(name+": set projection", func() bool { return C.GDALSetProjection(ds, cp) == C.CE_None }); err != nil {
			return nil, err
		}
	}
	bufType := C.GDALDataType(C.GDT_Float32)
	if per == 2 {
		bufType = C.GDT_CFloat32
	}
	for i, b := range bands {
		hb := C.GDALGetRasterBand(ds, C.int(i+1))
		if b.Desc != "" {
			cs := C.CString(b.Desc)
			C.GDALSetDescription(C.GDALMajorObjectH(hb), cs)
			C.free(unsafe.Pointer(cs))
		}
		if spec.NoData != nil {
			if err := gdalErr(name+": set nodata", func() bool { return C.GDALSetRasterNoDataValue(hb, C.double(*spec.NoData)) == C.CE_None }); err != nil {
				return nil, err
			}
		}
		if err := gdalErr(fmt.Sprintf("%s: write band %d", name, i+1), func() bool {
			return C.GDALRasterIO(hb, C.GF_Write, 0, 0, C.int(spec.Width), C.int(spec.Height),
				unsafe.Pointer(&b.Data[0]), C.int(spec.Width), C.int(spec.Height), C.GDALDataType(bufType), 0, 0) == C.CE_None
		}); err != nil {
			return nil, err
		}
	}
	closed = true
	if err := gdalErr(name+": close", func() bool { C.GDALClose(ds); return C.CPLGetLastErrorType() < C.CE_Failure }); err != nil {
		return nil, err
	}
	// Collect what the driver wrote.
	files := map[string][]byte{}
	list := C.VSIReadDir(cdir)
	defer C.CSLDestroy(list)
	n := int(C.CSLCount(list))
	for i := 0; i < n; i++ {
		f := C.GoString(C.CSLGetField(list, C.int(i)))
		cf := C.CString(dir + "/" + f)
		var size C.vsi_l_offset
		buf := C.VSIGetMemFileBuffer(cf, &size, 0)
		if buf != nil {
			files[f] = C.GoBytes(unsafe.Pointer(buf), C.int(size))
		}
		C.free(unsafe.Pointer(cf))
	}
	if len(files) == 0 {
		return nil, errors.New(name + ": GDAL wrote nothing")
	}
	return files, nil
}

// WriteRaster writes a raster file (and its side files, such as ENVI's
// .hdr, beside it) atomically, each file on its own.
func WriteRaster(path string, spec RasterSpec, bands []RasterBand) error {
	dir, name := filepath.Split(path)
	files, err := encodeVSIMem(name, spec, bands)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	for f, b := range files {
		if err := AtomicWrite(filepath.Join(dir, f), func(w io.Writer) error { _, err := w.Write(b); return err }); err != nil {
			return err
		}
	}
	return nil
}

// EPSGWKT returns the WKT of an EPSG coordinate system (32720: UTM 20S).
func EPSGWKT(code int) (string, error) {
	var w *C.char
	err := gdalErr(fmt.Sprintf("EPSG:%d", code), func() bool {
		w = C.vk_epsg_wkt(C.int(code))
		return w != nil
	})
	if err != nil {
		return "", err
	}
	defer C.CPLFree(unsafe.Pointer(w))
	return C.GoString(w), nil
}
