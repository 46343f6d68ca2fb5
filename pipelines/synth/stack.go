package synth

// Synthetic SAR stacks (vkstat synth stack): single-look complex speckle
// over a known reflectivity map, for `vkstat stack` and its tests.

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
)

// Stack describes a synthetic stack of co-registered SAR dates of H×W
// samples. Each date is fully developed speckle over the reflectivity map
// σ (Reflectivity): S = sqrt(σ/2)·(n1 + i·n2) with n1, n2 independent
// standard normal draws, so |S|² is exponential with mean σ. From the
// middle date (Dates/2, 0-based) on, σ is multiplied by Change in the
// change rectangle (the middle third of the rows and columns).
type Stack struct {
	H, W  int
	Dates int
	// Complex draws S; otherwise the intensity |S|² = σ·Exp(1). Int16
	// rounds S's parts to whole numbers (CInt16 samples), keeping 0+0j for
	// the border alone.
	Complex, Int16 bool
	Change         float64 // > 0; 1: no change
	// Border is the width of a 0 (0+0j) border, nodata, less than half
	// the image; 0: none.
	Border int
	Seed   uint64
}

// Check refuses a stack that cannot be drawn, as a *engine.FieldError.
func (s Stack) Check() error {
	switch {
	case s.Dates < 1 || s.Dates > 10000:
		return engine.Fieldf("dates", ": want 1 to 10000, got %d", s.Dates)
	case !(s.Change > 0) || math.IsInf(s.Change, 0):
		return engine.Fieldf("change", ": want a positive factor, got %v", s.Change)
	case s.Border < 0 || 2*s.Border >= min(s.H, s.W):
		return engine.Fieldf("nodata_border", " %d: want 0 up to less than half the image", s.Border)
	}
	return nil
}

// Reflectivity is the known backscatter σ at (y, x) of an h×w map:
// patches of 64×64 pixels with levels 10, 100, 1000, 10000 in turn, times
// a ramp from 1 to 2 across the columns.
func Reflectivity(y, x, h, w int) float64 {
	levels := [...]float64{10, 100, 1000, 10000}
	p := (y/64 + 3*(x/64)) % len(levels)
	return levels[p] * (1 + float64(x)/float64(max(w-1, 1)))
}

// InChange reports whether (y, x) lies in the change rectangle of an h×w
// map: the middle third of the rows and columns.
func InChange(y, x, h, w int) bool {
	return y >= h/3 && y < 2*h/3 && x >= w/3 && x < 2*w/3
}

// Maps are the reflectivity before and after the change (σ, and σ times
// Change in the change rectangle), row-major.
func (s Stack) Maps() (sigma, changed []float32) {
	h, w := s.H, s.W
	sigma = make([]float32, h*w)
	changed = make([]float32, h*w)
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			v := Reflectivity(y, x, h, w)
			sigma[y*w+x] = float32(v)
			if InChange(y, x, h, w) {
				v *= s.Change
			}
			changed[y*w+x] = float32(v)
		}
	}
	return sigma, changed
}

// row draws row y of a date.
func (s Stack) row(rng *rand.Rand, y int, sig, data []float32) {
	w, h, border := s.W, s.H, s.Border
	per := 1
	if s.Complex {
		per = 2
	}
	for x := 0; x < w; x++ {
		i := y*w + x
		if y < border || x < border || y >= h-border || x >= w-border {
			for k := 0; k < per; k++ {
				data[per*i+k] = 0
			}
			continue
		}
		v := float64(sig[i])
		if !s.Complex {
			data[i] = float32(v * rng.ExpFloat64())
			continue
		}
		a := math.Sqrt(v / 2)
		re, im := a*rng.NormFloat64(), a*rng.NormFloat64()
		if s.Int16 {
			re, im = math.Round(re), math.Round(im)
			if re == 0 && im == 0 && border > 0 {
				re = 1 // keep 0+0j for nodata
			}
		}
		data[2*i], data[2*i+1] = float32(re), float32(im)
	}
}

// Date fills data with date t (0-based): H·W samples, interleaved real and
// imaginary parts when Complex (2·H·W values), drawn over sigma, or over
// changed from the middle date on when Change is not 1. Each block of 16
// rows has its own random stream, so that the same s and t give the same
// samples on any number of cores.
func (s Stack) Date(ctx context.Context, t int, sigma, changed, data []float32) error {
	h, w := s.H, s.W
	per := 1
	if s.Complex {
		per = 2
	}
	if len(data) != per*h*w || len(sigma) != h*w || len(changed) != h*w {
		return fmt.Errorf("date of %d×%d: %d values to fill, maps of %d and %d", h, w, len(data), len(sigma), len(changed))
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	sig := sigma
	if t >= s.Dates/2 && s.Change != 1 {
		sig = changed
	}
	const block = 16 // rows per random stream
	seed := s.Seed
	par.Range((h+block-1)/block, 1, func(b0, b1 int) {
		for b := b0; b < b1; b++ {
			lo := b * block
			rng := rand.New(rand.NewPCG(seed, uint64(t)<<32|uint64(lo)))
			for y := lo; y < min(lo+block, h); y++ {
				s.row(rng, y, sig, data)
			}
		}
	})
	return nil
}
