package reduce

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// nonFiniteCase is a slice of values with ±Inf or an overflow among them
// and NumPy's statistics of it (numpy 1.24, /usr/bin/python3: np.sum,
// np.mean, np.var, np.std, np.min, np.max, and the nan* functions for
// skip), in the order sum, mean, var, std, min, max, for float64 and
// float32 data. Written out by hand from NumPy's output: the independent
// anchor of TestNonFinite.
type nonFiniteCase struct {
	name     string
	values   []float64
	f64, f32 [numStats]float64 // NumPy's answer, SkipNaN or not
	nanRaw   bool              // without SkipNaN every statistic is NaN
	pad      bool              // NumPy's answer holds with 10⁴ ones around the values
	// acc32 replaces f32's entries on devices without float64, whose
	// float32 accumulators overflow where float64 ones do not.
	acc32 map[Stat]float64
}

var (
	inf = math.Inf(1)
	nan = math.NaN()
)

var nonFiniteCases = []nonFiniteCase{
	// Issue 25, defect 12: these came back NaN from every Vulkan device.
	{name: "+inf", values: []float64{1, 2, inf, 4}, pad: true,
		f64: [numStats]float64{inf, inf, nan, nan, 1, inf}, f32: [numStats]float64{inf, inf, nan, nan, 1, inf}},
	{name: "-inf", values: []float64{1, -inf, 3}, pad: true,
		f64: [numStats]float64{-inf, -inf, nan, nan, -inf, 3}, f32: [numStats]float64{-inf, -inf, nan, nan, -inf, 3}},
	// float64: the sum overflows, and so do the squared deviations
	// (NumPy's var is inf); float32: 1e308 is already +Inf.
	{name: "overflow", values: []float64{1e308, 1e308, 0}, pad: true,
		f64: [numStats]float64{inf, inf, inf, inf, 0, 1e308}, f32: [numStats]float64{inf, inf, nan, nan, 0, inf}},
	// Issue 34, defect 8: four values, so that the sums shifted by the first
	// (0, 0, −1e308, −1e308) overflow to −Inf where the plain sum is +Inf;
	// lavapipe gave sum and mean −Inf.
	{name: "overflow, four values", values: []float64{1e308, 1e308, 0, 0}, pad: true,
		f64: [numStats]float64{inf, inf, inf, inf, 0, 1e308}, f32: [numStats]float64{inf, inf, nan, nan, 0, inf}},
	// The shifted sums overflow (−2e308), the sum does not: NumPy's sum is
	// finite, its var +Inf (deviations of 1.1e308 squared). float32: ±Inf.
	{name: "overflowing deviations", values: []float64{1e308, -1e308, -1e308, 5e307},
		f64: [numStats]float64{-5e307, -1.25e307, inf, inf, -1e308, 1e308}, f32: [numStats]float64{nan, nan, nan, nan, -inf, inf}},
	{name: "nan+inf", values: []float64{nan, inf, 1, 2}, pad: true, nanRaw: true,
		f64: [numStats]float64{inf, inf, nan, nan, 1, inf}, f32: [numStats]float64{inf, inf, nan, nan, 1, inf}},
	{name: "both infinities", values: []float64{inf, -inf, 1}, pad: true,
		f64: [numStats]float64{nan, nan, nan, nan, -inf, inf}, f32: [numStats]float64{nan, nan, nan, nan, -inf, inf}},
	{name: "two +inf first", values: []float64{inf, inf, 1}, pad: true,
		f64: [numStats]float64{inf, inf, nan, nan, 1, inf}, f32: [numStats]float64{inf, inf, nan, nan, 1, inf}},
	{name: "only +inf", values: []float64{inf},
		f64: [numStats]float64{inf, inf, nan, nan, inf, inf}, f32: [numStats]float64{inf, inf, nan, nan, inf, inf}},
	{name: "only -inf", values: []float64{-inf, -inf},
		f64: [numStats]float64{-inf, -inf, nan, nan, -inf, -inf}, f32: [numStats]float64{-inf, -inf, nan, nan, -inf, -inf}},
	// The squared deviations overflow float32 only. NumPy's float32 var
	// is inf, and so is vkstat's (6.7e39 rounded to float32); NumPy's
	// float32 std is inf too (its variance is a float32), vkstat's the
	// float64 one's, 8.2e19, except where the device has no float64 and
	// accumulates in float32.
	{name: "float32 var overflow", values: []float64{1e20, -1e20, 0},
		f64: [numStats]float64{0, 0, 6.666666666666667e+39, 8.16496580927726e+19, -1e20, 1e20}, f32: [numStats]float64{0, 0, inf, 8.16496580927726e+19, -1e20, 1e20},
		acc32: map[Stat]float64{Std: inf}},
}

// nonFiniteLayout is an array holding a case's values in every output.
type nonFiniteLayout struct {
	shape []int
	axis  int
	data  []float64
	run   bool // reduced along the last axis (contiguous runs)
}

// nonFiniteLayouts lays a case's n values out as a 1-d array, every row of
// a (3, n) array reduced along axis −1 and every column of an (n, 3) one
// along axis 0.
func nonFiniteLayouts(v []float64) []nonFiniteLayout {
	n := len(v)
	cols := make([]float64, 0, 3*n)
	rows := make([]float64, 0, 3*n)
	for i := range n {
		cols = append(cols, v[i], v[i], v[i])
	}
	for range 3 {
		rows = append(rows, v...)
	}
	return []nonFiniteLayout{{[]int{n}, 0, v, true}, {[]int{3, n}, -1, rows, true}, {[]int{n, 3}, 0, cols, false}}
}

// runNonFinite holds impl to NumPy's answers on nonFiniteCases, as they
// are and padded with 10⁴ ones (the values in the middle: many records,
// merged on the device or the host), float64 and float32, SkipNaN off and
// on, ddof 0. noFloat64: impl runs on a device without float64, which
// takes float32 data only and accumulates them in float32; runs: only the
// layouts reduced along the last axis.
func runNonFinite(t *testing.T, impl reduceImpl, noFloat64, runs bool) {
	t.Helper()
	for _, c := range nonFiniteCases {
		for _, padded := range []bool{false, true} {
			if padded && !c.pad {
				continue
			}
			v := c.values
			if padded {
				v = make([]float64, 10_000)
				for i := range v {
					v[i] = 1
				}
				copy(v[5000:], c.values)
			}
			for _, l := range nonFiniteLayouts(v) {
				if runs && !l.run {
					continue
				}
				for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
					if dt == tensor.F64 && noFloat64 {
						continue
					}
					in := tensor.FromF64(l.data, l.shape...).As(dt)
					want := c.f64
					if dt == tensor.F32 {
						want = c.f32
						if noFloat64 {
							for s, v := range c.acc32 {
								want[s] = v
							}
						}
					}
					outputs := len(l.data) / len(v)
					for _, skip := range []bool{false, true} {
						what := fmt.Sprintf("%s padded %v %s %s axis %d skipnan %v", c.name, padded, dt, tensor.ShapeString(l.shape), l.axis, skip)
						got, err := impl(in, Options{Axes: Axes{l.axis}, SkipNaN: skip}, AllStats())
						if err != nil {
							t.Errorf("%s: %v", what, err)
							continue
						}
						for _, s := range AllStats() {
							w := want[s]
							if c.nanRaw && !skip {
								w = nan
							}
							ws := make([]float64, outputs)
							for i := range ws {
								ws[i] = w
							}
							name := what + " " + s.String()
							if dt == tensor.F64 {
								checks.Close(t, name, got[s].F64, ws, 1e-15, 0)
							} else {
								checks.Close(t, name, got[s].F32, ws, 1e-7, 0)
							}
						}
					}
				}
			}
		}
	}
}

// TestNonFinite (issue 25, defect 12): ±Inf among the values and sums that
// overflow give NumPy's sum, mean, var, std, min and max on the CPU path
// and on every Vulkan device, through each last-axis kernel (an invocation,
// a workgroup or a subgroup per record) and with the records merged on the
// device (one tile) or on the host (many tiles). The Vulkan paths gave NaN
// for all of them: their shifted sums turned an Inf into Inf − Inf.
func TestNonFinite(t *testing.T) {
	t.Run("cpu", func(t *testing.T) {
		runNonFinite(t, func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
			return CPU(in, opt, stats)
		}, false, false)
	})
	for _, dev := range testdev.Devices(t) {
		// The rows kernels take the runs only; columns are reduce_partial's.
		for _, kernel := range []string{"none", "workgroup", "subgroup"} {
			for _, win := range []int64{0, 1<<12 + 64} {
				if win > 0 && kernel != "none" {
					continue // the host merges every kernel's records alike
				}
				t.Run(fmt.Sprintf("%s/%s/window %d", dev.Info.Name, kernel, win), func(t *testing.T) {
					ctx := tune.WithOverride(context.Background(), "reduce", map[string]any{"rows_kernel": kernel, "rows_min": 1})
					runNonFinite(t, func(in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, error) {
						if win > 0 {
							opt.test = &testOptions{window: win}
						}
						out, _, err := Vulkan(ctx, dev, in, opt, stats)
						return out, err
					}, !dev.Info.Float64, kernel != "none")
				})
			}
		}
	}
}
