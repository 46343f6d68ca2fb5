package figure

import (
	"bytes"
	"image"
	"math/rand/v2"
	"testing"

	xdraw "golang.org/x/image/draw"
	"golang.org/x/image/math/f64"
)

// TestNearestSamePixels: nearest draws an image scaled (up, down, by
// fractions, flipped) and moved (by fractions, partly off the canvas)
// with NearestNeighbor's pixels, opaque or not, over what was there.
func TestNearestSamePixels(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 9))
	for k := range 300 {
		sw, sh := 1+rng.IntN(70), 1+rng.IntN(70)
		src := image.NewRGBA(image.Rect(0, 0, sw, sh))
		for i := range src.Pix {
			src.Pix[i] = byte(rng.IntN(256))
			if i%4 == 3 && k%3 != 0 {
				src.Pix[i] = 255 // opaque but every third
			}
		}
		scale := func() float64 {
			s := 0.2 + 4*rng.Float64()
			if rng.IntN(4) == 0 {
				s = float64(1 + rng.IntN(5)) // whole
			}
			if rng.IntN(3) == 0 {
				s = -s // flipped
			}
			return s
		}
		s2d := f64.Aff3{scale(), 0, 200*rng.Float64() - 40, 0, scale(), 200*rng.Float64() - 40}
		if k%10 == 0 {
			s2d[0] = 1
		}
		sr := src.Bounds()
		if k%5 == 0 {
			sr = image.Rect(rng.IntN(sw), rng.IntN(sh), sw, sh)
		}
		got, want := image.NewRGBA(image.Rect(0, 0, 160, 150)), image.NewRGBA(image.Rect(0, 0, 160, 150))
		for i := range got.Pix {
			got.Pix[i] = byte(i * 7)
			want.Pix[i] = byte(i * 7)
		}
		op := xdraw.Over
		if k%2 == 0 {
			op = xdraw.Src
		}
		nearest{}.Transform(got, s2d, src, sr, op, nil)
		xdraw.NearestNeighbor.Transform(want, s2d, src, sr, op, nil)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Fatalf("case %d: %d×%d by %v, %v, op %v: the pixels differ from NearestNeighbor's", k, sw, sh, s2d, sr, op)
		}
	}
}
