package latent

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/cmplx"
	"math/rand/v2"

	"gonum.org/v1/gonum/dsp/fourier"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// SynthConfig describes a synthetic latent tensor of shape (N, C, F, H, W)
// with known structure (see Synth).
type SynthConfig struct {
	N, C, F, H, W int
	// Rho sets the channel correlation R_ij = Rho^|i−j| (|Rho| < 1).
	Rho float64
	// TimeRho is the frames' AR(1) coefficient a: the correlation between
	// frames f and f+l of a channel is a^l (|a| < 1).
	TimeRho float64
	// Slope is β of the spatial power spectrum P(k) ∝ |k|^−β (β ≥ 0; 0
	// is white).
	Slope float64
	Seed  uint64
}

// DefaultSynth is a small video latent: 2 samples, 16 channels, 8 frames
// of 32×32, Rho 0.6, TimeRho 0.8, spectral slope 2.
func DefaultSynth() SynthConfig {
	return SynthConfig{N: 2, C: 16, F: 8, H: 32, W: 32, Rho: 0.6, TimeRho: 0.8, Slope: 2, Seed: 1}
}

// SynthSlope is SynthConfig.Slope (β of P ∝ |k|^−β) for slope, the
// spatial power spectrum's log-log slope as Run reports it
// (spatial_slope): −β, from −8 (red) to 0 (white). A slope outside is an
// *engine.OptionsError naming {slope}, with the sign's hint for one that
// would be right negated.
func SynthSlope(slope float64) (float64, error) {
	if !(slope >= -8 && slope <= 0) {
		hint := ""
		if slope > 0 && slope <= 8 {
			hint = fmt.Sprintf("; for P ∝ |k|^−%g give {slope=%g} ({slope} is the log-log slope, as vkstat latent reports it)", slope, -slope)
		}
		return 0, engine.Optionsf("{slope=%g}: want the power spectrum's log-log slope, from −8 to 0 (red to white)%s", slope, hint)
	}
	return -slope, nil
}

// Check validates c.
func (c SynthConfig) Check() error {
	switch {
	case c.N < 1 || c.C < 1 || c.F < 1 || c.H < 2 || c.W < 2:
		return fmt.Errorf("latent synth: shape (%d, %d, %d, %d, %d): need N, C, F >= 1 and H, W >= 2", c.N, c.C, c.F, c.H, c.W)
	case !(math.Abs(c.Rho) < 1):
		return fmt.Errorf("latent synth: channel correlation %v must be in (−1, 1)", c.Rho)
	case !(math.Abs(c.TimeRho) < 1):
		return fmt.Errorf("latent synth: frame correlation %v must be in (−1, 1)", c.TimeRho)
	case !(c.Slope >= 0 && c.Slope <= 8):
		return fmt.Errorf("latent synth: spectral slope %v must be in [0, 8]", c.Slope)
	case c.C > 1 && c.F*c.H*c.W < c.C:
		return fmt.Errorf("latent synth: %d values per channel cannot hold %d orthonormal fields", c.F*c.H*c.W, c.C)
	}
	if n := float64(c.N) * float64(c.C) * float64(c.F) * float64(c.H) * float64(c.W); n > 1<<31 {
		return fmt.Errorf("latent synth: %.0f elements is more than 2^31", n)
	}
	return nil
}

// ChannelCorr is the C×C correlation the channels are built with.
func (c SynthConfig) ChannelCorr() []float64 {
	r := make([]float64, c.C*c.C)
	for i := range c.C {
		for j := range c.C {
			r[i*c.C+j] = math.Pow(c.Rho, math.Abs(float64(i-j)))
		}
	}
	return r
}

// LagCorr is the expected correlation between frames l apart: a^l.
func (c SynthConfig) LagCorr(l int) float64 { return math.Pow(c.TimeRho, float64(l)) }

// SynthTruth is the structure a synthetic latent is made with, as vkstat
// synth latent --truth writes it: SpatialSlope is the log-log slope of the
// spatial power spectrum (−Slope), as Run reports it.
type SynthTruth struct {
	ChannelCorr  []float64 `json:"channel_corr"`
	DType        string    `json:"dtype"`
	LagCorr      []float64 `json:"lag_corr"`
	Rho          float64   `json:"rho"`
	Seed         uint64    `json:"seed"`
	Shape        []int     `json:"shape"`
	SpatialSlope float64   `json:"spatial_slope"`
	TimeRho      float64   `json:"time_rho"`
}

// Truth is c's structure, stored as dtype.
func (c SynthConfig) Truth(dtype string) SynthTruth {
	lags := make([]float64, c.F)
	for l := range lags {
		lags[l] = c.LagCorr(l)
	}
	return SynthTruth{ChannelCorr: c.ChannelCorr(), DType: dtype, LagCorr: lags, Rho: c.Rho, Seed: c.Seed,
		Shape: []int{c.N, c.C, c.F, c.H, c.W}, SpatialSlope: -c.Slope, TimeRho: c.TimeRho}
}

// Metadata is what a safetensors file of c's tensor keeps of it, as
// vkstat synth latent writes it: the generator, the shape as given
// (shape), the correlations, the seed and the spatial slope as Run
// reports it (−Slope).
func (c SynthConfig) Metadata(shape string) map[string]string {
	return map[string]string{"generator": "vkstat synth latent", "shape": shape,
		"rho": fmt.Sprint(c.Rho), "time_rho": fmt.Sprint(c.TimeRho), "spatial_slope": fmt.Sprint(-c.Slope), "seed": fmt.Sprint(c.Seed)}
}

// ChannelMean and ChannelScale are the offset and scale of channel ch.
func ChannelMean(ch int) float64  { return 0.1*float64(ch%8) - 0.35 }
func ChannelScale(ch int) float64 { return 0.5 + 0.125*float64(ch%5) }

// Synth generates c's tensor, in float64, deterministically for c.Seed:
//
//	x[n, c, f] = μ_c + σ_c · Σ_k L[c, k] · z[n, k, f]
//	z[n, k, 0] = g[n, k, 0],  z[n, k, f] = a·z[n, k, f−1] + √(1−a²)·g[n, k, f]
//
// where the g are independent Gaussian random fields of H×W pixels with
// power spectrum ∝ |k|^−β (k the spatial frequency in cycles per pixel,
// the mean removed), L is the Cholesky factor of R_ij = ρ^|i−j|
// (closed form: L[i, 0] = ρ^i, L[i, j] = ρ^(i−j)·√(1−ρ²) for 1 ≤ j ≤ i),
// and μ_c = ChannelMean(c), σ_c = ChannelScale(c). Before mixing, the C
// fields z[n, k, ·] of each sample are made exactly orthonormal over the
// sample's F·H·W values (zero mean, unit variance, uncorrelated: a
// Gram–Schmidt pass, which keeps their spectrum and AR(1) law, being the
// same for every k), so the channel correlation of every sample is R to
// rounding. Within a frame, and between frames, the correlations are R and
// a^l in expectation, with the sampling noise of H·W pixels of a field
// whose power is concentrated at low frequencies (larger for larger β).
func Synth(c SynthConfig) (*tensor.Tensor, error) {
	if err := c.Check(); err != nil {
		return nil, err
	}
	hw := c.H * c.W
	per := c.F * hw // values per (sample, field)
	out := tensor.New(tensor.F64, c.N, c.C, c.F, c.H, c.W)
	amp := spectrumAmplitude(c.H, c.W, c.Slope)
	a, b := c.TimeRho, math.Sqrt(1-c.TimeRho*c.TimeRho)
	chol := c.cholesky()
	par.Range(c.N, 1, func(lo, hi int) {
		fft := newFFT2(c.H, c.W)
		z := make([]float64, c.C*per)
		for n := lo; n < hi; n++ {
			for k := range c.C {
				zk := z[k*per : (k+1)*per]
				for f := range c.F {
					rng := rand.New(rand.NewPCG(c.Seed, uint64(n)<<40|uint64(k)<<20|uint64(f)))
					g := fft.field(rng, amp)
					frame := zk[f*hw : (f+1)*hw]
					for p := range frame {
						if f == 0 {
							frame[p] = g[p]
						} else {
							frame[p] = a*zk[(f-1)*hw+p] + b*g[p]
						}
					}
				}
			}
			orthonormalise(z, c.C, per)
			for ch := range c.C {
				dst := out.F64[(n*c.C+ch)*per : (n*c.C+ch+1)*per]
				mu, sigma := ChannelMean(ch), ChannelScale(ch)
				for p := range dst {
					s := 0.0
					for k := 0; k <= ch; k++ {
						s += chol[ch*c.C+k] * z[k*per+p]
					}
					dst[p] = mu + sigma*s
				}
			}
		}
	})
	return out, nil
}

// cholesky is the closed-form lower Cholesky factor of R_ij = ρ^|i−j|.
func (c SynthConfig) cholesky() []float64 {
	l := make([]float64, c.C*c.C)
	s := math.Sqrt(1 - c.Rho*c.Rho)
	for i := range c.C {
		l[i*c.C] = math.Pow(c.Rho, float64(i))
		for j := 1; j <= i; j++ {
			l[i*c.C+j] = math.Pow(c.Rho, float64(i-j)) * s
		}
	}
	return l
}

// orthonormalise makes the k vectors of length m in z zero-mean, of unit
// variance (1/m) and mutually uncorrelated: modified Gram–Schmidt, twice
// (one pass leaves rounding-sized correlations of order m·ε).
func orthonormalise(z []float64, k, m int) {
	for i := range k {
		v := z[i*m : (i+1)*m]
		mean := 0.0
		for _, x := range v {
			mean += x
		}
		mean /= float64(m)
		for p := range v {
			v[p] -= mean
		}
	}
	for range 2 {
		for i := range k {
			v := z[i*m : (i+1)*m]
			for j := range i {
				u := z[j*m : (j+1)*m]
				d := 0.0
				for p := range v {
					d += v[p] * u[p]
				}
				d /= float64(m) // u has unit variance
				for p := range v {
					v[p] -= d * u[p]
				}
			}
			ss := 0.0
			for _, x := range v {
				ss += x * x
			}
			s := 1 / math.Sqrt(ss/float64(m))
			for p := range v {
				v[p] *= s
			}
		}
	}
}

// spectrumAmplitude is √P(k) = |k|^(−β/2) on the H×W FFT grid (0 at k = 0).
func spectrumAmplitude(h, w int, beta float64) []float64 {
	amp := make([]float64, h*w)
	for y := range h {
		ky := freq(y, h)
		for x := range w {
			kx := freq(x, w)
			k := math.Hypot(kx, ky)
			if k > 0 {
				amp[y*w+x] = math.Pow(k, -beta/2)
			}
		}
	}
	return amp
}

// freq is NumPy's fftfreq: i/n for i < (n+1)/2, (i−n)/n after.
func freq(i, n int) float64 {
	if i < (n+1)/2 {
		return float64(i) / float64(n)
	}
	return float64(i-n) / float64(n)
}

// fft2 filters white noise on an H×W grid through the FFT.
type fft2 struct {
	h, w     int
	rows     *fourier.CmplxFFT
	cols     *fourier.CmplxFFT
	grid     []complex128
	col, tmp []complex128
	out      []float64
}

func newFFT2(h, w int) *fft2 {
	return &fft2{h: h, w: w, rows: fourier.NewCmplxFFT(w), cols: fourier.NewCmplxFFT(h),
		grid: make([]complex128, h*w), col: make([]complex128, h), tmp: make([]complex128, max(h, w)), out: make([]float64, h*w)}
}

// transform applies the 2-d FFT (forward, or inverse unnormalised) in place.
func (f *fft2) transform(inverse bool) {
	for y := range f.h {
		row := f.grid[y*f.w : (y+1)*f.w]
		if inverse {
			f.rows.Sequence(f.tmp[:f.w], row)
		} else {
			f.rows.Coefficients(f.tmp[:f.w], row)
		}
		copy(row, f.tmp[:f.w])
	}
	for x := range f.w {
		for y := range f.h {
			f.col[y] = f.grid[y*f.w+x]
		}
		if inverse {
			f.cols.Sequence(f.tmp[:f.h], f.col)
		} else {
			f.cols.Coefficients(f.tmp[:f.h], f.col)
		}
		for y := range f.h {
			f.grid[y*f.w+x] = f.tmp[y]
		}
	}
}

// field returns a zero-mean, unit-variance field whose power spectrum is
// amp²: white Gaussian noise, transformed, multiplied by amp, transformed
// back (amp is even in k, so the result is real up to rounding).
func (f *fft2) field(rng *rand.Rand, amp []float64) []float64 {
	for i := range f.grid {
		f.grid[i] = complex(rng.NormFloat64(), 0)
	}
	f.transform(false)
	for i := range f.grid {
		f.grid[i] *= complex(amp[i], 0)
	}
	f.transform(true)
	mean := 0.0
	for i, v := range f.grid {
		f.out[i] = real(v)
		mean += f.out[i]
	}
	mean /= float64(len(f.out))
	ss := 0.0
	for i := range f.out {
		f.out[i] -= mean
		ss += f.out[i] * f.out[i]
	}
	s := 1 / math.Sqrt(ss/float64(len(f.out)))
	for i := range f.out {
		f.out[i] *= s
	}
	return f.out
}

// SpectralSlope fits log P(k) = c − β·log|k| by least squares over every
// non-zero spatial frequency of every H×W image in imgs (consecutive
// images), P being the periodogram |FFT|², and returns −β. Fitting the
// periodogram's logarithm frequency by frequency, rather than ring
// averages, keeps a steep slope's curvature within a ring out of the fit
// (the log of an exponential variable is off by a constant, which the
// intercept absorbs).
func SpectralSlope(imgs []float64, h, w int) float64 {
	f := newFFT2(h, w)
	var sx, sy, sxx, sxy, m float64
	for i := 0; i+h*w <= len(imgs); i += h * w {
		for j, v := range imgs[i : i+h*w] {
			f.grid[j] = complex(v, 0)
		}
		f.transform(false)
		for y := range h {
			for x := range w {
				k := math.Hypot(freq(x, w), freq(y, h))
				a := cmplx.Abs(f.grid[y*w+x])
				if k == 0 || a == 0 {
					continue
				}
				lx, ly := math.Log(k), math.Log(a*a)
				sx, sy, sxx, sxy, m = sx+lx, sy+ly, sxx+lx*lx, sxy+lx*ly, m+1
			}
		}
	}
	return (m*sxy - sx*sy) / (m*sxx - sx*sx)
}

// TruthSlope reads the spatial slope of a SynthTruth written as JSON
// (truth.json of vkstat synth latent); JSON without one is an error.
func TruthSlope(raw []byte) (*float64, error) {
	var t struct {
		Slope *float64 `json:"spatial_slope"`
	}
	if err := json.Unmarshal(raw, &t); err != nil {
		return nil, err
	}
	if t.Slope == nil {
		return nil, errors.New("no spatial_slope (a truth.json of vkstat synth latent has one)")
	}
	return t.Slope, nil
}
