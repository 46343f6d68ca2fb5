package reduce

import (
	"context"
	"slices"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// rowsLoopBudget is the most iterations one invocation of a rows kernel may
// spend on one record: lavapipe silently ends an invocation's loops after
// 65,535 iterations in all. reduce_rows_sg loops up to twice over its
// chunk/lanes elements (the shift's scan, when the run starts with NaNs,
// and the sums), so its chunk is capped at rowsLoopBudget/2 × the subgroup
// size.
const rowsLoopBudget = 60000

// tuning is the reduce pipeline's resolved parameters (device/tune,
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

// Candidates are what `vkstat bench --tune` searches for the reduce
// pipeline on dev (on the cases of package suite's reduce operation: rows
// reduced along axis -1): the last-axis kernel (none, workgroup, and
// subgroup where the device has subgroup arithmetic) and the shortest row
// it takes (rows_min), the built-in choice first.
func Candidates(dev *engine.Device) []map[string]any {
	var cands []map[string]any
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
		cands = append(cands, first)
	}
	// rows_min splits the cases: 128 sends every row length to the
	// kernel, 512 the rows of 1024 and 65536, 2048 only the longest.
	for _, k := range kernels {
		if k == "none" {
			if len(cands) == 0 || cands[0]["rows_kernel"] != "none" {
				cands = append(cands, map[string]any{"rows_kernel": k})
			}
			continue
		}
		for _, m := range []int{128, 512, 2048} {
			cands = append(cands, map[string]any{"rows_kernel": k, "rows_min": m})
		}
	}
	return cands
}
