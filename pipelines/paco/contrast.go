package paco

import (
	"math"
	"slices"

	"github.com/vkstat/vkstat/internal/par"
)

// ContrastPoint is one annulus of a contrast curve.
type ContrastPoint struct {
	// Sep is the annulus' separation from the centre, pixels: it holds the
	// pixels at distance d with Sep − 0.5 ≤ d < Sep + 0.5. SepArcsec is
	// Sep times the pixel scale, when the caller knows it (Run, with
	// Options.PixelScale).
	Sep       float64 `json:"separation_px"`
	SepArcsec float64 `json:"separation_arcsec,omitempty"`
	// Pixels is how many finite σ values the annulus has.
	Pixels int `json:"pixels"`
	// Sigma is the median of σ_flux over the annulus.
	Sigma float64 `json:"sigma_flux"`
	// Flux is the detection limit: threshold × Sigma, in the units of the
	// flux map (the PSF stamp's total flux with --psf-norm sum).
	Flux float64 `json:"flux_limit"`
	// Contrast is Flux / the star's flux; Mag is −2.5 log10(Contrast). Both
	// are NaN when the star's flux is not known.
	Contrast float64 `json:"contrast"`
	Mag      float64 `json:"delta_mag"`
	// FluxUncalibrated is threshold × Sigma, the limit before the
	// calibration (Run without Options.QuickContrast) divided it by
	// Throughput, the SNR fakes at that separation keep (ThroughputErr its
	// standard error); NaN without the calibration, where Flux is it.
	FluxUncalibrated float64 `json:"flux_limit_uncalibrated"`
	Throughput       float64 `json:"throughput"`
	ThroughputErr    float64 `json:"throughput_err"`
}

// setFlux sets the point's limit to f, and its contrast and Δmag against
// starFlux (NaN unless starFlux > 0).
func (p *ContrastPoint) setFlux(f, starFlux float64) {
	p.Flux, p.Contrast, p.Mag = f, math.NaN(), math.NaN()
	if starFlux > 0 {
		p.Contrast = f / starFlux
		if p.Contrast > 0 {
			p.Mag = -2.5 * math.Log10(p.Contrast)
		}
	}
}

// ContrastCurve is PACO.md's contrast curve: the detection limit at a
// pixel is threshold · σ_flux, and the curve is its median over 1-px
// annuli around (cy, cx), from separation 1 px out to the largest annulus
// with a finite σ. starFlux, when positive, is the star's flux in the flux
// map's units (1 when the PSF stamp is the star's own unsaturated image
// normalised to unit sum); else Contrast and Mag are NaN. NaN σ values
// (pixels without statistics) are left out; an annulus with none has
// Pixels 0 and NaN values.
func ContrastCurve(sigma []float64, H, W, cy, cx int, threshold, starFlux float64) []ContrastPoint {
	// Each pixel's annulus (0: none, or a NaN σ), over every core; then
	// the finite σ values grouped by annulus, in pixel order, and each
	// group's median.
	ring := make([]int32, H*W)
	par.Range(H, 16, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := 0; x < W; x++ {
				if v := sigma[y*W+x]; !math.IsNaN(v) && !math.IsInf(v, 0) {
					ring[y*W+x] = int32(math.Floor(math.Hypot(float64(y-cy), float64(x-cx)) + 0.5))
				}
			}
		}
	})
	maxSep := 0
	for _, k := range ring {
		maxSep = max(maxSep, int(k))
	}
	if maxSep == 0 {
		return nil
	}
	start := make([]int, maxSep+2) // annulus k holds vals[start[k]:start[k+1]]
	for _, k := range ring {
		if k > 0 {
			start[k+1]++
		}
	}
	for k := 1; k <= maxSep+1; k++ {
		start[k] += start[k-1]
	}
	vals := make([]float64, start[maxSep+1])
	next := slices.Clone(start)
	for i, k := range ring {
		if k > 0 {
			vals[next[k]] = sigma[i]
			next[k]++
		}
	}
	out := make([]ContrastPoint, maxSep)
	par.Range(maxSep, 8, func(lo, hi int) {
		for k := lo + 1; k <= hi; k++ {
			b := vals[start[k]:start[k+1]]
			p := ContrastPoint{Sep: float64(k), Pixels: len(b), Sigma: math.NaN(), FluxUncalibrated: math.NaN(), Throughput: math.NaN(), ThroughputErr: math.NaN()}
			if p.Pixels > 0 {
				p.Sigma = sortedMedian(b)
			}
			p.setFlux(threshold*p.Sigma, starFlux)
			out[k-1] = p
		}
	})
	return out
}

// From is the curve from separation sep out: the annuli whose separation
// is sep or more (an inner working angle).
func From(curve []ContrastPoint, sep float64) []ContrastPoint {
	for i, p := range curve {
		if p.Sep >= sep {
			return curve[i:]
		}
	}
	return nil
}
