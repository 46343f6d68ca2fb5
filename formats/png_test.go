package formats

import (
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

func readPNG(t *testing.T, path string) image.Image {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	return img
}

func rgba(c color.Color) color.RGBA {
	r, g, b, a := c.RGBA()
	return color.RGBA{uint8(r >> 8), uint8(g >> 8), uint8(b >> 8), uint8(a >> 8)}
}

func TestWriteSNRPNG(t *testing.T) {
	const H, W = 100, 100
	v := make([]float64, H*W)
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			v[y*W+x] = math.Sin(float64(x)/7) + math.Cos(float64(y)/5)
		}
	}
	v[0] = math.NaN()           // (0, 0): bottom left
	v[(H-1)*W+W-1] = math.NaN() // (99, 99): top right
	v[10*W+20] = -5             // the minimum
	v[60*W+70] = 12             // the maximum
	v[30*W+40] = math.Inf(1)    // drawn as the maximum
	marks := []Mark{{Y: 60, X: 70, Label: "1"}, {Y: math.NaN(), X: 3}, {Y: 500, X: 3, Label: "outside"}}
	p := filepath.Join(t.TempDir(), "snr.png")
	if err := WriteSNRPNG(p, tensor.FromF64(v, H, W), marks, "PACO SNR \u2014 test"); err != nil {
		t.Fatal(err)
	}
	img := readPNG(t, p)
	l := layoutSNR(H, W)
	if l.scale != 4 || img.Bounds().Dx() != l.width || img.Bounds().Dy() != l.height {
		t.Fatalf("picture %v at scale %d, want %dx%d at 4", img.Bounds(), l.scale, l.width, l.height)
	}
	if l.mapRect.Dx() != 400 || l.mapRect.Dy() != 400 {
		t.Fatalf("map drawn %v", l.mapRect)
	}
	// at returns the colour at the middle of map pixel (y, x); y grows upwards.
	at := func(y, x int) color.RGBA {
		return rgba(img.At(l.mapRect.Min.X+x*4+1, l.mapRect.Min.Y+(H-1-y)*4+1))
	}
	if c := at(0, 0); c != pngNaN {
		t.Errorf("NaN pixel (0, 0) drawn %v, want grey %v", c, pngNaN)
	}
	if c := at(99, 99); c != pngNaN {
		t.Errorf("NaN pixel (99, 99) drawn %v", c)
	}
	if c := at(10, 20); c != viridis[0] {
		t.Errorf("minimum drawn %v, want %v", c, viridis[0])
	}
	if c := at(30, 40); c != viridis[len(viridis)-1] {
		t.Errorf("+Inf drawn %v, want %v", c, viridis[len(viridis)-1])
	}
	// The mark's ring: 4 map pixels (16 screen pixels) left of its centre.
	cx := l.mapRect.Min.X + 70*4 + 2
	cy := l.mapRect.Min.Y + (H-1-60)*4 + 2
	if c := rgba(img.At(cx-16, cy)); c != pngMark {
		t.Errorf("no ring around the mark: %v at %d,%d", c, cx-16, cy)
	}
	// The colour bar runs from the maximum at the top to the minimum.
	bx := (l.barRect.Min.X + l.barRect.Max.X) / 2
	if top, bot := rgba(img.At(bx, l.barRect.Min.Y)), rgba(img.At(bx, l.barRect.Max.Y-1)); top.G < 0xe0 || bot.G > 0x10 {
		t.Errorf("colour bar top %v, bottom %v", top, bot)
	}
}

func TestWriteSNRPNGDegenerate(t *testing.T) {
	dir := t.TempDir()
	nan := make([]float64, 6)
	for i := range nan {
		nan[i] = math.NaN()
	}
	for name, tt := range map[string]*tensor.Tensor{
		"allnan":   tensor.FromF64(nan, 2, 3),
		"constant": tensor.FromF32([]float32{7, 7, 7, 7}, 2, 2),
		"row":      tensor.FromF64([]float64{1, 2, 3}, 1, 3),
		"big":      tensor.New(tensor.F32, 700, 300),
	} {
		p := filepath.Join(dir, name+".png")
		if err := WriteSNRPNG(p, tt, nil, ""); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		img := readPNG(t, p)
		l := layoutSNR(tt.Shape[0], tt.Shape[1])
		if img.Bounds().Dx() != l.width || img.Bounds().Dy() != l.height {
			t.Errorf("%s: %v", name, img.Bounds())
		}
		if name == "allnan" {
			if c := rgba(img.At(l.mapRect.Min.X+1, l.mapRect.Min.Y+1)); c != pngNaN {
				t.Errorf("all-NaN map drawn %v", c)
			}
		}
	}
}

// TestWriteSNRPNGErrors: a bad map is an error and leaves no file.
func TestWriteSNRPNGErrors(t *testing.T) {
	dir := t.TempDir()
	for name, tt := range map[string]*tensor.Tensor{
		"nil":   nil,
		"cube":  tensor.New(tensor.F64, 2, 3, 4),
		"empty": tensor.New(tensor.F64, 0, 3),
		"short": {Shape: []int{3, 3}, DType: tensor.F64, F64: []float64{1}},
		"huge":  {Shape: []int{1 << 15, 2}, DType: tensor.F64},
	} {
		p := filepath.Join(dir, name+".png")
		err := WriteSNRPNG(p, tt, nil, "x")
		if err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v, want one naming %s", name, err, p)
		}
	}
	if err := WriteSNRPNG(filepath.Join(dir, "missing", "a.png"), tensor.New(tensor.F64, 2, 2), nil, ""); err == nil {
		t.Error("no error writing into a missing directory")
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestNiceTicks(t *testing.T) {
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   string
	}{
		{0, 99, 5, "[0 20 40 60 80]"},
		{-5.2, 23.1, 6, "[-5 0 5 10 15 20]"},
		{0, 0.9, 4, "[0 0.2 0.4 0.6 0.8]"},
		{3, 3, 4, "[3]"},
	} {
		got := niceTicks(c.lo, c.hi, c.n)
		s := make([]string, len(got))
		for i, g := range got {
			s[i] = formatTick(g)
		}
		if "["+strings.Join(s, " ")+"]" != c.want {
			t.Errorf("niceTicks(%g, %g, %d) = %v, want %s", c.lo, c.hi, c.n, s, c.want)
		}
	}
}

// TestRenderHeatmap: a 3×3 correlation matrix with a NaN row and column
// draws its diagonal red (+1), −1 blue, 0 white and NaN grey.
func TestRenderHeatmap(t *testing.T) {
	nan := math.NaN()
	m := tensor.FromF64([]float64{1, -1, nan, -1, 1, nan, nan, nan, 0}, 3, 3)
	img, err := RenderHeatmap(m, "corr", "channel", "channel", "r", -1, 1)
	if err != nil {
		t.Fatal(err)
	}
	l := layoutSNR(3, 3)
	at := func(y, x int) color.RGBA {
		return img.RGBAAt(l.mapRect.Min.X+x*l.scale+l.scale/2, l.mapRect.Min.Y+y*l.scale+l.scale/2)
	}
	if at(0, 0) != rdbu[len(rdbu)-1] || at(0, 1) != rdbu[0] || at(2, 2) != rdbu[3] || at(0, 2) != pngNaN {
		t.Errorf("colours: +1 %v, -1 %v, 0 %v, NaN %v", at(0, 0), at(0, 1), at(2, 2), at(0, 2))
	}
	if _, err := RenderHeatmap(m, "", "", "", "", 1, 1); err == nil {
		t.Error("empty range accepted")
	}
}

// TestRenderQuicklook: a 2×8-look SAR map (256 rows of 64 columns, each
// pixel a quarter as tall as wide on the ground) is drawn square, as the
// ground it covers; intensities in dB put 10 and 1000 at the two ends of
// the colour bar with 100 halfway; the bar's label and a long title fit.
func TestRenderQuicklook(t *testing.T) {
	const h, w = 256, 64
	v := make([]float64, h*w)
	for i := range v {
		v[i] = 100
	}
	for i := 0; i < w*h/4; i++ {
		v[i] = 10 // the top quarter
	}
	for i := w * h * 3 / 4; i < w*h; i++ {
		v[i] = 1000 // the bottom quarter
	}
	title := "mean of intensity, 6 dates, 2x8 looks, refined Lee 7x7, cropped to the first 1024 lines"
	img, err := RenderQuicklook(tensor.FromF64(v, h, w), Quicklook{Title: title, Units: "dB", DB: true, Aspect: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	l := layoutMap(h, w, 0.25)
	if dx, dy := l.mapRect.Dx(), l.mapRect.Dy(); dx != 400 || dy != 400 {
		t.Errorf("map drawn %dx%d, want 400x400 (its ground shape)", dx, dy)
	}
	at := func(y, x int) color.RGBA { // middle of map pixel (y, x), row 0 at the top
		return img.RGBAAt(l.mapRect.Min.X+int((float64(x)+0.5)*l.sx), l.mapRect.Min.Y+int((float64(y)+0.5)*l.sy))
	}
	// dB: 10, 20, 30; the colours span the 2nd to 98th percentiles, here
	// the whole range.
	if at(0, 0) != viridis[0] || at(h-1, 0) != viridis[len(viridis)-1] || at(h/2, 0) != colormap(0.5) {
		t.Errorf("dB colours: 10 %v, 100 %v, 1000 %v", at(0, 0), at(h/2, 0), at(h-1, 0))
	}
	if img.Bounds().Dx() < 16+len(title)*glyphW {
		t.Errorf("picture %d wide: the title (%d characters) is cut", img.Bounds().Dx(), len(title))
	}
	ink := 0
	for y := l.barRect.Min.Y - 8 - glyphAscent; y < l.barRect.Min.Y-6; y++ {
		for x := l.barRect.Min.X; x < l.barRect.Min.X+2*glyphW; x++ {
			if img.RGBAAt(x, y) == pngInk {
				ink++
			}
		}
	}
	if ink < 10 {
		t.Errorf("no label above the colour bar (%d ink pixels)", ink)
	}
}
