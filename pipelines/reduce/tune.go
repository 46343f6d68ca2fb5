package reduce

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/device/tune"
	"github.com/vkstat/vkstat/tensor"
)

// rowsLoopBudget is the most iterations one invocation of a rows kernel may
// spend on one record: lavapipe silently ends an invocation's loops after
// 65,535 iterations in all. reduce_rows_sg loops up to twice over its
// chunk/lanes elements (the shift's scan, when the run starts with NaNs,
// and the sums), so its chunk is capped at rowsLoopBudget/2 × the subgroup
// size.
const rowsLoopBudget = 60000

// tuning is the reduce pipeline's resolved parameters (internal/device/tune,
// defaults/reduce.json).
type tuning struct {
	workgroup   int    // reduce_partial and reduce_finish
	rowsKernel  string // none, workgroup or subgroup
	rowsMin     int    // shortest row that goes to rowsKernel
	rowsWG      int    // workgroup size of the rows kernels
	rowsRecords int    // records the rows kernels aim for
}

// hasSubgroupArithmetic reports whether reduce_rows_sg can run on info's
// device: subgroup arithmetic in compute shaders.
func hasSubgroupArithmetic(info engine.DeviceInfo) bool {
	return info.SubgroupSize > 0 && slices.Contains(info.SubgroupOps, "arithmetic")
}

// resolveTuning reads the parameters for dev (ctx may carry an override)
// and checks them against its limits. The subgroup kernel falls back to
// the workgroup one where the device lacks subgroup arithmetic.
func resolveTuning(ctx context.Context, info engine.DeviceInfo) (tuning, error) {
	p, err := tune.Resolve(ctx, "reduce", info)
	if err != nil {
		return tuning{}, err
	}
	t := tuning{p.Int("workgroup"), p.Str("rows_kernel"), p.Int("rows_min"), p.Int("rows_wg"), p.Int("rows_records")}
	lim := int(info.MaxWorkgroupInvocation)
	if lim > 0 && t.workgroup > lim {
		return t, p.Errorf("workgroup", "%s runs at most %d invocations per workgroup", info.Name, lim)
	}
	if lim > 0 && t.rowsWG > lim {
		return t, p.Errorf("rows_wg", "%s runs at most %d invocations per workgroup", info.Name, lim)
	}
	if t.rowsKernel == "subgroup" {
		switch {
		case !hasSubgroupArithmetic(info):
			t.rowsKernel = "workgroup"
		case t.rowsWG < int(info.SubgroupSize):
			t.rowsWG = int(info.SubgroupSize)
		}
	}
	return t, nil
}

// Tuner is what `vkstat bench --tune` searches for the reduce pipeline on
// dev: the last-axis kernel (none, workgroup, and subgroup where the
// device has subgroup arithmetic) and the shortest row it takes (rows_min)
// over (rows, length) float32 arrays
// reduced along axis -1 to mean and std, lengths 256 and 1024 (the H100
// case of issue 10 is (65536, 1024)); each candidate's output is checked
// against Reference first. The kernel time (GPU timestamps, or the wall
// time where the device has none) is what is compared.
func Tuner(dev *engine.Device) tune.Tuner {
	rows := 65536
	if dev.Info.IsCPU() {
		rows = 4096
	}
	shapes := [][]int{{rows, 256}, {rows / 4, 1024}, {16, 65536}}
	t := tune.Tuner{Pipeline: "reduce"}
	kernels := []string{"none", "workgroup"}
	if hasSubgroupArithmetic(dev.Info) {
		kernels = append(kernels, "subgroup")
	}
	// The built-in choice first: another must beat it clearly to win.
	if b, err := tune.Builtin("reduce", dev.Info); err == nil {
		first := map[string]any{"rows_kernel": b.Str("rows_kernel")}
		if first["rows_kernel"] != "none" {
			first["rows_min"] = b.Int("rows_min")
		}
		t.Candidates = append(t.Candidates, first)
	}
	// rows_min splits the cases: 128 sends every row length to the
	// kernel, 512 the rows of 1024 and 65536, 2048 only the longest.
	for _, k := range kernels {
		if k == "none" {
			if len(t.Candidates) == 0 || t.Candidates[0]["rows_kernel"] != "none" {
				t.Candidates = append(t.Candidates, map[string]any{"rows_kernel": k})
			}
			continue
		}
		for _, m := range []int{128, 512, 2048} {
			t.Candidates = append(t.Candidates, map[string]any{"rows_kernel": k, "rows_min": m})
		}
	}
	for _, s := range shapes {
		t.Cases = append(t.Cases, fmt.Sprintf("%s axis -1", tensor.ShapeString(s)))
	}
	type data struct {
		in  *tensor.Tensor
		ref map[Stat][]float64
	}
	cache := map[int]data{}
	stats := []Stat{Mean, Std}
	opt := Options{Axis: -1}
	t.Run = func(ctx context.Context, c int, check bool) (time.Duration, error) {
		d, ok := cache[c]
		if !ok {
			rng := rand.New(rand.NewPCG(uint64(c), 10))
			in := tensor.New(tensor.F32, shapes[c]...)
			for i := range in.F32 {
				in.F32[i] = float32(100 + rng.NormFloat64())
			}
			in.F32[7] = float32(math.NaN())
			ref, err := Reference(in.Float64s(), in.Shape, opt)
			if err != nil {
				return 0, err
			}
			d = data{in, ref}
			cache[c] = d
		}
		out, tm, err := Vulkan(ctx, dev, d.in, opt, stats)
		if err != nil {
			return 0, err
		}
		if check {
			for _, s := range stats {
				if err := closeTo(out[s].F32, d.ref[s], 1e-5); err != nil {
					return 0, fmt.Errorf("%s: %w", s, err)
				}
			}
		}
		if tm.Kernel > 0 {
			return tm.Kernel, nil
		}
		return tm.Wall, nil
	}
	return t
}

// closeTo reports the first element of got that is not within rtol of want
// (relative; NaN only where want is NaN).
func closeTo(got []float32, want []float64, rtol float64) error {
	for i, w := range want {
		g := float64(got[i])
		if math.IsNaN(w) {
			if !math.IsNaN(g) {
				return fmt.Errorf("element %d: got %g, want NaN", i, g)
			}
			continue
		}
		if !(math.Abs(g-w) <= rtol*math.Abs(w)) {
			return fmt.Errorf("element %d: got %g, want %g (rtol %g): a wrong result, left out", i, g, w, rtol)
		}
	}
	return nil
}
