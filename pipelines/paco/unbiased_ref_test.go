package paco

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/tensor"
)

// keysRef is the cubic-convolution kernel (a = −½) written out.
func keysRef(x float64) float64 {
	x = math.Abs(x)
	if x < 1 {
		return 1.5*x*x*x - 2.5*x*x + 1
	}
	if x < 2 {
		return -0.5*x*x*x + 2.5*x*x - 4*x + 2
	}
	return 0
}

// unbiasedABRef is one evaluation of Algorithm 3 written straight from
// PACO.md with the reference's helpers (polar trajectory, refMeanCov,
// refShrunk, gonum Cholesky) and the PSF interpolated by summing the kernel
// over every stamp pixel: a and b at sky (y0, x0) with α·h removed.
func unbiasedABRef(in Input, y0, x0, alpha float64) (a, b float64) {
	T, H, W := in.Cube.Shape[0], in.Cube.Shape[1], in.Cube.Shape[2]
	cy, cx := float64(H/2), float64(W/2)
	offs := refMask(in.Radius)
	P := len(offs)
	n := in.PSF.Shape[0]
	st := in.PSF.Float64s()
	var sum float64
	for _, v := range st {
		sum += v
	}
	psf := func(dy, dx float64) float64 { // unit-sum stamp at (dy, dx) from its centre
		var v float64
		for j := 0; j < n; j++ {
			for i := 0; i < n; i++ {
				v += st[j*n+i] / sum * keysRef(dy-float64(j-n/2)) * keysRef(dx-float64(i-n/2))
			}
		}
		return v
	}
	pos := make([][2]float64, T)
	r0, th0 := math.Hypot(y0-cy, x0-cx), math.Atan2(y0-cy, x0-cx)
	for t := range pos {
		ang := th0 - in.Angles[t]*math.Pi/180
		pos[t] = [2]float64{cy + r0*math.Sin(ang), cx + r0*math.Cos(ang)}
	}
	hAt := func(ky, kx int, t int) []float64 {
		h := make([]float64, P)
		for i, o := range offs {
			h[i] = psf(float64(ky+o[0])-pos[t][0], float64(kx+o[1])-pos[t][1])
		}
		return h
	}
	cube := in.Cube.Float64s()
	for l := 0; l < T; l++ {
		ky, kx := refRound(pos[l][0], false), refRound(pos[l][1], false)
		r := make([][]float64, T)
		for t := range r {
			r[t] = make([]float64, P)
			h := hAt(ky, kx, t)
			for i, o := range offs {
				r[t][i] = cube[(t*H+ky+o[0])*W+kx+o[1]] - alpha*h[i]
			}
		}
		m, s := refMeanCov(r, false)
		var ch mat.Cholesky
		if !ch.Factorize(mat.NewSymDense(P, refShrunk(s, T, false))) {
			return math.NaN(), math.NaN()
		}
		h := hAt(ky, kx, l)
		var u mat.VecDense
		if err := ch.SolveVecTo(&u, mat.NewVecDense(P, h)); err != nil {
			return math.NaN(), math.NaN()
		}
		for i, o := range offs {
			a += h[i] * u.AtVec(i)
			b += u.AtVec(i) * (cube[(l*H+ky+o[0])*W+kx+o[1]] - m[i])
		}
	}
	return a, b
}

// TestUnbiasedAgainstReference: one evaluation (a, b at a sub-pixel
// position for several α) equals the straightforward float64 version.
func TestUnbiasedAgainstReference(t *testing.T) {
	cfg := synth.Default()
	cfg.H, cfg.W, cfg.Frames, cfg.RotationDeg, cfg.FWHM, cfg.Seed = 32, 32, 12, 40, 3, 3
	cfg.DType = tensor.F64
	cfg.Companions = []synth.Companion{{SepPx: 9.3, ThetaDeg: 70, Flux: 150}}
	ds, err := synth.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	in := Input{Cube: ds.Cube, Angles: ds.Angles, PSF: ds.PSF, Radius: 3}
	p, err := prepare(in)
	if err != nil {
		t.Fatal(err)
	}
	u, err := newUnbiasedCtx(p, false)
	if err != nil {
		t.Fatal(err)
	}
	y0, x0 := ds.Truth[0].Y, ds.Truth[0].X
	for _, alpha := range []float64{0, 40, 150} {
		pos, loc := u.trajectory(y0, x0)
		st, err := u.learn(loc, alpha, pos)
		if err != nil {
			t.Fatal(err)
		}
		a, b, ok := u.ab(pos, loc, st)
		ra, rb := unbiasedABRef(in, y0, x0, alpha)
		t.Logf("α %g: a %.12g b %.12g; reference a %.12g b %.12g", alpha, a, b, ra, rb)
		if !ok || math.Abs(a-ra) > 1e-9*math.Abs(ra) || math.Abs(b-rb) > 1e-9*math.Abs(rb) {
			t.Errorf("α %g: a %.12g b %.12g, reference a %.12g b %.12g", alpha, a, b, ra, rb)
		}
	}
}
