//go:build !nogdal

package formats

// A thin cgo binding to GDAL, for the raster formats SAR users have:
// GeoTIFF, ENVI and whatever else the installed GDAL reads. There is no Go
// binding on the module proxy, so this is our own, kept to what vkstat
// needs: open a raster, its size, bands, data type, nodata, geotransform
// and projection; read a window of a band as complex or real float32; write
// float32 GeoTIFFs and complex or real ENVI files with the georeferencing of
// an input.
//
// GDAL is loaded at run time (dlopen) when a raster is first opened or
// written, not linked: libgdal and the hundred libraries it pulls in cost
// every process about 80 ms of start-up (loading, relocation, C++
// constructors), which commands that touch no raster should not pay. The
// functions below are GDAL's C API (gdal.h, cpl_*.h, ogr_srs_api.h; all
// there since GDAL 2.3), declared here with the values of the enums used,
// and called through pointers that dlsym fills; so building vkstat needs no
// GDAL headers. VKSTAT_GDAL_LIB names the library to load; else libgdal.so,
// then the sonames of GDAL 3.x (gdalLibs).
//
// GDAL keeps its last error per OS thread, so every call that may fail runs
// with the goroutine locked to its thread, the error reset before and read
// after (CPLGetLastErrorMsg). GDAL's own printing to stderr is turned off:
// its messages reach the user in our errors, which name the file.

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdlib.h>

typedef void *GDALMajorObjectH;
typedef void *GDALDatasetH;
typedef void *GDALRasterBandH;
typedef void *GDALDriverH;
typedef void *OGRSpatialReferenceH;
typedef int GDALDataType;
typedef int CPLErr;
typedef int OGRErr;
typedef unsigned long long vsi_l_offset;
typedef void (*CPLErrorHandler)(CPLErr, int, const char *);

// The values of the enums of gdal.h, cpl_error.h and ogr_core.h used here.
enum {
	GDT_Unknown = 0, GDT_Float32 = 6, GDT_CFloat32 = 10,
	GA_ReadOnly = 0, GF_Read = 0, GF_Write = 1,
	CE_None = 0, CE_Failure = 3, OGRERR_NONE = 0,
};

// Every GDAL function used: X(return type, name, parameters, arguments),
// XV(name, parameters, arguments) for those returning void.
#define VK_GDAL_FUNCS(X, XV) \
	XV(GDALAllRegister, (void), ()) \
	X(CPLErrorHandler, CPLSetErrorHandler, (CPLErrorHandler a), (a)) \
	X(const char *, CPLGetConfigOption, (const char *a, const char *b), (a, b)) \
	XV(CPLSetConfigOption, (const char *a, const char *b), (a, b)) \
	XV(CPLErrorReset, (void), ()) \
	X(const char *, CPLGetLastErrorMsg, (void), ()) \
	X(CPLErr, CPLGetLastErrorType, (void), ()) \
	XV(VSIFree, (void *a), (a)) \
	X(char **, CSLAddString, (char **a, const char *b), (a, b)) \
	XV(CSLDestroy, (char **a), (a)) \
	X(int, CSLCount, (char **a), (a)) \
	X(const char *, CSLGetField, (char **a, int b), (a, b)) \
	X(OGRSpatialReferenceH, OSRNewSpatialReference, (const char *a), (a)) \
	X(OGRErr, OSRImportFromEPSG, (OGRSpatialReferenceH a, int b), (a, b)) \
	X(OGRErr, OSRExportToWkt, (OGRSpatialReferenceH a, char **b), (a, b)) \
	XV(OSRDestroySpatialReference, (OGRSpatialReferenceH a), (a)) \
	X(const char *, GDALVersionInfo, (const char *a), (a)) \
	X(GDALDatasetH, GDALOpen, (const char *a, int b), (a, b)) \
	XV(GDALClose, (GDALDatasetH a), (a)) \
	X(int, GDALGetRasterXSize, (GDALDatasetH a), (a)) \
	X(int, GDALGetRasterYSize, (GDALDatasetH a), (a)) \
	X(int, GDALGetRasterCount, (GDALDatasetH a), (a)) \
	X(GDALDriverH, GDALGetDatasetDriver, (GDALDatasetH a), (a)) \
	X(const char *, GDALGetDriverShortName, (GDALDriverH a), (a)) \
	X(GDALDriverH, GDALGetDriverByName, (const char *a), (a)) \
	X(GDALRasterBandH, GDALGetRasterBand, (GDALDatasetH a, int b), (a, b)) \
	X(GDALDataType, GDALGetRasterDataType, (GDALRasterBandH a), (a)) \
	X(const char *, GDALGetDataTypeName, (GDALDataType a), (a)) \
	X(GDALDataType, GDALGetDataTypeByName, (const char *a), (a)) \
	X(int, GDALDataTypeIsComplex, (GDALDataType a), (a)) \
	X(double, GDALGetRasterNoDataValue, (GDALRasterBandH a, int *b), (a, b)) \
	X(CPLErr, GDALSetRasterNoDataValue, (GDALRasterBandH a, double b), (a, b)) \
	X(CPLErr, GDALGetGeoTransform, (GDALDatasetH a, double *b), (a, b)) \
	X(CPLErr, GDALSetGeoTransform, (GDALDatasetH a, double *b), (a, b)) \
	X(const char *, GDALGetProjectionRef, (GDALDatasetH a), (a)) \
	X(CPLErr, GDALSetProjection, (GDALDatasetH a, const char *b), (a, b)) \
	XV(GDALSetDescription, (GDALMajorObjectH a, const char *b), (a, b)) \
	X(GDALDatasetH, GDALCreate, (GDALDriverH a, const char *b, int c, int d, int e, GDALDataType f, char **g), \
		(a, b, c, d, e, f, g)) \
	X(CPLErr, GDALRasterIO, (GDALRasterBandH a, int b, int c, int d, int e, int f, void *g, int h, int i, \
		GDALDataType j, int k, int l), (a, b, c, d, e, f, g, h, i, j, k, l)) \
	X(int, VSIMkdir, (const char *a, long b), (a, b)) \
	X(int, VSIRmdirRecursive, (const char *a), (a)) \
	X(char **, VSIReadDir, (const char *a), (a)) \
	X(unsigned char *, VSIGetMemFileBuffer, (const char *a, vsi_l_offset *b, int c), (a, b, c))

// A pointer per function, and a static function of GDAL's name that calls
// through it.
#define VK_PTR(ret, name, params, args) \
	static ret (*p_##name) params; \
	static ret name params { return p_##name args; }
#define VK_PTRV(name, params, args) \
	static void (*p_##name) params; \
	static void name params { p_##name args; }
VK_GDAL_FUNCS(VK_PTR, VK_PTRV)

static void CPLFree(void *p) { VSIFree(p); }

// vk_gdal_load loads lib and every function, registers GDAL's drivers and
// quiets its printing; NULL when it worked, else what failed (dlerror's
// text, or the missing function).
static const char *vk_gdal_load(const char *lib) {
	void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (h == NULL) {
		return dlerror();
	}
	void *quiet = dlsym(h, "CPLQuietErrorHandler");
	if (quiet == NULL) {
		dlclose(h);
		return "CPLQuietErrorHandler: missing";
	}
#define VK_LOAD(ret, name, params, args) \
	if ((*(void **)&p_##name = dlsym(h, #name)) == NULL) { \
		dlclose(h); \
		return #name ": missing"; \
	}
#define VK_LOADV(name, params, args) VK_LOAD(void, name, params, args)
	VK_GDAL_FUNCS(VK_LOAD, VK_LOADV)
	GDALAllRegister();
	CPLSetErrorHandler((CPLErrorHandler)quiet);
	return NULL;
}

static void vk_default(const char *k, const char *v) {
	if (CPLGetConfigOption(k, NULL) == NULL) {
		CPLSetConfigOption(k, v);
	}
}

static void vk_gdal_init(void) {
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
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"unsafe"
)

// gdalLibs are the libraries tried, in order, when $VKSTAT_GDAL_LIB is not
// set: the development symlink, then the sonames of GDAL 3.14 (40) down to
// 3.0 (26), then macOS's name.
func gdalLibs() []string {
	libs := []string{"libgdal.so"}
	for v := 40; v >= 26; v-- {
		libs = append(libs, fmt.Sprintf("libgdal.so.%d", v))
	}
	return append(libs, "libgdal.dylib")
}

// gdalLoad loads GDAL on first use; later calls return the first's error.
var gdalLoad = sync.OnceValue(func() error {
	libs := gdalLibs()
	if env := os.Getenv("VKSTAT_GDAL_LIB"); env != "" {
		libs = []string{env}
	}
	var why []string
	for _, lib := range libs {
		cl := C.CString(lib)
		msg := C.vk_gdal_load(cl)
		C.free(unsafe.Pointer(cl))
		if msg == nil {
			C.vk_gdal_init()
			return nil
		}
		// A library that is not there is the common case, not worth
		// naming; one that is there but fails to load, or lacks a
		// function, is.
		if m := C.GoString(msg); !strings.Contains(m, "No such file") || len(libs) == 1 {
			why = append(why, m)
		}
	}
	detail := "no libgdal.so found"
	if len(why) > 0 {
		detail = strings.Join(why, "; ")
	}
	return fmt.Errorf("%w (%s): install it (Debian, Ubuntu: apt install libgdal-dev), or set VKSTAT_GDAL_LIB to the library's path", ErrNoGDAL, detail)
})

// ErrNoGDAL is the error of raster operations when GDAL cannot be loaded.
var ErrNoGDAL = errors.New("GDAL, which vkstat loads to read and write rasters other than ENVI, cannot be loaded")

// gdalErr runs f on one OS thread with GDAL's error state reset, and returns
// GDAL's last message (or what, when GDAL left none) when f reports failure.
func gdalErr(what string, f func() bool) error {
	if err := gdalLoad(); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
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

// GDALVersion is the version of the GDAL library loaded ("3.6.2"); empty
// when it cannot be loaded.
func GDALVersion() string {
	if gdalLoad() != nil {
		return ""
	}
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
	if err := checkRasterFile(path); err != nil {
		return nil, err
	}
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
	if err := gdalLoad(); err != nil {
		return nil, err
	}
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
