package figure

import (
	"bytes"
	"fmt"
	"hash/adler32"
	"image"
	"image/color"
	"image/png"
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"git.sr.ht/~sbinet/gg"
	"github.com/vkstat/vkstat/tensor"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
)

// TestEncodePNG decodes encodePNG's files with image/png and finds the
// pixels it was given: random colours with blocks of repeated rows (the Up
// filter) and runs along a row (Sub), a sub-image not at the origin, one
// row, one column, and a translucent picture (left to image/png), in one
// piece and in two to five compressed at once (more pieces than rows: one
// a row).
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
	for _, pieces := range []int{1, 2, 3, 5} {
		for name, img := range cases {
			name := fmt.Sprintf("%s, %d pieces", name, pieces)
			var buf bytes.Buffer
			if err := encodePNGPieces(&buf, img, pieces); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			checkPNG(t, name, &buf, img)
		}
	}
}

// TestEncodePNGSameOnEveryMachine: a picture of several pieces (600×400,
// 720 KB of rows) is written in the same bytes on one core and on four, and
// reads back as itself.
func TestEncodePNGSameOnEveryMachine(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 600, 400))
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range img.Pix {
		img.Pix[i] = byte(rng.IntN(8) * 32)
		if i%4 == 3 {
			img.Pix[i] = 255
		}
	}
	var out [2]bytes.Buffer
	for k, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		err := encodePNG(&out[k], img)
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Errorf("%d bytes on one core, %d on four, not the same", out[0].Len(), out[1].Len())
	}
	checkPNG(t, "600×400", &out[0], img)
}

// checkPNG decodes buf with image/png and finds img's pixels (img's alpha
// where it is translucent).
func checkPNG(t *testing.T, name string, buf *bytes.Buffer, img *image.RGBA) {
	t.Helper()
	got, err := png.Decode(buf)
	if err != nil {
		t.Fatalf("%s: image/png reads: %v", name, err)
	}
	b := img.Bounds()
	if gb := got.Bounds(); gb.Dx() != b.Dx() || gb.Dy() != b.Dy() {
		t.Fatalf("%s: %v decoded, %v given", name, gb, b)
	}
	opaque := img.Opaque()
	for y := range b.Dy() {
		for x := range b.Dx() {
			r0, g0, b0, a0 := img.At(b.Min.X+x, b.Min.Y+y).RGBA()
			r1, g1, b1, a1 := got.At(got.Bounds().Min.X+x, got.Bounds().Min.Y+y).RGBA()
			if opaque && [4]uint32{r0, g0, b0, a0} != [4]uint32{r1, g1, b1, a1} {
				t.Fatalf("%s: pixel (%d, %d) decoded %v, given %v", name, x, y, [4]uint32{r1, g1, b1, a1}, [4]uint32{r0, g0, b0, a0})
			}
			if !opaque && a0 != a1 {
				t.Fatalf("%s: pixel (%d, %d) alpha %d decoded, %d given", name, x, y, a1, a0)
			}
		}
	}
}

// TestAdler32Combine: the sum of two pieces from theirs is hash/adler32's
// of the whole, for pieces of 0 to 200,000 bytes (past the modulus, 65,521,
// and its multiples) of random and of 0xff bytes (the largest sums).
func TestAdler32Combine(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	data := make([]byte, 400000)
	for i := range data {
		data[i] = byte(rng.IntN(256))
	}
	ff := bytes.Repeat([]byte{0xff}, len(data))
	for _, d := range [][]byte{data, ff} {
		for _, n := range [][2]int{{0, 0}, {0, 7}, {7, 0}, {1, 1}, {65521, 65521}, {65520, 131042}, {200000, 199999}, {5552, 65522}, {123457, 3}} {
			a, b := d[:n[0]], d[n[0]:n[0]+n[1]]
			got := adler32Combine(adler32.Checksum(a), adler32.Checksum(b), int64(len(b)))
			if want := adler32.Checksum(d[:n[0]+n[1]]); got != want {
				t.Errorf("%d + %d bytes (0x%02x…): %08x, hash/adler32 %08x", n[0], n[1], d[0], got, want)
			}
		}
	}
}

// TestPNGCanvasSamePixels: the pictures drawn on a pngCanvas (paper painted
// at once, the fills that change nothing skipped) have vgimg's own pixels
// for every kind of figure, at sizes of whole and of fractional pixels, and
// it does skip: the first paper fill of the whole draws nothing.
func TestPNGCanvasSamePixels(t *testing.T) {
	m := Map{Data: tensor.FromF64([]float64{1, 2, 3, math.NaN(), 5, 6}, 2, 3), Title: "σ map", BarLabel: "SNR",
		Marks: []Mark{{Y: 0, X: 1, Label: "1"}, {Y: 1, X: 1, Star: true}}, Compass: &Compass{}}
	lines := Lines{Title: "t", Series: []Series{{X: []float64{1, 2, 3}, Y: []float64{3, 4, 2}, Label: "a"}}}
	odd := lines
	odd.Width, odd.Height = 401.3, 300.1
	figs := map[string]Figure{
		"map":   m,
		"odd":   odd,
		"lines": lines,
		"grid":  Grid{Panels: []Figure{m, m}, Cols: 2},
		"bars":  Bars{{Title: "b", Categories: []string{"a", "b"}, Series: []BarSeries{{Label: "s", Values: []float64{1, 30}}}}},
	}
	// Maps of the sizes whose pixels vgimg gets from a copy scaled up
	// (Map.image), which a PNG canvas scales from the map's own.
	for _, hw := range [][2]int{{64, 64}, {100, 37}, {5, 300}, {201, 201}, {33, 48}} {
		v := make([]float64, hw[0]*hw[1])
		for i := range v {
			v[i] = math.Sin(float64(i) * 0.37)
		}
		figs[fmt.Sprintf("map %d×%d", hw[0], hw[1])] = Map{Data: tensor.FromF64(v, hw[0], hw[1]), Title: "t", BarLabel: "b"}
	}
	for name, f := range figs {
		fw, fh := f.Size()
		got, want := rasterise(f, fw, fh, false), rasterise(f, fw, fh, true)
		if !bytes.Equal(got.Pix, want.Pix) {
			t.Errorf("%s (%v×%v points): the pixels differ from vgimg's", name, fw, fh)
		}
	}
	// The skip itself: Lines' paper fill of the whole canvas, first,
	// draws nothing; its next drawing ends the blank.
	fw, fh := lines.Size()
	img := image.NewRGBA(image.Rect(0, 0, int(math.Ceil(fw.Dots(DPI))), int(math.Ceil(fh.Dots(DPI)))))
	ctx := gg.NewContextForRGBA(img)
	c := newPNGCanvas(vgimg.NewWith(vgimg.UseImageWithContext(img, ctx), vgimg.UseDPI(DPI)))
	dc := draw.New(c)
	dc.SetColor(paper)
	if dc.Fill(dc.Rectangle.Path()); !c.blank || img.RGBAAt(3, 3) != color.RGBAModel.Convert(paper) {
		t.Errorf("the first paper fill of %v×%v points: blank %v, pixel %v", fw, fh, c.blank, img.RGBAAt(3, 3))
	}
	if dc.Fill(dc.Rectangle.Path()); !c.blank {
		t.Errorf("a second paper fill of the whole drawn")
	}
	if dc.Stroke(dc.Rectangle.Path()); c.blank {
		t.Error("still blank after a stroke")
	}
}
