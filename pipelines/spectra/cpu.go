package spectra

import (
	"context"
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/vkstat/vkstat/internal/par"
)

// power2DCPU returns the power spectra P (B, H, W) of the frames of x:
// power2DPow2 for power-of-two sizes, otherwise gonum's FFTs (gonum2D).
// Frames are spread over the cores.
func power2DCPU(ctx context.Context, x []float64, b, h, w int) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if pow2Frames(h, w) {
		return power2DPow2(ctx, x, b, h, w)
	}
	p := make([]float64, b*h*w)
	par.Range(b, grain(b), func(lo, hi int) {
		g := newGonum2D(h, w)
		for i := lo; i < hi; i++ {
			g.power(x[i*h*w:(i+1)*h*w], p[i*h*w:(i+1)*h*w])
		}
	})
	return p, ctx.Err()
}

// gonum2D holds one goroutine's plans and scratch for frames of sizes
// other than powers of two: each row's real FFT (W/2+1 coefficients), then
// the complex FFT of each of those columns; the other half follows from
// P[ky, kx] = P[−ky, −kx] (real input).
type gonum2D struct {
	h, w, half  int
	rows        *fourier.FFT
	cols        *fourier.CmplxFFT
	buf         []complex128
	row         []float64
	col, colOut []complex128
	norm        float64
}

func newGonum2D(h, w int) *gonum2D {
	half := w/2 + 1
	return &gonum2D{h: h, w: w, half: half, rows: fourier.NewFFT(w), cols: fourier.NewCmplxFFT(h),
		buf: make([]complex128, h*half), row: make([]float64, w), col: make([]complex128, h), colOut: make([]complex128, h),
		norm: 1 / (float64(h*w) * float64(h*w))}
}

// power writes the frame's full power spectrum into out (h·w).
func (g *gonum2D) power(frame, out []float64) {
	h, w, half := g.h, g.w, g.half
	m := mean(frame)
	for y := 0; y < h; y++ {
		for j := 0; j < w; j++ {
			g.row[j] = frame[y*w+j] - m
		}
		g.rows.Coefficients(g.buf[y*half:(y+1)*half], g.row)
	}
	for j := 0; j < half; j++ {
		for y := 0; y < h; y++ {
			g.col[y] = g.buf[y*half+j]
		}
		g.cols.Coefficients(g.colOut, g.col)
		for y, c := range g.colOut {
			v := (real(c)*real(c) + imag(c)*imag(c)) * g.norm
			out[y*w+j] = v
			if j > 0 && w-j >= half {
				out[((h-y)%h)*w+w-j] = v
			}
		}
	}
}

// spatialGonumKernel is spatialCPU's kernel for other sizes: each frame's
// full power spectrum (gonum2D) reduced to its bins and sums with the
// host's binning (radialTable).
func spatialGonumKernel(s *SpatialGroups) func() cpuKernel {
	h, w, k := s.H, s.W, s.K
	bin := make([]int, h*w)
	nu := make([]float64, h*w)
	clear(s.Count)
	clear(s.Radius)
	radialTable(h, w, k, s.Count, s.Radius, func(j, r int, v float64) { bin[j], nu[j] = r, v })
	return func() cpuKernel {
		g := newGonum2D(h, w)
		p := make([]float64, h*w)
		frame := make([]float64, h*w)
		rad := make([]float64, k)
		return func(load func(int, []float64) bool, lo, hi int, emit emitFunc) {
			for i := lo; i < hi; i++ {
				if load(i, frame) {
					continue
				}
				g.power(frame, p)
				clear(rad)
				var tot, nus, his float64
				for j, v := range p {
					if r := bin[j]; r >= 0 {
						rad[r] += v
					}
					tot += v
					nus += nu[j] * v
					if nu[j] > 0.25 {
						his += v
					}
				}
				emit(i, rad, tot, nus, his)
			}
		}
	}
}

// temporalGonumKernel is temporalCPU's kernel for series of other lengths:
// gonum's real FFT, the one-sided spectrum (temporal convention) and its
// sums, ν = j/F.
func temporalGonumKernel(f int) func() cpuKernel {
	k := f/2 + 1
	return func() cpuKernel {
		fft := fourier.NewFFT(f)
		seq := make([]float64, f)
		coef := make([]complex128, k)
		out := make([]float64, k)
		norm := 1 / (float64(f) * float64(f))
		s := make([]float64, f)
		return func(load func(int, []float64) bool, lo, hi int, emit emitFunc) {
			for i := lo; i < hi; i++ {
				if load(i, s) {
					continue
				}
				m := mean(s)
				for j, v := range s {
					seq[j] = v - m
				}
				fft.Coefficients(coef, seq)
				var tot, nus, his float64
				for j, c := range coef {
					v := (real(c)*real(c) + imag(c)*imag(c)) * norm
					if j > 0 && 2*j != f {
						v *= 2 // the negative frequency's power
					}
					out[j] = v
					nu := float64(j) / float64(f)
					tot += v
					nus += nu * v
					if nu > 0.25 {
						his += v
					}
				}
				emit(i, out, tot, nus, his)
			}
		}
	}
}

// mean is v's mean, summed in four interleaved parts (the adds of one
// part wait on each other; four keep the adder busy).
func mean(v []float64) float64 {
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(v); i += 4 {
		s0 += v[i]
		s1 += v[i+1]
		s2 += v[i+2]
		s3 += v[i+3]
	}
	for ; i < len(v); i++ {
		s0 += v[i]
	}
	return ((s0 + s1) + (s2 + s3)) / float64(len(v))
}

func checkShape(n, b int, dims ...int) error {
	want := b
	for _, d := range dims {
		if d < 1 {
			return fmt.Errorf("spectra: empty axis in %v", dims)
		}
		want *= d
	}
	if b < 1 || n != want {
		return fmt.Errorf("spectra: %d values for a batch of %d × %v", n, b, dims)
	}
	return nil
}

// grain is the number of transforms a goroutine takes at once: enough to
// pay for its plans and scratch, few enough to spread over the cores.
func grain(b int) int { return max(1, b/(4*runtime.GOMAXPROCS(0))) }
