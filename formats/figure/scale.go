package figure

import (
	"image"
	"math"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
)

// nearest is x/image/draw's NearestNeighbor with the same pixels in less
// time where a picture's images are drawn: an opaque RGBA image scaled
// and moved but not turned onto an RGBA canvas (a map's pixels, a colour
// bar). There it finds each column's and each row's source pixel once by
// NearestNeighbor's own arithmetic, not both for every pixel, and copies
// a row that repeats the one above it whole (3 ms of a map picture's 10
// under NearestNeighbor, 533×533 pixels of it). Anything else goes to
// NearestNeighbor.
type nearest struct{}

func (nearest) Scale(dst xdraw.Image, dr image.Rectangle, src image.Image, sr image.Rectangle, op xdraw.Op, opts *xdraw.Options) {
	xdraw.NearestNeighbor.Scale(dst, dr, src, sr, op, opts)
}

func (nearest) Transform(dst xdraw.Image, s2d f64.Aff3, src image.Image, sr image.Rectangle, op xdraw.Op, opts *xdraw.Options) {
	d, dok := dst.(*image.RGBA)
	s, sok := src.(*image.RGBA)
	if !dok || !sok || opts != nil || s2d[1] != 0 || s2d[3] != 0 || s2d[0] == 1 && s2d[4] == 1 ||
		!sr.In(s.Bounds()) || op != xdraw.Src && !(op == xdraw.Over && s.Opaque()) {
		xdraw.NearestNeighbor.Transform(dst, s2d, src, sr, op, opts)
		return
	}
	// As nnInterpolator.Transform and its transform_RGBA_RGBA_Src, step
	// for step (golang.org/x/image v0.30.0, draw/impl.go and scale.go).
	dr := transformRect(&s2d, &sr)
	adr := d.Bounds().Intersect(dr)
	if adr.Empty() || sr.Empty() {
		return
	}
	d2s := invert(&s2d)
	bias := transformRect(&d2s, &adr).Min
	bias.X--
	bias.Y--
	d2s[2] -= float64(bias.X)
	d2s[5] -= float64(bias.Y)
	adr = adr.Sub(dr.Min)
	// Each column's source offset in a row; the columns that have one
	// are a run (the map is monotonic), lo…hi−1.
	dyf0 := float64(dr.Min.Y+adr.Min.Y) + 0.5
	cols := make([]int, adr.Dx())
	lo, hi := len(cols), 0
	for i := range cols {
		dxf := float64(dr.Min.X+adr.Min.X+i) + 0.5
		sx0 := int(float64(d2s[0]*dxf)+float64(d2s[1]*dyf0)+d2s[2]) + bias.X
		if sx0 >= sr.Min.X && sx0 < sr.Max.X {
			cols[i] = (sx0 - s.Rect.Min.X) * 4
			lo, hi = min(lo, i), i+1
		}
	}
	if lo >= hi {
		return
	}
	prevSy, prev := 0, []byte(nil)
	for dy := adr.Min.Y; dy < adr.Max.Y; dy++ {
		dyf := float64(dr.Min.Y+dy) + 0.5
		dxf := float64(dr.Min.X+adr.Min.X) + 0.5
		sy0 := int(float64(d2s[3]*dxf)+float64(d2s[4]*dyf)+d2s[5]) + bias.Y
		if sy0 < sr.Min.Y || sy0 >= sr.Max.Y {
			continue
		}
		o := (dr.Min.Y+dy-d.Rect.Min.Y)*d.Stride + (dr.Min.X+adr.Min.X+lo-d.Rect.Min.X)*4
		row := d.Pix[o : o+4*(hi-lo)]
		if prev != nil && sy0 == prevSy {
			copy(row, prev)
		} else {
			srow := s.Pix[(sy0-s.Rect.Min.Y)*s.Stride:]
			for i, c := range cols[lo:hi] {
				copy(row[4*i:4*i+4], srow[c:c+4])
			}
		}
		prevSy, prev = sy0, row
	}
}

// invert is x/image/draw's: the inverse of an affine map.
func invert(m *f64.Aff3) f64.Aff3 {
	m00 := +m[3*1+1]
	m01 := -m[3*0+1]
	m02 := +float64(m[3*1+2]*m[3*0+1]) - float64(m[3*1+1]*m[3*0+2])
	m10 := -m[3*1+0]
	m11 := +m[3*0+0]
	m12 := +float64(m[3*1+0]*m[3*0+2]) - float64(m[3*1+2]*m[3*0+0])
	det := float64(m00*m11) - float64(m10*m01)
	return f64.Aff3{m00 / det, m01 / det, m02 / det, m10 / det, m11 / det, m12 / det}
}

// transformRect is x/image/draw's: a rectangle holding sr mapped by s2d.
func transformRect(s2d *f64.Aff3, sr *image.Rectangle) (dr image.Rectangle) {
	ps := [...]image.Point{{sr.Min.X, sr.Min.Y}, {sr.Max.X, sr.Min.Y}, {sr.Min.X, sr.Max.Y}, {sr.Max.X, sr.Max.Y}}
	for i, p := range ps {
		sxf, syf := float64(p.X), float64(p.Y)
		dx := int(math.Floor(float64(s2d[0]*sxf) + float64(s2d[1]*syf) + s2d[2]))
		dy := int(math.Floor(float64(s2d[3]*sxf) + float64(s2d[4]*syf) + s2d[5]))
		if i == 0 {
			dr = image.Rectangle{Min: image.Point{dx, dy}, Max: image.Point{dx + 1, dy + 1}}
			continue
		}
		dr.Min.X, dr.Max.X = min(dr.Min.X, dx), max(dr.Max.X, dx+1)
		dr.Min.Y, dr.Max.Y = min(dr.Min.Y, dy), max(dr.Max.Y, dy+1)
	}
	return dr
}
