package figure

import (
	"io"
	"math"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// pacoSNRMap and pacoContrastLines are what a 64×64 PACO run draws: its
// SNR map (NaN inside 5 and beyond 28 pixels, a detection, the star, the
// compass) and its contrast curve; the benchmarks draw both, and draw and
// encode both (docs/benchmarks/paco.md).
func pacoSNRMap() Map {
	v := make([]float64, 64*64)
	for i := range v {
		v[i] = math.Sin(float64(i)*0.37) * 3
		if r := math.Hypot(float64(i/64)-32, float64(i%64)-32); r < 5 || r > 28 {
			v[i] = math.NaN()
		}
	}
	return Map{Data: tensor.FromF64(v, 64, 64), Title: "PACO SNR, s64, R=4, 48 frames", BarLabel: "SNR",
		Marks: []Mark{{Y: 40, X: 20, Label: "1"}, {Y: 32, X: 32, Star: true}}, Compass: &Compass{}}
}

func pacoContrastLines() Lines {
	var s Series
	for i := range 28 {
		s.X = append(s.X, float64(i+4))
		s.Y = append(s.Y, 100*math.Exp(-float64(i)/10))
	}
	return Lines{Title: "PACO 5-σ detection limit, s64, centre (32, 32)", XLabel: "separation (px)", LogY: true, YLabel: "flux limit (cube counts)", Series: []Series{s}}
}

func BenchmarkPACOPicturesDraw(b *testing.B) {
	m, l := pacoSNRMap(), pacoContrastLines()
	mw, mh := m.Size()
	lw, lh := l.Size()
	for b.Loop() {
		rasterise(m, mw, mh, false)
		rasterise(l, lw, lh, false)
	}
}

func BenchmarkPACOPicturesEncode(b *testing.B) {
	m, l := pacoSNRMap(), pacoContrastLines()
	for b.Loop() {
		Encode(io.Discard, m, PNG)
		Encode(io.Discard, l, PNG)
	}
}
