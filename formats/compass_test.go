package formats

import (
	"image"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestDrawCompass: on a constant map, the north arrow is drawn upwards and
// the east arrow leftwards from a common origin (north up, east left); a
// north offset of 90° (added to position angles: map +y is then PA 90°,
// east) turns north to the right and east upwards.
func TestDrawCompass(t *testing.T) {
	const h, w = 50, 60
	inkAlong := func(img *image.RGBA, x0, y0, dx, dy, n int) int {
		c := 0
		for i := 3; i < n; i++ {
			if p := img.RGBAAt(x0+i*dx, y0+i*dy); p == pngInk {
				c++
			}
		}
		return c
	}
	for _, tc := range []struct {
		offset           float64
		north, east      [2]int // screen direction (dx, dy)
		notNorth, notEst [2]int
	}{
		{0, [2]int{0, -1}, [2]int{-1, 0}, [2]int{0, 1}, [2]int{1, 0}},
		{90, [2]int{1, 0}, [2]int{0, -1}, [2]int{-1, 0}, [2]int{0, 1}},
	} {
		img, err := RenderSNR(tensor.FromF64(make([]float64, h*w), h, w), nil, "")
		if err != nil {
			t.Fatal(err)
		}
		DrawCompass(img, h, w, tc.offset)
		l := layoutSNR(h, w)
		length := min(40, min(l.mapRect.Dx(), l.mapRect.Dy())/8) // 350/8, capped at 40
		ox, oy := l.mapRect.Min.X+length+2*glyphW+4, l.mapRect.Min.Y+length+glyphAscent+6
		n := length - 8
		if got := inkAlong(img, ox, oy, tc.north[0], tc.north[1], n); got < n/2 {
			t.Errorf("offset %g: north arrow not along %v (%d ink pixels)", tc.offset, tc.north, got)
		}
		if got := inkAlong(img, ox, oy, tc.east[0], tc.east[1], n); got < n/2 {
			t.Errorf("offset %g: east arrow not along %v (%d ink pixels)", tc.offset, tc.east, got)
		}
		for _, d := range [][2]int{tc.notNorth, tc.notEst} {
			if got := inkAlong(img, ox, oy, d[0], d[1], n); got > 0 {
				t.Errorf("offset %g: ink along %v, where no arrow points", tc.offset, d)
			}
		}
	}
}
