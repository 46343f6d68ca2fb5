package bars

import (
	"bytes"
	"image/png"
	"testing"

	"gonum.org/v1/plot/plotutil"
)

// TestLogAxis: a series a thousand times below another still shows its
// bar: a panel whose bars span more than a decade has a log axis (on a
// linear one the low bar was a pixel high).
func TestLogAxis(t *testing.T) {
	var buf bytes.Buffer
	err := WritePNG(&buf, []Panel{{Title: "map", YLabel: "GB/s", Categories: []string{"(10,) float32"},
		Series: []Series{{Label: "slow", Values: []float64{1}}, {Label: "fast", Values: []float64{1000}}}}})
	if err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r, g, b, _ := plotutil.Color(0).RGBA()
	n := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if r2, g2, b2, _ := img.At(x, y).RGBA(); r2>>8 == r>>8 && g2>>8 == g>>8 && b2>>8 == b>>8 {
				n++
			}
		}
	}
	// The legend's swatch alone is a few hundred pixels; a visible bar
	// on a log axis (a third of the height) adds thousands.
	if n < 2000 {
		t.Errorf("the slow series' colour covers %d pixels: its bar is not visible", n)
	}
	if err := WritePNG(&buf, nil); err == nil {
		t.Error("no panels: no error")
	}
}
