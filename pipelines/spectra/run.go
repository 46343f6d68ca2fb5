package spectra

import (
	"context"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// Options choose the path: Device nil runs the CPU path (float64: fftPlan
// for power-of-two sizes, gonum's FFT for others);
// a device runs VkFFT on it, in float32 unless Double (float64, which the
// device must support).
type Options struct {
	Device *engine.Device
	Double bool
}

// SpatialSpectra returns the radially averaged power spectra and summaries
// of the b frames of x, (b, h, w) row-major.
func SpatialSpectra(ctx context.Context, x []float64, b, h, w int, opt Options) (*Spatial, engine.Timing, error) {
	var tm engine.Timing
	if err := checkShape(len(x), b, h, w); err != nil {
		return nil, tm, err
	}
	var p []float64
	var err error
	if opt.Device == nil {
		t0 := time.Now()
		if pow2Frames(h, w) {
			// The bins and sums come with the transforms: the time is all of it.
			s, err := spatialPow2(ctx, x, b, h, w)
			el := time.Since(t0)
			return s, engine.Timing{Kernel: el, Wall: el}, err
		}
		p, err = power2DCPU(ctx, x, b, h, w)
		el := time.Since(t0) // the CPU path's compute time, as package reduce reports it
		tm = engine.Timing{Kernel: el, Wall: el}
	} else {
		return spatialDevice(ctx, opt, input{x: x}, b, h, w)
	}
	if err != nil {
		return nil, tm, err
	}
	return spatialFrom(p, b, h, w), tm, nil
}

// TemporalSpectra returns the one-sided power spectra and summaries of the
// b series of x, (b, f) row-major.
func TemporalSpectra(ctx context.Context, x []float64, b, f int, opt Options) (*Temporal, engine.Timing, error) {
	var tm engine.Timing
	if err := checkShape(len(x), b, f); err != nil {
		return nil, tm, err
	}
	var p []float64
	var err error
	if opt.Device == nil {
		t0 := time.Now()
		if isPow2(f) && f >= 2 {
			t, err := temporalPow2(ctx, x, b, f)
			el := time.Since(t0)
			return t, engine.Timing{Kernel: el, Wall: el}, err
		}
		p, err = power1DCPU(ctx, x, b, f)
		el := time.Since(t0)
		tm = engine.Timing{Kernel: el, Wall: el}
	} else {
		return temporalDevice(ctx, opt, input{x: x}, b, f)
	}
	if err != nil {
		return nil, tm, err
	}
	return temporalFrom(p, b, f), tm, nil
}

// spatialDevice is SpatialSpectra on opt.Device: the bins and sums come
// from the device, the spectra stay there.
func spatialDevice(ctx context.Context, opt Options, src input, b, h, w int) (*Spatial, engine.Timing, error) {
	s := newSpatial(b, h, w)
	table := func(real bool, n1, n0 int) (*binTable, error) {
		clear(s.Count)
		clear(s.Radius)
		return spatialTable(s, n1, n0, real)
	}
	tm, err := binsVulkan(ctx, opt.Device, src, b, h, w, opt.Double, table, s.Radial, s.Total, s.NuSum, s.HighSum)
	if err != nil {
		return nil, tm, err
	}
	if h*w == 1 {
		radialTable(s, func(int, int, float64) {})
	}
	s.average()
	return s, tm, nil
}

// temporalDevice is TemporalSpectra on opt.Device.
func temporalDevice(ctx context.Context, opt Options, src input, b, f int) (*Temporal, engine.Timing, error) {
	t := &Temporal{B: b, F: f, K: f/2 + 1, Spectrum: make([]float64, b*(f/2+1)),
		Total: make([]float64, b), NuSum: make([]float64, b), HighSum: make([]float64, b)}
	table := func(bool, int, int) (*binTable, error) { return temporalTable(f), nil }
	tm, err := binsVulkan(ctx, opt.Device, src, b, 1, f, opt.Double, table, t.Spectrum, t.Total, t.NuSum, t.HighSum)
	if err != nil {
		return nil, tm, err
	}
	t.sums()
	return t, tm, nil
}

// Power2D returns the full power spectra P (b, h, w) (see the package
// comment for the normalisation) on the chosen path.
func Power2D(ctx context.Context, x []float64, b, h, w int, opt Options) ([]float64, error) {
	if err := checkShape(len(x), b, h, w); err != nil {
		return nil, err
	}
	if opt.Device == nil {
		return power2DCPU(ctx, x, b, h, w)
	}
	p, _, err := powerVulkan(ctx, opt.Device, x, b, h, w, opt.Double)
	return p, err
}
