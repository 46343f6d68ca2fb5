package formats

// What rasters are described with, with or without GDAL.

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// Georef is where a raster lies: its affine geotransform (GDAL's six
// coefficients: x0, dx/dcol, dx/drow, y0, dy/dcol, dy/drow) and projection
// as WKT. HasTransform is false for rasters without one (plain SLC in radar
// geometry).
type Georef struct {
	Transform    [6]float64
	HasTransform bool
	Projection   string
}

// Window returns the georeferencing of the window whose top-left pixel is
// (x0, y0) of this raster, sampled every (sx, sy) pixels (a multilook).
func (g Georef) Window(x0, y0, sx, sy int) Georef {
	if !g.HasTransform {
		return g
	}
	t := g.Transform
	n := t
	n[0] = t[0] + float64(x0)*t[1] + float64(y0)*t[2]
	n[3] = t[3] + float64(x0)*t[4] + float64(y0)*t[5]
	n[1], n[2] = t[1]*float64(sx), t[2]*float64(sy)
	n[4], n[5] = t[4]*float64(sx), t[5]*float64(sy)
	g.Transform = n
	return g
}

// PixelAspect is a pixel's height over its width on the ground, from the
// geotransform; false without one (or a degenerate one).
func (g Georef) PixelAspect() (float64, bool) {
	if !g.HasTransform {
		return 0, false
	}
	t := g.Transform
	w, h := math.Hypot(t[1], t[4]), math.Hypot(t[2], t[5])
	if !(w > 0) || !(h > 0) || math.IsInf(w, 0) || math.IsInf(h, 0) {
		return 0, false
	}
	return h / w, true
}

// RasterBand is one band to write: w·h float32 values, or 2·w·h interleaved
// (re, im) for a complex type, with an optional description.
type RasterBand struct {
	Data []float32
	Desc string
}

// RasterSpec describes a raster to write.
type RasterSpec struct {
	Driver        string // "GTiff" or "ENVI" (any GDAL driver that creates files)
	Type          string // GDAL data type name: "Float32", "CFloat32", "CInt16", "Int16", ...
	Width, Height int
	Georef        Georef
	NoData        *float64 // nodata value for every band, if any
	Options       []string // creation options ("COMPRESS=DEFLATE")
}

// crsID matches the authority code that closes a WKT definition: WKT2's
// ID["EPSG",32720]] or WKT1's AUTHORITY["EPSG","32720"]] at the very end
// (inner codes name the datum, units and axes).
var crsID = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:ID|AUTHORITY)\["([^"]+)",\s*"?([^"\]]+)"?\]\]\s*$`)
})

// SameCRS reports whether two projections (WKT, as Georef holds them) name
// the same coordinate reference system: by their authority codes where
// both have one (EPSG:32720, whatever the WKT's version or layout), else by
// their text with white space ignored; two empty projections agree. It
// also returns how each is named, for messages.
func SameCRS(a, b string) (same bool, nameA, nameB string) {
	name := func(w string) (string, bool) {
		if strings.TrimSpace(w) == "" {
			return "no projection", false
		}
		if m := crsID().FindStringSubmatch(w); m != nil {
			return m[1] + ":" + strings.TrimSpace(m[2]), true
		}
		return "a projection without an authority code", false
	}
	na, ca := name(a)
	nb, cb := name(b)
	if ca && cb {
		return strings.EqualFold(na, nb), na, nb
	}
	squash := func(s string) string { return strings.Join(strings.Fields(s), "") }
	return squash(a) == squash(b), na, nb
}
