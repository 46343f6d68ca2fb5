package spectra

import (
	"context"

	"github.com/vkstat/vkstat/device/vkfft"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Options choose the path (Run takes the device as its argument and sets
// Device; the …Of forms read it here): Device nil runs the CPU path (float64: fftPlan
// for power-of-two sizes, gonum's FFT for others);
// a device runs VkFFT on it, in float32 unless Double (float64, which the
// device must support). Plans, when set, counts the VkFFT plans the run
// took: built (compiled), loaded from disk or reused from the device.
type Options struct {
	Device *engine.Device
	Double bool
	Plans  *PlanStats
}

// DefaultOptions are what a front end runs unless told: the CPU path
// until Run is given a device, in float32 on a device. The spectra take
// no parameter of their own (their sizes are the data's; the device and
// the precision are the call's), so Defaults lists none.
func DefaultOptions() Options { return Options{} }

// Defaults are DefaultOptions by parameter name (engine.Defaults): none.
func Defaults() map[string]any { return engine.Defaults(DefaultOptions()) }

// PlanStats count VkFFT plans and the time spent making them: a device
// keeps the plans it made for its life, and their compiled shaders are
// saved on disk (vkfft.CacheDir) for the next process.
type PlanStats = vkfft.Stats

// PlanCacheDir is the folder the compiled VkFFT plans are saved in
// ($VKSTAT_FFT_CACHE, or vkstat/vkfft under the user cache directory), or
// "" when VKSTAT_FFT_CACHE=off turns the saving off.
func PlanCacheDir() string { return vkfft.CacheDir() }

// SpatialSpectra returns the radially averaged power spectra and summaries
// of the b frames of x, (b, h, w) row-major: spatialGroupsOf with groups
// of one frame. A frame holding a NaN or ±Inf comes out all NaN.
func SpatialSpectra(ctx context.Context, x []float64, b, h, w int, opt Options) (*Spatial, engine.Timing, error) {
	if err := checkShape(len(x), b, h, w); err != nil {
		return nil, engine.Timing{}, err
	}
	g, tm, err := spatialGroupsOf(ctx, tensor.FromF64(x, b, h, w), b, 1, h, w, opt)
	if err != nil {
		return nil, tm, err
	}
	return g.spatial(true), tm, nil
}

// TemporalSpectra returns the one-sided power spectra and summaries of the
// b series of x, (b, f) row-major: temporalGroupsOf with groups of one
// series. A series holding a NaN or ±Inf comes out all NaN.
func TemporalSpectra(ctx context.Context, x []float64, b, f int, opt Options) (*Temporal, engine.Timing, error) {
	if err := checkShape(len(x), b, f); err != nil {
		return nil, engine.Timing{}, err
	}
	g, tm, err := temporalGroupsOf(ctx, tensor.FromF64(x, b, f, 1), b, f, 1, opt)
	if err != nil {
		return nil, tm, err
	}
	return g.temporal(true), tm, nil
}

// spatialDevice runs s's b frames on opt.Device into a: the bins, sums
// and group sums come from the device, the spectra stay there.
func spatialDevice(ctx context.Context, opt Options, src input, b int, s *SpatialGroups, a *groupAcc) (engine.Timing, error) {
	table := func(real bool, n1, n0 int) (*binTable, error) {
		clear(s.Count)
		clear(s.Radius)
		return spatialTable(s, n1, n0, real)
	}
	return binsVulkan(ctx, opt.Device, src, b, s.H, s.W, opt.Double, table, a, true, opt.Plans)
}

// temporalDevice runs t's b series on opt.Device into a; the totals follow
// from the group sums of the spectra (temporalTotals).
func temporalDevice(ctx context.Context, opt Options, src input, b int, t *TemporalGroups, a *groupAcc) (engine.Timing, error) {
	table := func(bool, int, int) (*binTable, error) { return temporalTable(t.F), nil }
	tm, err := binsVulkan(ctx, opt.Device, src, b, 1, t.F, opt.Double, table, a, false, opt.Plans)
	if err != nil {
		return tm, err
	}
	temporalTotals(t)
	return tm, nil
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
