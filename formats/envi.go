package formats

// A small reader of ENVI raw rasters (a .hdr text header beside the raw
// samples), in Go: what a build without GDAL (-tags nogdal, the binaries
// carried to the offline GPU machine) reads SAR stacks from, and what
// vkstat stack reads ENVI dates with when no output needs GDAL (loading
// GDAL costs about 60 ms). Band-sequential files of the common numeric
// types, either byte order; the geotransform of "map info" (without
// rotation) and the nodata value of "data ignore value", as GDAL reads
// them; no projection.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"
)

// enviFile is an open ENVI raster.
type enviFile struct {
	f             *os.File
	width, height int
	bands         int
	typ           string // GDAL's name for the data type
	size          int    // bytes per sample
	cplx          bool
	order         binary.ByteOrder
	offset        int64
	georef        Georef  // from "map info"
	geoErr        error   // a "map info" not read (rotated, malformed)
	nodata        float64 // "data ignore value"
	hasNodata     bool
}

// enviTypes maps ENVI's data type codes to GDAL's names and sizes.
var enviTypes = map[int]struct {
	name string
	size int
	cplx bool
}{
	1: {"Byte", 1, false}, 2: {"Int16", 2, false}, 3: {"Int32", 4, false}, 4: {"Float32", 4, false},
	5: {"Float64", 8, false}, 6: {"CFloat32", 8, true}, 9: {"CFloat64", 16, true}, 12: {"UInt16", 2, false},
}

// enviHeader finds the header of an ENVI data file: name.hdr beside
// name.ext, or name.ext.hdr.
func enviHeader(path string) (string, bool) {
	for _, h := range []string{strings.TrimSuffix(path, filepath.Ext(path)) + ".hdr", path + ".hdr"} {
		if st, err := os.Stat(h); err == nil && st.Mode().IsRegular() && h != path {
			return h, true
		}
	}
	return "", false
}

func openENVI(path string) (*enviFile, error) {
	hdr, ok := enviHeader(path)
	if !ok {
		return nil, fmt.Errorf("%s: no ENVI header (.hdr) beside it", path)
	}
	if err := checkRasterFile(path); err != nil {
		return nil, err
	}
	hf, err := os.Open(hdr)
	if err != nil {
		return nil, err
	}
	defer hf.Close()
	noteInputPath(hdr)
	keys := map[string]string{}
	sc := bufio.NewScanner(hf)
	sc.Buffer(nil, 1<<20) // a coordinate system string can be long
	first := true
	open := "" // a key whose {value} goes on over the next lines
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if first {
			if line != "ENVI" {
				return nil, fmt.Errorf("%s: not an ENVI header (it does not start with ENVI)", hdr)
			}
			first = false
			continue
		}
		if open != "" {
			keys[open] += " " + line
			if strings.Contains(line, "}") {
				open = ""
			}
			continue
		}
		if k, v, ok := strings.Cut(line, "="); ok {
			k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
			keys[k] = v
			if strings.HasPrefix(v, "{") && !strings.Contains(v, "}") {
				open = k
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", hdr, err)
	}
	num := func(k string, def int) (int, error) {
		v, ok := keys[k]
		if !ok {
			if def >= 0 {
				return def, nil
			}
			return 0, fmt.Errorf("%s: no %q", hdr, k)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("%s: %s = %q is not a count", hdr, k, v)
		}
		return n, nil
	}
	e := &enviFile{order: binary.LittleEndian}
	var dt, bo, off int
	for _, p := range []struct {
		k   string
		def int
		v   *int
	}{{"samples", -1, &e.width}, {"lines", -1, &e.height}, {"bands", 1, &e.bands}, {"data type", -1, &dt}, {"byte order", 0, &bo}, {"header offset", 0, &off}} {
		if *p.v, err = num(p.k, p.def); err != nil {
			return nil, err
		}
	}
	t, ok := enviTypes[dt]
	if !ok {
		return nil, fmt.Errorf("%s: ENVI data type %d is not read without GDAL", hdr, dt)
	}
	if il := strings.ToLower(keys["interleave"]); il != "" && il != "bsq" && e.bands > 1 {
		return nil, fmt.Errorf("%s: interleave %s with %d bands is not read without GDAL (bsq is)", hdr, il, e.bands)
	}
	if bo == 1 {
		e.order = binary.BigEndian
	}
	e.typ, e.size, e.cplx, e.offset = t.name, t.size, t.cplx, int64(off)
	if mi, ok := keys["map info"]; ok {
		if e.georef, err = enviMapInfo(mi); err != nil {
			e.geoErr = fmt.Errorf("%s: map info %s: %w", hdr, mi, err)
		}
	}
	if v, ok := keys["data ignore value"]; ok {
		if e.nodata, err = strconv.ParseFloat(v, 64); err != nil {
			return nil, fmt.Errorf("%s: data ignore value = %q is not a number", hdr, v)
		}
		e.hasNodata = true
	}
	if e.width < 1 || e.height < 1 || e.bands < 1 {
		return nil, fmt.Errorf("%s: empty raster %d×%d×%d", hdr, e.width, e.height, e.bands)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	noteInput(st)
	if need := e.offset + int64(e.width)*int64(e.height)*int64(e.bands)*int64(e.size); st.Size() < need {
		f.Close()
		return nil, fmt.Errorf("%s: %d bytes, but its header describes %d", path, st.Size(), need)
	}
	e.f = f
	return e, nil
}

// enviMapInfo is the geotransform of an ENVI "map info" value, {projection,
// reference pixel x, y (1-based), its easting, northing, pixel size x, y,
// ...}, as GDAL computes it; a rotated grid (rotation=) is refused.
func enviMapInfo(v string) (Georef, error) {
	var g Georef
	f := strings.Split(strings.Trim(strings.TrimSpace(v), "{}"), ",")
	if len(f) < 7 {
		return g, fmt.Errorf("fewer than 7 fields")
	}
	if strings.Contains(strings.ToLower(v), "rotation") {
		return g, fmt.Errorf("a rotated grid is read with GDAL only")
	}
	var n [6]float64
	for i := range n {
		x, err := strconv.ParseFloat(strings.TrimSpace(f[i+1]), 64)
		if err != nil {
			return g, fmt.Errorf("field %d (%q) is not a number", i+2, f[i+1])
		}
		n[i] = x
	}
	rx, ry, east, north, dx, dy := n[0], n[1], n[2], n[3], n[4], n[5]
	g.Transform = [6]float64{east - (rx-1)*dx, dx, 0, north + (ry-1)*dy, 0, -dy}
	g.HasTransform = true
	return g, nil
}

// read reads the w×h window at (x0, y0) of band b into dst: per floats a
// sample (2 for complex output), converting from the file's type.
func (e *enviFile) read(b, x0, y0, w, h, per int, dst []float32) error {
	parts := 1
	if e.cplx {
		parts = 2
	}
	if per == parts && e.size == 4*parts && e.typ != "Int32" && e.order == binary.LittleEndian {
		return e.readNative(b, x0, y0, w, h, dst)
	}
	comp := e.size / parts // bytes per component
	row := make([]byte, w*e.size)
	for y := 0; y < h; y++ {
		off := e.offset + ((int64(b-1)*int64(e.height)+int64(y0+y))*int64(e.width)+int64(x0))*int64(e.size)
		if _, err := e.f.ReadAt(row, off); err != nil {
			return fmt.Errorf("%s: %w", e.f.Name(), err)
		}
		out := dst[y*w*per : (y+1)*w*per]
		for x := 0; x < w; x++ {
			for k := 0; k < per; k++ {
				if k >= parts {
					out[x*per+k] = 0
					continue
				}
				out[x*per+k] = e.value(row[x*e.size+k*comp:], comp)
			}
		}
	}
	return nil
}

// readNative is read where the file holds little-endian float32 samples
// of the kind asked for (Float32 as real, CFloat32 as complex): straight
// into dst, the whole window at once when it spans whole lines.
func (e *enviFile) readNative(b, x0, y0, w, h int, dst []float32) error {
	per := e.size / 4
	raw := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), 4*w*h*per)
	row := int64(e.width) * int64(e.size)
	base := e.offset + (int64(b-1)*int64(e.height)+int64(y0))*row + int64(x0)*int64(e.size)
	if w == e.width {
		if err := readParallel(e.f, raw, base); err != nil {
			return fmt.Errorf("%s: %w", e.f.Name(), err)
		}
		return nil
	}
	n := w * e.size
	for y := 0; y < h; y++ {
		if _, err := e.f.ReadAt(raw[y*n:(y+1)*n], base+int64(y)*row); err != nil {
			return fmt.Errorf("%s: %w", e.f.Name(), err)
		}
	}
	return nil
}

func (e *enviFile) value(b []byte, comp int) float32 {
	switch e.typ {
	case "Byte":
		return float32(b[0])
	case "Int16":
		return float32(int16(e.order.Uint16(b)))
	case "UInt16":
		return float32(e.order.Uint16(b))
	case "Int32":
		return float32(int32(e.order.Uint32(b)))
	}
	if comp == 8 {
		return float32(math.Float64frombits(e.order.Uint64(b)))
	}
	return math.Float32frombits(e.order.Uint32(b))
}

// EncodeENVI writes one band of Float32 or CFloat32 samples (interleaved
// re, im) as ENVI raw data to w, little-endian, and returns the text of its
// .hdr: what `vkstat synth stack --format envi` writes where GDAL is absent.
// A north-up geotransform goes in "map info" (as an arbitrary projection:
// the coordinate system needs GDAL).
func EncodeENVI(w io.Writer, spec RasterSpec, band RasterBand) ([]byte, error) {
	code := map[string]int{"Float32": 4, "CFloat32": 6}[spec.Type]
	if code == 0 {
		return nil, fmt.Errorf("ENVI without GDAL: type %s not written (Float32 or CFloat32 are)", spec.Type)
	}
	per := 1
	if code == 6 {
		per = 2
	}
	if len(band.Data) != per*spec.Width*spec.Height {
		return nil, fmt.Errorf("ENVI: %d floats for %d×%d %s", len(band.Data), spec.Width, spec.Height, spec.Type)
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	var b [4]byte
	for _, v := range band.Data {
		binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
		if _, err := bw.Write(b[:]); err != nil {
			return nil, err
		}
	}
	if err := bw.Flush(); err != nil {
		return nil, err
	}
	hdr := fmt.Sprintf("ENVI\nsamples = %d\nlines   = %d\nbands   = 1\nheader offset = 0\nfile type = ENVI Standard\ndata type = %d\ninterleave = bsq\nbyte order = 0\n",
		spec.Width, spec.Height, code)
	if t := spec.Georef.Transform; spec.Georef.HasTransform && t[2] == 0 && t[4] == 0 {
		hdr += fmt.Sprintf("map info = {Arbitrary, 1, 1, %v, %v, %v, %v, units=Meters}\n", t[0], t[3], t[1], -t[5])
	}
	return []byte(hdr), nil
}

// ENVIRaster is an ENVI file open with vkstat's own reader (OpenENVI): what
// Raster is in a build without GDAL.
type ENVIRaster struct {
	Path          string
	Width, Height int
	Bands         int
	Type, Driver  string // GDAL's name of the data type; "ENVI"
	e             *enviFile
}

// OpenENVI opens an ENVI file (with its .hdr beside it) without GDAL. It
// refuses what its reader does not read as GDAL does: other data types,
// several bands not band-sequential, a "map info" it cannot read (a rotated
// grid); read those with OpenRaster. Its Georef has the geotransform but no
// projection.
func OpenENVI(path string) (*ENVIRaster, error) {
	e, err := openENVI(path)
	if err != nil {
		return nil, err
	}
	if e.geoErr != nil {
		e.f.Close()
		return nil, e.geoErr
	}
	return newENVIRaster(path, e), nil
}

func newENVIRaster(path string, e *enviFile) *ENVIRaster {
	return &ENVIRaster{Path: path, Width: e.width, Height: e.height, Bands: e.bands, Type: e.typ, Driver: "ENVI", e: e}
}

// Close closes the file; a closed raster may be closed again.
func (r *ENVIRaster) Close() error {
	if r == nil || r.e == nil {
		return nil
	}
	err := r.e.f.Close()
	r.e = nil
	return err
}

// Complex reports whether the samples are complex.
func (r *ENVIRaster) Complex() bool { return r.e != nil && r.e.cplx }

func (r *ENVIRaster) check(b, x0, y0, w, h, per int, dst []float32) error {
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

// NoData returns the header's "data ignore value", if it has one.
func (r *ENVIRaster) NoData(b int) (float64, bool) {
	if r.e == nil {
		return 0, false
	}
	return r.e.nodata, r.e.hasNodata
}

// Georef returns the geotransform of the header's "map info", if any; the
// projection is not read without GDAL.
func (r *ENVIRaster) Georef() Georef {
	if r.e == nil {
		return Georef{}
	}
	return r.e.georef
}

// ReadComplex reads the w×h window at (x0, y0) of band b into dst as
// interleaved (re, im) float32 pairs; real samples get a zero imaginary
// part.
func (r *ENVIRaster) ReadComplex(b, x0, y0, w, h int, dst []float32) error {
	if err := r.check(b, x0, y0, w, h, 2, dst); err != nil {
		return err
	}
	return r.e.read(b, x0, y0, w, h, 2, dst)
}

// ReadReal reads a window as float32 (the real part of complex samples).
func (r *ENVIRaster) ReadReal(b, x0, y0, w, h int, dst []float32) error {
	if err := r.check(b, x0, y0, w, h, 1, dst); err != nil {
		return err
	}
	return r.e.read(b, x0, y0, w, h, 1, dst)
}
