package formats

import (
	"image"
	"image/color"
	"math"
)

// DrawCompass draws north and east arrows, labelled N and E, in the top-left
// corner of the map of an h×w picture made by RenderSNR (y up): north at
// position angle 0 and east at 90°, east of north, with the derotated frame
// taken as north up (+y) and east left (−x), turned by northOffsetDeg, the
// true-north correction added to position angles (the map angle of north is
// 90° − northOffsetDeg from +x towards +y).
func DrawCompass(img *image.RGBA, h, w int, northOffsetDeg float64) {
	l := layoutSNR(h, w)
	r := l.mapRect
	n := float64(min(r.Dx(), r.Dy()))
	length := math.Max(10, math.Min(40, n/8))
	ox := float64(r.Min.X) + length + 2*glyphW + 4
	oy := float64(r.Min.Y) + length + glyphAscent + 6
	for _, a := range []struct {
		label string
		theta float64 // map angle from +x towards +y, degrees
	}{{"N", 90 - northOffsetDeg}, {"E", 180 - northOffsetDeg}} {
		t := a.theta * math.Pi / 180
		ux, uy := math.Cos(t), -math.Sin(t) // screen: y down
		tx, ty := ox+length*ux, oy+length*uy
		head := func(side float64) (float64, float64) {
			c, s := math.Cos(side), math.Sin(side)
			return tx - 6*(ux*c-uy*s), ty - 6*(ux*s+uy*c)
		}
		hx1, hy1 := head(0.5)
		hx2, hy2 := head(-0.5)
		for _, pass := range []struct {
			width float64
			c     color.RGBA
		}{{3, pngPaper}, {1, pngInk}} {
			segment(img, ox, oy, tx, ty, pass.width, r, pass.c)
			segment(img, tx, ty, hx1, hy1, pass.width, r, pass.c)
			segment(img, tx, ty, hx2, hy2, pass.width, r, pass.c)
		}
		lx := int(math.Round(tx + 9*ux - float64(glyphW)/2))
		ly := int(math.Round(ty + 9*uy + float64(glyphAscent)/2))
		outlinedText(img, lx, ly, a.label)
	}
}

// segment draws a line from (x0, y0) to (x1, y1) of the given width,
// clipped to clip.
func segment(img *image.RGBA, x0, y0, x1, y1, width float64, clip image.Rectangle, c color.RGBA) {
	steps := int(math.Ceil(2*math.Hypot(x1-x0, y1-y0))) + 1
	half := int(math.Floor(width / 2))
	for i := 0; i <= steps; i++ {
		f := float64(i) / float64(steps)
		x := int(math.Round(x0 + f*(x1-x0)))
		y := int(math.Round(y0 + f*(y1-y0)))
		for dy := -half; dy <= half; dy++ {
			for dx := -half; dx <= half; dx++ {
				if p := (image.Point{X: x + dx, Y: y + dy}); p.In(clip) {
					img.SetRGBA(p.X, p.Y, c)
				}
			}
		}
	}
}
