package paco

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// gaussPSF is a unit-sum Gaussian stamp of odd size n.
func gaussPSF(n int, fwhm float64) *tensor.Tensor {
	s := fwhm / 2.3548
	t := tensor.New(tensor.F64, n, n)
	c := n / 2
	var sum float64
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			v := math.Exp(-float64((y-c)*(y-c)+(x-c)*(x-c)) / (2 * s * s))
			t.F64[y*n+x] = v
			sum += v
		}
	}
	for i := range t.F64 {
		t.F64[i] /= sum
	}
	return t
}

// testCube is a small stationary background (pixel-dependent level and
// noise, spatially correlated by a shared component) with companions
// injected at (sep, pa, flux) following the rotation convention of PACO.md.
func testCube(dt tensor.DType, T, H, W int, rot float64, seed uint64, comps ...[3]float64) (*tensor.Tensor, []float64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	level := make([]float64, H*W)
	sigma := make([]float64, H*W)
	for i := range level {
		level[i] = 10 + rng.Float64()
		sigma[i] = 0.5 + rng.Float64()
	}
	angles := make([]float64, T)
	cube := make([]float64, T*H*W)
	cy, cx := float64(H/2), float64(W/2)
	for t := 0; t < T; t++ {
		angles[t] = rot * float64(t) / float64(max(T-1, 1))
		shared := make([]float64, H*W)
		for i := range shared {
			shared[i] = rng.NormFloat64()
		}
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				i := y*W + x
				corr := shared[i]
				if x+1 < W {
					corr = 0.7*shared[i] + 0.7*shared[i+1]
				}
				cube[t*H*W+i] = level[i] + sigma[i]*(0.6*corr+0.5*rng.NormFloat64())
			}
		}
		for _, c := range comps {
			th := (c[1] - angles[t]) * math.Pi / 180
			py, px := cy+c[0]*math.Sin(th), cx+c[0]*math.Cos(th)
			s := 2.0 / 2.3548
			for y := 0; y < H; y++ {
				for x := 0; x < W; x++ {
					d2 := (float64(y)-py)*(float64(y)-py) + (float64(x)-px)*(float64(x)-px)
					cube[t*H*W+y*W+x] += c[2] * math.Exp(-d2/(2*s*s)) / (2 * math.Pi * s * s)
				}
			}
		}
	}
	t := tensor.FromF64(cube, T, H, W)
	return t.As(dt), angles
}

// maxDiff is the largest |a−b| over entries where both are finite, and the
// count of entries where exactly one is NaN.
func maxDiff(a, b []float64) (float64, int) {
	var m float64
	nanMismatch := 0
	for i := range a {
		an, bn := math.IsNaN(a[i]), math.IsNaN(b[i])
		if an || bn {
			if an != bn {
				nanMismatch++
			}
			continue
		}
		m = math.Max(m, math.Abs(a[i]-b[i]))
	}
	return m, nanMismatch
}

func checkAgainst(t *testing.T, name string, got, want *Maps, tol float64) {
	t.Helper()
	for _, m := range []struct {
		what      string
		got, want []float64
		tol       float64
	}{{"SNR", got.SNR, want.SNR, tol}, {"flux", got.Flux, want.Flux, tol * 10}, {"sigma", got.Sigma, want.Sigma, tol * 10}} {
		d, nm := maxDiff(m.got, m.want)
		if nm > 0 || d > m.tol {
			t.Errorf("%s: %s max |Δ| = %.3g (tolerance %.3g), %d NaN mismatches", name, m.what, d, m.tol, nm)
		}
	}
	if got.InvalidPixels != want.InvalidPixels {
		t.Errorf("%s: %d invalid pixels, reference %d", name, got.InvalidPixels, want.InvalidPixels)
	}
}

// The stages on an Input, prepared first (prepare), as the tests call
// them.
func cpuOf(ctx context.Context, in Input) (*Maps, error) {
	p, err := prepare(in)
	if err != nil {
		return nil, err
	}
	return CPU(ctx, p)
}

func vulkanOf(ctx context.Context, dev *engine.Device, in Input) (*Maps, error) {
	p, err := prepare(in)
	if err != nil {
		return nil, err
	}
	return Vulkan(ctx, dev, p)
}

func injectOf(in Input, srcs []Source) (*tensor.Tensor, error) {
	p, err := prepare(in)
	if err != nil {
		return nil, err
	}
	return Inject(p, srcs)
}

func unbiasedOf(ctx context.Context, dev *engine.Device, in Input, srcs []Source, refine bool) ([]Unbiased, error) {
	p, err := prepare(in)
	if err != nil {
		return nil, err
	}
	return UnbiasedFlux(ctx, dev, p, srcs, refine)
}
