package figure

import (
	"bytes"
	"image"
	"image/png"
	"math/rand/v2"
	"testing"
)

// TestEncodePNG decodes encodePNG's files with image/png and finds the
// pixels it was given: random colours with blocks of repeated rows (the Up
// filter) and runs along a row (Sub), a sub-image not at the origin, one
// row, one column, and a translucent picture (left to image/png).
func TestEncodePNG(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(w, h int, opaque bool) *image.RGBA {
		img := image.NewRGBA(image.Rect(0, 0, w, h))
		for y := range h {
			if y%3 != 0 { // blocks of three equal rows
				copy(img.Pix[y*img.Stride:][:4*w], img.Pix[(y-1)*img.Stride:])
				continue
			}
			for x := range w {
				p := img.Pix[y*img.Stride+4*x:][:4]
				if x%4 != 0 { // runs of four along the row
					copy(p, img.Pix[y*img.Stride+4*(x-1):][:4])
					continue
				}
				a := byte(255)
				if !opaque {
					a = byte(rng.IntN(256))
				}
				// Premultiplied: no channel above alpha.
				p[0], p[1], p[2], p[3] = byte(rng.IntN(int(a)+1)), byte(rng.IntN(int(a)+1)), byte(rng.IntN(int(a)+1)), a
			}
		}
		return img
	}
	cases := map[string]*image.RGBA{
		"opaque":      random(97, 61, true),
		"sub-image":   random(50, 40, true).SubImage(image.Rect(7, 5, 43, 31)).(*image.RGBA),
		"one row":     random(33, 1, true),
		"one column":  random(1, 17, true),
		"translucent": random(20, 12, false),
	}
	for name, img := range cases {
		var buf bytes.Buffer
		if err := encodePNG(&buf, img); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		got, err := png.Decode(&buf)
		if err != nil {
			t.Fatalf("%s: image/png reads: %v", name, err)
		}
		b := img.Bounds()
		if gb := got.Bounds(); gb.Dx() != b.Dx() || gb.Dy() != b.Dy() {
			t.Fatalf("%s: %v decoded, %v given", name, gb, b)
		}
		for y := range b.Dy() {
			for x := range b.Dx() {
				r0, g0, b0, a0 := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
				r1, g1, b1, a1 := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
				if img.Opaque() && [4]uint32{r0, g0, b0, a0} != [4]uint32{r1, g1, b1, a1} {
					t.Fatalf("%s: pixel (%d, %d) decoded %v, given %v", name, x, y, [4]uint32{r1, g1, b1, a1}, [4]uint32{r0, g0, b0, a0})
				}
				if !img.Opaque() && a0 != a1 {
					t.Fatalf("%s: pixel (%d, %d) alpha %d decoded, %d given", name, x, y, a1, a0)
				}
			}
		}
	}
}
