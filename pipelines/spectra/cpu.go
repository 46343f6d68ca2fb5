package spectra

import (
	"context"
	"fmt"
	"runtime"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/vkstat/vkstat/internal/par"
)

// power2DCPU returns the power spectra P (B, H, W) of the frames of x:
// power2DPow2 for power-of-two sizes, otherwise gonum's FFTs: each row's real FFT (W/2+1 coefficients), then the complex
// FFT of each of those columns; the other half follows from
// P[ky, kx] = P[−ky, −kx] (real input). Frames are spread over the cores.
func power2DCPU(ctx context.Context, x []float64, b, h, w int) ([]float64, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if pow2Frames(h, w) {
		return power2DPow2(ctx, x, b, h, w)
	}
	p := make([]float64, b*h*w)
	half := w/2 + 1
	par.Range(b, grain(b), func(lo, hi int) {
		rows, cols := fourier.NewFFT(w), fourier.NewCmplxFFT(h)
		buf := make([]complex128, h*half)
		row := make([]float64, w)
		col := make([]complex128, h)
		colOut := make([]complex128, h)
		norm := 1 / (float64(h*w) * float64(h*w))
		for i := lo; i < hi; i++ {
			frame := x[i*h*w : (i+1)*h*w]
			m := mean(frame)
			for y := 0; y < h; y++ {
				for j := 0; j < w; j++ {
					row[j] = frame[y*w+j] - m
				}
				rows.Coefficients(buf[y*half:(y+1)*half], row)
			}
			out := p[i*h*w : (i+1)*h*w]
			for j := 0; j < half; j++ {
				for y := 0; y < h; y++ {
					col[y] = buf[y*half+j]
				}
				cols.Coefficients(colOut, col)
				for y, c := range colOut {
					v := (real(c)*real(c) + imag(c)*imag(c)) * norm
					out[y*w+j] = v
					if j > 0 && w-j >= half {
						out[((h-y)%h)*w+w-j] = v
					}
				}
			}
		}
	})
	return p, ctx.Err()
}

// power1DCPU returns the two-sided power spectra (B, F) of the series of x
// with gonum's real FFT (the negative frequencies mirrored).
func power1DCPU(ctx context.Context, x []float64, b, f int) ([]float64, error) {
	p := make([]float64, b*f)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	par.Range(b, grain(b), func(lo, hi int) {
		fft := fourier.NewFFT(f)
		seq := make([]float64, f)
		coef := make([]complex128, f/2+1)
		norm := 1 / (float64(f) * float64(f))
		for i := lo; i < hi; i++ {
			s := x[i*f : (i+1)*f]
			m := mean(s)
			for j, v := range s {
				seq[j] = v - m
			}
			fft.Coefficients(coef, seq)
			out := p[i*f : (i+1)*f]
			for j, c := range coef {
				v := (real(c)*real(c) + imag(c)*imag(c)) * norm
				out[j] = v
				if j > 0 {
					out[f-j] = v
				}
			}
		}
	})
	return p, ctx.Err()
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
