package formats

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// DateFile is one date of a stack of co-registered images, one file per
// date (vkstat stack, and the Python package's stack on paths): a raster
// GDAL reads (GeoTIFF, ENVI, SLC formats), an ENVI file read without GDAL,
// or a 2-d .npy or FITS array, as InspectDate found it.
type DateFile struct {
	Path          string
	Width, Height int
	// Type is the data type: GDAL's name (CInt16, Float32, ...) or the
	// array's dtype.
	Type string
	// Complex says the samples are complex (SLC): OpenDate reads them as
	// interleaved (re, im) pairs.
	Complex bool
	Georef  Georef
	// Band is the raster band read (from 1).
	Band  int
	array bool           // .npy or .fits, read whole
	whole *tensor.Tensor // an array date that is not a regular file, read when inspected
	envi  bool           // an ENVI file read without GDAL (OpenENVI)
}

// isArrayFile reports whether path names a .npy or FITS file, which a date
// reads whole.
func isArrayFile(path string) bool {
	n := strings.ToLower(path)
	for _, e := range []string{".npy", ".fits", ".fit", ".fts", ".fits.gz"} {
		if strings.HasSuffix(n, e) {
			return true
		}
	}
	return false
}

// InspectDate opens a date and reports its geometry. An array date that is
// a regular NPY file is read as far as its header; another (FITS, a pipe)
// is read whole, and one that is not a regular file is kept in memory, as
// a pipe cannot be read again. With noGDAL an ENVI
// file that OpenENVI reads is read without GDAL, whose loading costs more
// than reading a date (then the projection is what the ENVI header says).
func InspectDate(path string, band int, noGDAL bool) (DateFile, error) {
	d := DateFile{Path: path, Band: band}
	st, err := os.Stat(path)
	if err != nil {
		return d, fmt.Errorf("date %w", err)
	}
	if st.IsDir() {
		return d, fmt.Errorf("date %s is a directory", path)
	}
	if isArrayFile(path) {
		if band != 1 {
			return d, fmt.Errorf("%s: band %d: a .npy or FITS date has one band", path, band)
		}
		return inspectArrayDate(d)
	}
	if noGDAL {
		if r, err := OpenENVI(path); err == nil {
			defer r.Close()
			if band < 1 || band > r.Bands {
				return d, fmt.Errorf("%s: band %d does not exist (the file has %d)", path, band, r.Bands)
			}
			d.envi, d.Width, d.Height, d.Type, d.Complex, d.Georef = true, r.Width, r.Height, r.Type, r.Complex(), r.Georef()
			return d, nil
		}
	}
	r, err := OpenRaster(path)
	if err != nil {
		return d, err
	}
	defer r.Close()
	if band < 1 || band > r.Bands {
		return d, fmt.Errorf("%s: band %d does not exist (the file has %d)", path, band, r.Bands)
	}
	d.Width, d.Height, d.Type, d.Complex, d.Georef = r.Width, r.Height, r.Type, r.Complex(), r.Georef()
	return d, nil
}

func inspectArrayDate(d DateFile) (DateFile, error) {
	in, err := openInput(d.Path) // once: a FIFO gives its bytes to the first open only
	if err != nil {
		return d, err
	}
	defer in.Close()
	var shape []int
	var dtype tensor.DType
	if format := formatOf(in); in.regular() && format == formatNPY {
		h, _, err := readNPYHeader(in.source())
		if err != nil {
			return d, fmt.Errorf("%s: %w", d.Path, err)
		}
		shape, dtype = h.shape, h.dt.out()
	} else {
		t, err := readArrayInput(in, format)
		if err != nil {
			return d, err
		}
		shape, dtype = t.Shape, t.DType
		if !in.regular() {
			d.whole = t
		}
	}
	if len(shape) != 2 {
		return d, fmt.Errorf("%s: want a 2-d image per date, got shape %s", d.Path, tensor.ShapeString(shape))
	}
	d.array, d.Height, d.Width, d.Type = true, shape[0], shape[1], dtype.String()
	return d, nil
}

// CheckDates inspects every date (InspectDate) and checks it against the
// first, before any work: the same size, data type, geotransform and
// coordinate system, or an error names the file that differs.
func CheckDates(paths []string, band int, noGDAL bool) ([]DateFile, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("no dates given")
	}
	infos := make([]DateFile, len(paths))
	for i, p := range paths {
		d, err := InspectDate(p, band, noGDAL)
		if err != nil {
			return nil, err
		}
		infos[i] = d
		f := infos[0]
		switch {
		case d.Width != f.Width || d.Height != f.Height:
			return nil, fmt.Errorf("%s: %d×%d pixels (width×height), but %s has %d×%d: every date must have the first's size",
				p, d.Width, d.Height, f.Path, f.Width, f.Height)
		case d.Type != f.Type:
			return nil, fmt.Errorf("%s: data type %s, but %s has %s: every date must have the first's type", p, d.Type, f.Path, f.Type)
		case d.Georef.HasTransform != f.Georef.HasTransform || d.Georef.HasTransform && !closeTransforms(d.Georef.Transform, f.Georef.Transform):
			return nil, fmt.Errorf("%s: geotransform %v differs from %s's %v: the stack must be co-registered on one grid",
				p, d.Georef.Transform, f.Path, f.Georef.Transform)
		}
		if same, nd, nf := SameCRS(d.Georef.Projection, f.Georef.Projection); !same {
			return nil, fmt.Errorf("%s: coordinate system %s differs from %s's %s: the stack must be co-registered on one grid (reproject it, e.g. with gdalwarp -t_srs)",
				p, nd, f.Path, nf)
		}
	}
	return infos, nil
}

func closeTransforms(a, b [6]float64) bool {
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*max(1, math.Abs(a[i])) {
			return false
		}
	}
	return true
}

// dateRaster is what a raster date reads from: a Raster or an ENVIRaster.
type dateRaster interface {
	ReadComplex(b, x0, y0, w, h int, dst []float32) error
	ReadReal(b, x0, y0, w, h int, dst []float32) error
	NoData(b int) (float64, bool)
	Close() error
}

// DateReader reads windows of one date: package stack's Reader.
type DateReader struct {
	r    dateRaster // nil for an array date
	band int
	cplx bool
	v    []float32 // an array date, read whole, of width w
	w    int
}

// Open opens the date for reading windows.
func (d DateFile) Open() (*DateReader, error) {
	if d.array {
		t := d.whole
		if t == nil {
			var err error
			if t, err = ReadArray(d.Path); err != nil {
				return nil, err
			}
		}
		return &DateReader{v: t.As(tensor.F32).F32, w: t.Shape[1]}, nil
	}
	var r dateRaster
	var err error
	if d.envi {
		r, err = OpenENVI(d.Path)
	} else {
		r, err = OpenRaster(d.Path)
	}
	if err != nil {
		return nil, err
	}
	return &DateReader{r: r, band: d.Band, cplx: d.Complex}, nil
}

// Read reads the w×h window at (x0, y0) into dst: interleaved (re, im)
// float32 pairs for a complex date, float32 values otherwise.
func (r *DateReader) Read(x0, y0, w, h int, dst []float32) error {
	switch {
	case r.r == nil:
		for y := 0; y < h; y++ {
			copy(dst[y*w:(y+1)*w], r.v[(y0+y)*r.w+x0:])
		}
		return nil
	case r.cplx:
		return r.r.ReadComplex(r.band, x0, y0, w, h, dst)
	}
	return r.r.ReadReal(r.band, x0, y0, w, h, dst)
}

// NoData is the band's nodata value, if it has one (arrays have none).
func (r *DateReader) NoData() (float64, bool) {
	if r.r == nil {
		return 0, false
	}
	return r.r.NoData(r.band)
}

// Close closes the file.
func (r *DateReader) Close() error {
	if r.r == nil {
		return nil
	}
	return r.r.Close()
}

// ExpandDates turns a command's arguments into the list of dates' files:
// paths, globs (expanded in name order; one that matches nothing is an
// error, a malformed one wraps filepath.ErrBadPattern) and @LIST, a text
// file with one path per line (relative to the list's folder; blank lines
// and # comments skipped).
func ExpandDates(args []string) ([]string, error) {
	var out []string
	for _, a := range args {
		switch {
		case strings.HasPrefix(a, "@"):
			list := a[1:]
			b, err := ReadText(list, 0, "a list of dates")
			if err != nil {
				return nil, fmt.Errorf("list of dates %w", err)
			}
			sc := bufio.NewScanner(bytes.NewReader(b))
			n := 0
			for sc.Scan() {
				line := strings.TrimSpace(sc.Text())
				if i := strings.Index(line, "#"); i >= 0 {
					line = strings.TrimSpace(line[:i])
				}
				if line == "" {
					continue
				}
				if !filepath.IsAbs(line) {
					line = filepath.Join(filepath.Dir(list), line)
				}
				out = append(out, line)
				n++
			}
			if err := sc.Err(); err != nil {
				return nil, fmt.Errorf("list of dates %s: %w", list, err)
			}
			if n == 0 {
				return nil, fmt.Errorf("list of dates %s names no file", list)
			}
		case strings.ContainsAny(a, "*?["):
			m, err := filepath.Glob(a)
			if err != nil {
				return nil, fmt.Errorf("glob %q: %w", a, err)
			}
			if len(m) == 0 {
				return nil, fmt.Errorf("glob %q matches no file", a)
			}
			out = append(out, m...) // filepath.Glob sorts
		default:
			out = append(out, a)
		}
	}
	return out, nil
}
