package spectra

import (
	"context"
	"math"

	"github.com/vkstat/vkstat/internal/par"
)

// The CPU path for power-of-two sizes (every latent of docs/latent.md):
// fftPlan's transforms on whole rows at once, each real signal packed as a
// complex one of half its length (even samples real, odd imaginary) and
// unpacked after, only the half-plane kx = 0 … W/2 of a frame's spectrum
// formed (the other half is its mirror), and the radial bins and sums taken
// in the same pass, without the full (B, H, W) spectra in memory. Other
// sizes go through gonum (cpu.go).

// pow2Frames reports whether h×w frames take this path.
func pow2Frames(h, w int) bool { return isPow2(h) && isPow2(w) && w >= 2 }

// frames2D holds the plans and scratch of one goroutine's frames.
type frames2D struct {
	h, w, w2       int
	py, px         *fftPlan
	ar, ai, br, bi []float64 // h·w2 each
	tr, ti         []float64 // e^{−2πi kx/W}, kx = 0 … W/2
	norm           float64   // 1/(4·(HW)²): the ¼ of the unpacking, and P's scale
}

func newFrames2D(h, w int) *frames2D {
	w2 := w / 2
	f := &frames2D{h: h, w: w, w2: w2, py: newFFTPlan(h), px: newFFTPlan(w2),
		ar: make([]float64, h*w2), ai: make([]float64, h*w2), br: make([]float64, h*w2), bi: make([]float64, h*w2),
		tr: make([]float64, w2+1), ti: make([]float64, w2+1)}
	for k := 0; k <= w2; k++ {
		f.ti[k], f.tr[k] = math.Sincos(-2 * math.Pi * float64(k) / float64(w))
	}
	hw := float64(h * w)
	f.norm = 1 / (4 * hw * hw)
	return f
}

// transform returns Z, the 2-D DFT of z[y, x'] = (f[y, 2x'] − m) + i·(f[y,
// 2x'+1] − m) (m the frame's mean), laid out transposed: Z[kx', ky] at
// kx'·H + ky.
func (f *frames2D) transform(frame []float64) (zr, zi []float64) {
	h, w, w2 := f.h, f.w, f.w2
	m := mean(frame)
	for y := 0; y < h; y++ {
		row := frame[y*w : (y+1)*w]
		or, oi := f.ar[y*w2:(y+1)*w2], f.ai[y*w2:(y+1)*w2]
		oi = oi[:len(or)]
		row = row[:2*len(or)]
		for x := range or {
			or[x], oi[x] = row[2*x]-m, row[2*x+1]-m
		}
	}
	// Along y (axis 0 of the (H, W/2) array), then transposed, then along x.
	yr, yi := f.py.transform(f.ar, f.ai, f.br, f.bi, w2)
	tr, ti := f.ar, f.ai
	if &yr[0] == &f.ar[0] {
		tr, ti = f.br, f.bi
	}
	for y := 0; y < h; y++ {
		sr, si := yr[y*w2:(y+1)*w2], yi[y*w2:(y+1)*w2]
		si = si[:len(sr)]
		for x, v := range sr {
			tr[x*h+y], ti[x*h+y] = v, si[x]
		}
	}
	return f.px.transform(tr, ti, yr, yi, h)
}

// unpack is 4·|X|² of the real frame's DFT X at a frequency (ky, kx), from
// Z there (zr, zi), Z at the mirror (−ky, −kx) (cr, ci) and e^{−2πi kx/W}
// (wr, wi): with E = (Z + C̄)/2 and O = (Z − C̄)/2i the DFTs of the even
// and odd columns, X = E + e^{−2πi kx/W}·O.
func unpack(zr, zi, cr, ci, wr, wi float64) float64 {
	er, ei := zr+cr, zi-ci
	or, oi := zi+ci, cr-zr
	xr := er + wr*or - wi*oi
	xi := ei + wr*oi + wi*or
	return xr*xr + xi*xi
}

// halfPower writes P[kx·H + ky] for kx = 0 … W/2 from transform's Z.
func (f *frames2D) halfPower(zr, zi, out []float64) {
	h, w2 := f.h, f.w2
	for kx := 0; kx <= w2; kx++ {
		a := kx % w2
		c := (w2 - a) % w2
		ar, ai := zr[a*h:(a+1)*h], zi[a*h:(a+1)*h]
		cr, ci := zr[c*h:(c+1)*h], zi[c*h:(c+1)*h]
		o := out[kx*h : (kx+1)*h]
		wr, wi := f.tr[kx], f.ti[kx]
		o[0] = unpack(ar[0], ai[0], cr[0], ci[0], wr, wi) * f.norm
		for ky := 1; ky < h; ky++ {
			o[ky] = unpack(ar[ky], ai[ky], cr[h-ky], ci[h-ky], wr, wi) * f.norm
		}
	}
}

// power2DPow2 is power2DCPU for pow2Frames sizes.
func power2DPow2(ctx context.Context, x []float64, b, h, w int) ([]float64, error) {
	p := make([]float64, b*h*w)
	par.Range(b, grain(b), func(lo, hi int) {
		if ctx.Err() != nil {
			return
		}
		f := newFrames2D(h, w)
		half := make([]float64, (f.w2+1)*h)
		for i := lo; i < hi; i++ {
			zr, zi := f.transform(x[i*h*w : (i+1)*h*w])
			f.halfPower(zr, zi, half)
			out := p[i*h*w : (i+1)*h*w]
			for kx := 0; kx <= f.w2; kx++ {
				col := half[kx*h : (kx+1)*h]
				for ky, v := range col {
					out[ky*w+kx] = v
					if kx > 0 && kx < f.w2 {
						out[((h-ky)%h)*w+w-kx] = v
					}
				}
			}
		}
	})
	return p, ctx.Err()
}

// spatialPow2Kernel is spatialCPU's kernel for pow2Frames sizes: each
// frame's half-plane power, its bins and sums taken in one pass.
func spatialPow2Kernel(s *SpatialGroups) func() cpuKernel {
	h, w := s.H, s.W
	fullBin, fullNu := make([]int, h*w), make([]float64, h*w)
	clear(s.Count)
	clear(s.Radius)
	radialTable(h, w, s.K, s.Count, s.Radius, func(j, r int, v float64) { fullBin[j], fullNu[j] = r, v })
	// The half-plane's tables, laid out as halfPower's output, each
	// frequency weighted by how many of the full plane it stands for (kx
	// and W − kx for 0 < kx < W/2: the same power, bin and ν).
	w2, k := w/2, s.K
	n := (w2 + 1) * h
	bin := make([]int, n)
	wt, nuWt, hiWt := make([]float64, n), make([]float64, n), make([]float64, n)
	for kx := 0; kx <= w2; kx++ {
		c := 1.0
		if kx > 0 && kx < w2 {
			c = 2
		}
		for ky := 0; ky < h; ky++ {
			i, j := kx*h+ky, ky*w+kx
			bin[i], wt[i], nuWt[i] = fullBin[j], c, c*fullNu[j]
			if fullNu[j] > 0.25 {
				hiWt[i] = c
			}
		}
	}
	return func() cpuKernel {
		f := newFrames2D(h, w)
		half := make([]float64, n)
		frame := make([]float64, h*w)
		rad := make([]float64, k)
		return func(load func(int, []float64) bool, lo, hi int, emit emitFunc) {
			for i := lo; i < hi; i++ {
				if load(i, frame) {
					continue
				}
				zr, zi := f.transform(frame)
				f.halfPower(zr, zi, half)
				clear(rad)
				var tot, nus, his float64
				for j, v := range half {
					if r := bin[j]; r >= 0 {
						rad[r] += wt[j] * v
					}
					tot += wt[j] * v
					nus += nuWt[j] * v
					his += hiWt[j] * v
				}
				emit(i, rad, tot, nus, his)
			}
		}
	}
}

// temporalBlock is how many series temporalPow2Kernel transforms at once
// (the columns of its arrays).
const temporalBlock = 128

// temporalPow2Kernel is temporalCPU's kernel for series of a power of two
// frames (f ≥ 2), temporalBlock series at a time.
func temporalPow2Kernel(f int) func() cpuKernel {
	f2, k := f/2, f/2+1
	tw := make([]float64, 2*k) // e^{−2πi j/F}
	sc := make([]float64, k)   // c_j/(4F²): one-sided factor, unpacking's ¼, scale
	nu := make([]float64, k)
	for j := 0; j < k; j++ {
		tw[2*j+1], tw[2*j] = math.Sincos(-2 * math.Pi * float64(j) / float64(f))
		sc[j] = 2 / (4 * float64(f) * float64(f))
		if j == 0 || 2*j == f {
			sc[j] /= 2
		}
		nu[j] = float64(j) / float64(f)
	}
	return func() cpuKernel {
		plan := newFFTPlan(f2)
		// Where Z at frequency q and at its mirror −q start (times the
		// columns l, which is temporalBlock but for the last block).
		zAt, cAt := make([]int, k), make([]int, k)
		ar, ai := make([]float64, f2*temporalBlock), make([]float64, f2*temporalBlock)
		br, bi := make([]float64, f2*temporalBlock), make([]float64, f2*temporalBlock)
		out := make([]float64, k)
		s := make([]float64, f)
		bad := make([]bool, temporalBlock)
		return func(load func(int, []float64) bool, lo, hi int, emit emitFunc) {
			for s0 := lo; s0 < hi; s0 += temporalBlock {
				l := min(temporalBlock, hi-s0) // the columns: series s0 … s0+l−1
				for j := 0; j < l; j++ {
					bad[j] = load(s0+j, s) // a bad series goes through as zeros
					m := mean(s)
					for n := 0; n < f2; n++ {
						ar[n*l+j], ai[n*l+j] = s[2*n]-m, s[2*n+1]-m
					}
				}
				zr, zi := plan.transform(ar[:f2*l], ai[:f2*l], br[:f2*l], bi[:f2*l], l)
				for q := range zAt {
					a := q % f2
					zAt[q], cAt[q] = a*l, ((f2-a)%f2)*l
				}
				for j := 0; j < l; j++ {
					if bad[j] {
						continue
					}
					var tot, nus, his float64
					for q := range out {
						a, c := zAt[q]+j, cAt[q]+j
						v := unpack(zr[a], zi[a], zr[c], zi[c], tw[2*q], tw[2*q+1]) * sc[q]
						out[q] = v
						tot += v
						nus += nu[q] * v
						if nu[q] > 0.25 {
							his += v
						}
					}
					emit(s0+j, out, tot, nus, his)
				}
			}
		}
	}
}
