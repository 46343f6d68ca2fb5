package spectra

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// TestFFTPlan holds the power-of-two FFT (every length from 1 to 1024,
// columns of 1, 3 and 32) to reference.go's plain DFT, column by column:
// for X = a + ib, DFT(X) = dft(a) + i·dft(b).
func TestFFTPlan(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for n := 1; n <= 1024; n *= 2 {
		p := newFFTPlan(n)
		for _, l := range []int{1, 3, 32} {
			t.Run(fmt.Sprintf("n=%d/l=%d", n, l), func(t *testing.T) {
				xr, xi := make([]float64, n*l), make([]float64, n*l)
				for i := range xr {
					xr[i], xi[i] = r.NormFloat64(), 2*r.NormFloat64()-1
				}
				in := [2][]float64{append([]float64(nil), xr...), append([]float64(nil), xi...)}
				yr, yi := make([]float64, n*l), make([]float64, n*l)
				gr, gi := p.transform(xr, xi, yr, yi, l)
				col := func(v []float64, c int) []float64 {
					out := make([]float64, n)
					for t := range out {
						out[t] = v[t*l+c]
					}
					return out
				}
				tol := 1e-13 * math.Sqrt(float64(n)) * float64(n)
				for c := 0; c < l; c++ {
					a, b := col(in[0], c), col(in[1], c)
					for k := 0; k < n; k++ {
						ar, ai := dft(a, k)
						br, bi := dft(b, k)
						wr, wi := ar-bi, ai+br
						if d := math.Hypot(gr[k*l+c]-wr, gi[k*l+c]-wi); !(d <= tol) {
							t.Fatalf("column %d: Y[%d] = %g%+gi, want %g%+gi", c, k, gr[k*l+c], gi[k*l+c], wr, wi)
						}
					}
				}
			})
		}
	}
}

// TestPow2Sizes holds the CPU path's power-of-two transforms (cpupow2.go)
// to the plain-DFT reference at every frame size from 1×2 to 128×128 and
// every series length from 2 to 256: the full spectra, the radial spectra,
// the bins, the sums and the summaries.
func TestPow2Sizes(t *testing.T) {
	ctx := context.Background()
	for h := 1; h <= 128; h *= 2 {
		for w := 2; w <= 128; w *= 2 {
			t.Run(fmt.Sprintf("%dx%d", h, w), func(t *testing.T) {
				if !pow2Frames(h, w) {
					t.Fatal("not on the power-of-two path")
				}
				b := 3
				x := randomFrames(b, h, w, uint64(h*1000+w))
				p, err := Power2D(ctx, x, b, h, w, Options{})
				if err != nil {
					t.Fatal(err)
				}
				closeTo(t, "P", p, ReferencePower2D(x, b, h, w), 1e-12)
				got, _, err := SpatialSpectra(ctx, x, b, h, w, Options{})
				if err != nil {
					t.Fatal(err)
				}
				ref := Reference(x, b, h, w)
				closeTo(t, "radial", got.Radial, ref.Radial, 1e-12)
				for i := range got.Count {
					if got.Count[i] != ref.Count[i] {
						t.Fatalf("bin %d holds %d frequencies, reference %d", i, got.Count[i], ref.Count[i])
					}
				}
				closeTo(t, "radius", got.Radius, ref.Radius, 1e-12)
				closeTo(t, "total", got.Total, ref.Total, 1e-12)
				closeTo(t, "centroid", Centroid(got.NuSum, got.Total), Centroid(ref.NuSum, ref.Total), 1e-11)
				closeTo(t, "high fraction", HighFraction(got.HighSum, got.Total), HighFraction(ref.HighSum, ref.Total), 1e-11)
			})
		}
	}
	for f := 2; f <= 256; f *= 2 {
		t.Run(fmt.Sprintf("F=%d", f), func(t *testing.T) {
			// More series than one block of temporalPow2, and a partial block.
			b := temporalBlock + 37
			x := randomFrames(b, 1, f, uint64(f))
			got, _, err := TemporalSpectra(ctx, x, b, f, Options{})
			if err != nil {
				t.Fatal(err)
			}
			ref := ReferenceTemporal(x, b, f)
			closeTo(t, "temporal", got.Spectrum, ref.Spectrum, 1e-12)
			closeTo(t, "total", got.Total, ref.Total, 1e-12)
			closeTo(t, "centroid", Centroid(got.NuSum, got.Total), Centroid(ref.NuSum, ref.Total), 1e-11)
			closeTo(t, "high fraction", HighFraction(got.HighSum, got.Total), HighFraction(ref.HighSum, ref.Total), 1e-11)
		})
	}
}

// TestPow2Constant: a constant frame or series has no power at all (every
// P exactly 0, so NaN summaries), also beside frames that have some.
func TestPow2Constant(t *testing.T) {
	ctx := context.Background()
	h, w := 16, 32
	x := randomFrames(3, h, w, 9)
	for i := h * w; i < 2*h*w; i++ {
		x[i] = 2.5
	}
	p, err := Power2D(ctx, x, 3, h, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range p[h*w : 2*h*w] {
		if v != 0 {
			t.Fatalf("constant frame: P[%d] = %g, want 0", i, v)
		}
	}
	s, _, err := SpatialSpectra(ctx, x, 3, h, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if s.Total[1] != 0 || !math.IsNaN(Centroid(s.NuSum, s.Total)[1]) || !(s.Total[0] > 0) || !(s.Total[2] > 0) {
		t.Errorf("totals %v, centroids %v: want 0 and NaN for the constant frame alone", s.Total, Centroid(s.NuSum, s.Total))
	}
	ts, _, err := TemporalSpectra(ctx, x, 3*h, w, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i := h; i < 2*h; i++ {
		if ts.Total[i] != 0 || !(ts.Total[i-h] > 0) {
			t.Fatalf("series %d: Σ S = %g, want 0 (series %d: %g, want > 0)", i, ts.Total[i], i-h, ts.Total[i-h])
		}
	}
}
