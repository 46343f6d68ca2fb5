package figure

import (
	"bytes"
	"encoding/xml"
	"image"
	"image/color"
	"image/png"
	"io"
	"math"
	"regexp"
	"strings"
	"testing"

	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/vkstat/vkstat/tensor"
)

// render draws f as a PNG and decodes it.
func render(t *testing.T, f Figure) *image.RGBA {
	t.Helper()
	var buf bytes.Buffer
	if err := Encode(&buf, f, PNG); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	rgba, ok := img.(*image.RGBA)
	if !ok {
		b := img.Bounds()
		rgba = image.NewRGBA(b)
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				rgba.Set(x, y, img.At(x, y))
			}
		}
	}
	return rgba
}

// pixelsOf counts img's pixels of colour c.
func pixelsOf(img *image.RGBA, c color.Color) int {
	r, g, b, _ := c.RGBA()
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if p := img.RGBAAt(x, y); p.R == uint8(r>>8) && p.G == uint8(g>>8) && p.B == uint8(b>>8) {
				n++
			}
		}
	}
	return n
}

// dot is the PNG pixel at point p of a picture h points high.
func dot(p vg.Point, h vg.Length) image.Point {
	return image.Pt(int(p.X.Dots(DPI)), int((h - p.Y).Dots(DPI)))
}

// mapAt is the colour at the centre of map pixel (row y, column x).
func mapAt(t *testing.T, img *image.RGBA, m Map, y, x float64) color.RGBA {
	t.Helper()
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	mc := mapCanvas(l)
	return img.RGBAAt(dot(m.at(mc, y, x), l.h).X, dot(m.at(mc, y, x), l.h).Y)
}

func TestMap(t *testing.T) {
	const H, W = 100, 100
	v := make([]float64, H*W)
	for y := range H {
		for x := range W {
			v[y*W+x] = math.Sin(float64(x)/7) + math.Cos(float64(y)/5)
		}
	}
	v[0] = math.NaN()           // (0, 0): bottom left
	v[(H-1)*W+W-1] = math.NaN() // (99, 99): top right
	v[10*W+20] = -5             // the minimum
	v[60*W+70] = 12             // the maximum
	v[30*W+40] = math.Inf(1)    // drawn as the maximum
	m := Map{Data: tensor.FromF64(v, H, W), Title: "PACO SNR — test", BarLabel: "SNR",
		Marks: []Mark{{Y: 60, X: 70, Label: "1"}, {Y: math.NaN(), X: 3}, {Y: 500, X: 3, Label: "outside"}}}
	img := render(t, m)
	l, _, _ := m.layout()
	if w, h := img.Bounds().Dx(), img.Bounds().Dy(); w != int(math.Ceil(l.w.Dots(DPI))) || h != int(math.Ceil(l.h.Dots(DPI))) {
		t.Fatalf("picture %dx%d, want %v×%v points at %d dpi", w, h, l.w, l.h, DPI)
	}
	if l.mapR.Size().X != mapLong || l.mapR.Size().Y != mapLong {
		t.Fatalf("map drawn %v", l.mapR)
	}
	for _, c := range []struct {
		y, x float64
		want color.RGBA
	}{{0, 0, NaNColor}, {99, 99, NaNColor}, {10, 20, viridis[0]}, {30, 40, viridis[len(viridis)-1]}, {60, 70, viridis[len(viridis)-1]}} {
		if got := mapAt(t, img, m, c.y, c.x); got != c.want {
			t.Errorf("pixel (%g, %g) drawn %v, want %v", c.y, c.x, got, c.want)
		}
	}
	// Rows go up: (0, 0), NaN, is at the bottom left.
	if p := dot(m.at(mapCanvas(l), 0, 0), l.h); p.Y < img.Bounds().Dy()/2 || p.X > img.Bounds().Dx()/2 {
		t.Errorf("pixel (0, 0) at %v: not at the bottom left", p)
	}
	// The mark's ring: 4 map pixels left of its centre.
	c := dot(m.at(mapCanvas(l), 60, 70), l.h)
	ring := dot(m.at(mapCanvas(l), 60, 66), l.h)
	red := 0
	for dx := -2; dx <= 2; dx++ {
		if p := img.RGBAAt(ring.X+dx, c.Y); p.R > 0xc0 && p.G < 0x80 && p.B < 0x80 {
			red++
		}
	}
	if red == 0 {
		t.Errorf("no ring around the mark at %v", ring)
	}
	// The colour bar runs from the maximum at the top to the minimum.
	br := l.barR
	top := img.RGBAAt(dot(vg.Point{X: (br.Min.X + br.Max.X) / 2, Y: br.Max.Y - 2}, l.h).X, dot(vg.Point{X: br.Min.X + 7, Y: br.Max.Y - 2}, l.h).Y)
	bot := img.RGBAAt(dot(vg.Point{X: (br.Min.X + br.Max.X) / 2, Y: br.Min.Y + 2}, l.h).X, dot(vg.Point{X: br.Min.X + 7, Y: br.Min.Y + 2}, l.h).Y)
	if top.G < 0xe0 || bot.G > 0x10 {
		t.Errorf("colour bar top %v, bottom %v", top, bot)
	}
}

// mapCanvas is the map's rectangle on a canvas holding only the picture.
func mapCanvas(l mapLayout) draw.Canvas {
	return draw.Canvas{Rectangle: l.mapR}
}

// TestMapErrors: what cannot be drawn says why; odd but drawable maps draw.
func TestMapErrors(t *testing.T) {
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
		if err := Encode(io.Discard, Map{Data: tt}, PNG); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	for name, tt := range map[string]*tensor.Tensor{
		"nil":   nil,
		"cube":  tensor.New(tensor.F64, 2, 3, 4),
		"empty": tensor.New(tensor.F64, 0, 3),
		"short": {Shape: []int{3, 3}, DType: tensor.F64, F64: []float64{1}},
		"huge":  {Shape: []int{1 << 15, 2}, DType: tensor.F64},
	} {
		if err := (Map{Data: tt}).Check(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if err := (Map{Data: tensor.New(tensor.F64, 2, 2), Range: &[2]float64{1, 1}}).Check(); err == nil {
		t.Error("an empty colour range: no error")
	}
}

// TestHeatmap: a correlation matrix in the diverging map over [−1, 1],
// row 0 at the top: +1 red, −1 blue, 0 white, NaN grey.
func TestHeatmap(t *testing.T) {
	nan := math.NaN()
	m := Map{Data: tensor.FromF64([]float64{1, -1, nan, -1, 1, nan, nan, nan, 0}, 3, 3), Colors: Diverging, Range: &[2]float64{-1, 1}, RowsDown: true}
	img := render(t, m)
	if at := func(y, x float64) color.RGBA { return mapAt(t, img, m, y, x) }; at(0, 0) != rdbu[len(rdbu)-1] || at(0, 1) != rdbu[0] || at(2, 2) != rdbu[3] || at(0, 2) != NaNColor {
		t.Errorf("colours: +1 %v, -1 %v, 0 %v, NaN %v", at(0, 0), at(0, 1), at(2, 2), at(0, 2))
	}
	l, _, _ := m.layout()
	if p := dot(m.at(mapCanvas(l), 0, 0), l.h); p.Y > img.Bounds().Dy()/2 {
		t.Errorf("row 0 drawn at %v, not at the top", p)
	}
	// Pixel axes count whole pixels: ticks 0, 1, 2 only.
	var labels []string
	for _, tk := range l.xTicks {
		labels = append(labels, tk.label)
	}
	if strings.Join(labels, " ") != "0 1 2" {
		t.Errorf("x ticks %v, want 0 1 2", labels)
	}
}

// TestQuicklook: a 2×8-look SAR map (256 rows of 64 columns, each pixel a
// quarter as tall as wide on the ground) is drawn square, as the ground it
// covers; intensities in dB put 10 and 1000 at the two ends of the colour
// bar with 100 halfway; map coordinates label the axes in full.
func TestQuicklook(t *testing.T) {
	const h, w = 256, 64
	v := make([]float64, h*w)
	for i := range v {
		v[i] = 100
	}
	for i := range w * h / 4 {
		v[i] = 10 // the top quarter
	}
	for i := w * h * 3 / 4; i < w*h; i++ {
		v[i] = 1000 // the bottom quarter
	}
	m := Map{Data: tensor.FromF64(v, h, w), DB: true, BarLabel: "dB", Aspect: 0.25, RowsDown: true, Clip: true,
		X: Axis{Label: "easting (m)", Origin: 400000, Step: 40}, Y: Axis{Label: "northing (m)", Origin: 6300000, Step: -10}, ScaleBar: &ScaleBar{Unit: "m"}}
	l, _, err := m.layout()
	if err != nil {
		t.Fatal(err)
	}
	if dx, dy := l.mapR.Size().X, l.mapR.Size().Y; dx != mapLong || math.Abs(float64(dy-mapLong)) > 1e-9 {
		t.Errorf("map drawn %v×%v, want %v square (its ground shape)", dx, dy, mapLong)
	}
	img := render(t, m)
	at := func(y float64) color.RGBA { return mapAt(t, img, m, y, 0) }
	if at(0) != viridis[0] || at(h-1) != viridis[len(viridis)-1] || at(h/2) != Viridis(0.5) {
		t.Errorf("dB colours: 10 %v, 100 %v, 1000 %v", at(0), at(h/2), at(h-1))
	}
	for _, tk := range append(l.xTicks, l.yTicks...) {
		if strings.ContainsAny(tk.label, "e+") {
			t.Errorf("tick %q: map coordinates in full", tk.label)
		}
	}
	if length, label := scaleLength(0.25*40*w, "m"); length != 500 || label != "500 m" {
		t.Errorf("scale bar of a 2,560 m wide map: %g, %q; want 500 m", length, label)
	}
	if _, label := scaleLength(4321, "m"); label != "2 km" {
		t.Errorf("scale bar at most 4321 m: %q, want 2 km", label)
	}
}

// TestCompass: north is drawn up and east left from a common origin (north
// up, east left); a north offset of 90° (added to position angles: map +y
// is then PA 90°, east) turns north to the right and east up.
func TestCompass(t *testing.T) {
	const h, w = 50, 60
	for _, tc := range []struct {
		offset      float64
		north, east [2]int // PNG direction (dx, dy), y down
	}{{0, [2]int{0, -1}, [2]int{-1, 0}}, {90, [2]int{1, 0}, [2]int{0, -1}}} {
		m := Map{Data: tensor.FromF64(make([]float64, h*w), h, w), Compass: &Compass{NorthOffset: tc.offset}}
		img := render(t, m)
		l, _, _ := m.layout()
		n := math.Min(float64(l.mapR.Size().X), float64(l.mapR.Size().Y))
		length := vg.Length(math.Max(10, math.Min(40, n/8)))
		o := dot(vg.Point{X: l.mapR.Min.X + length + 16, Y: l.mapR.Max.Y - length - 18}, l.h)
		ink := func(d [2]int) int {
			k := 0
			for i := 4; i < int(length.Dots(DPI))-8; i++ {
				if p := img.RGBAAt(o.X+i*d[0], o.Y+i*d[1]); p.R < 0x60 && p.G < 0x60 && p.B < 0x60 {
					k++
				}
			}
			return k
		}
		for name, d := range map[string][2]int{"north": tc.north, "east": tc.east} {
			if got := ink(d); got < 10 {
				t.Errorf("offset %g: %s arrow not along %v (%d ink pixels)", tc.offset, name, d, got)
			}
			if got := ink([2]int{-d[0], -d[1]}); got > 0 {
				t.Errorf("offset %g: ink opposite the %s arrow", tc.offset, name)
			}
		}
	}
}

// TestLines: the curves are drawn in their colours, NaN points skipped,
// and a log axis is ticked at values a reader can name.
func TestLines(t *testing.T) {
	l := Lines{Title: "t", XLabel: "x", YLabel: "y", LogY: true, Series: []Series{
		{Label: "data", X: []float64{1, 2, 3, 4}, Y: []float64{1e-3, math.NaN(), 1e-4, 3e-5}},
		{Label: "model", X: []float64{1, 4}, Y: []float64{1e-3, 3e-5}, Dashed: true}}}
	img := render(t, l)
	for i := range l.Series {
		if n := pixelsOf(img, plotutil.Color(i)); n < 50 {
			t.Errorf("series %d: %d pixels of its colour, want a visible line", i, n)
		}
	}
	for _, c := range []struct {
		lo, hi float64
		want   string
	}{{1, 1e4, "1 10 100 1000 1e+04"}, {0.8, 30, "1 2 5 10 20"}, {3.16, 13.5, "4 6 8 10 12"}} {
		var got []string
		for _, tk := range (roundTicks{log: true}).Ticks(c.lo, c.hi) {
			got = append(got, tk.Label)
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("log ticks over [%g, %g] = %s, want %s", c.lo, c.hi, s, c.want)
		}
	}
	for _, c := range []struct {
		lo, hi float64
		n      int
		want   string
	}{{0, 99, 5, "0 20 40 60 80"}, {-5.2, 23.1, 6, "-5 0 5 10 15 20"}, {0, 0.9, 4, "0 0.2 0.4 0.6 0.8"}, {3, 3, 4, "3"}} {
		var got []string
		for _, v := range niceTicks(c.lo, c.hi, c.n) {
			got = append(got, formatTick(v))
		}
		if s := strings.Join(got, " "); s != c.want {
			t.Errorf("niceTicks(%g, %g, %d) = %s, want %s", c.lo, c.hi, c.n, s, c.want)
		}
	}
}

// TestBarsLogAxis: a series a thousand times below another still shows its
// bar: a panel whose bars span more than a decade has a log axis.
func TestBarsLogAxis(t *testing.T) {
	img := render(t, Bars{{Title: "map", YLabel: "GB/s", Categories: []string{"(10,) float32"},
		Series: []BarSeries{{Label: "slow", Values: []float64{1}}, {Label: "fast", Values: []float64{1000}}}}})
	if n := pixelsOf(img, plotutil.Color(0)); n < 2000 {
		t.Errorf("the slow series' colour covers %d pixels: its bar is not visible", n)
	}
}

// TestVectorFormats: every kind of picture writes as SVG (XML, its images
// PNG data that fill their rectangles, all text in one font) and PDF; text
// beyond Windows-1252 is spelled out in PDFs.
func TestVectorFormats(t *testing.T) {
	m := Map{Data: tensor.FromF64([]float64{1, 2, 3, 4}, 2, 2), Title: "σ map", BarLabel: "SNR"}
	figs := map[string]Figure{
		"map":   m,
		"lines": Lines{Title: "t", Series: []Series{{X: []float64{1, 2}, Y: []float64{3, 4}}}},
		"grid":  Grid{Panels: []Figure{m, m}, Cols: 2},
		"bars":  Bars{{Title: "b", Categories: []string{"a"}, Series: []BarSeries{{Label: "s", Values: []float64{1}}}}},
	}
	family := regexp.MustCompile(`font-family:([^;"]+)`)
	for name, f := range figs {
		var svg, pdf bytes.Buffer
		if err := Encode(&svg, f, SVG); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		d := xml.NewDecoder(bytes.NewReader(svg.Bytes()))
		for {
			if _, err := d.Token(); err == io.EOF {
				break
			} else if err != nil {
				t.Fatalf("%s.svg is not XML: %v", name, err)
			}
		}
		s := svg.String()
		if strings.Contains(s, "<image") && (!strings.Contains(s, `<image preserveAspectRatio="none" `) || !strings.Contains(s, "data:image/png;base64,")) {
			t.Errorf("%s.svg: images not PNG data filling their rectangles", name)
		}
		for _, m := range family.FindAllStringSubmatch(s, -1) {
			if m[1] != "Liberation Sans" && m[1] != `"Liberation Sans"` {
				t.Errorf("%s.svg uses the font %q", name, m[1])
			}
		}
		if err := Encode(&pdf, f, PDF); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !bytes.HasPrefix(pdf.Bytes(), []byte("%PDF-")) || !bytes.Contains(pdf.Bytes()[max(0, pdf.Len()-64):], []byte("%%EOF")) {
			t.Errorf("%s.pdf is not a PDF", name)
		}
	}
	if got := windows1252("— σ − ×"); got != "\x97 sigma - \xd7" {
		t.Errorf("windows1252 = %q", got)
	}
	for _, s := range []string{"png", "SVG", "pdf", ""} {
		if _, err := ParseFormat(s); err != nil {
			t.Errorf("ParseFormat(%q): %v", s, err)
		}
	}
	if _, err := ParseFormat("jpeg"); err == nil {
		t.Error("jpeg accepted")
	}
}
