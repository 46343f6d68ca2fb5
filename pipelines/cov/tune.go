package cov

import (
	"context"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// tuning is the cov pipeline's resolved parameters (device/tune,
// defaults/cov.json; docs/tune.md).
type tuning struct {
	kernel     string // blocks or tiled
	acc32      bool   // float accumulation for float32 and 16-bit data
	blocksWGLo int    // blocks: smallest workgroup
	blocksWGHi int    // blocks: largest workgroup
	blocksTC   int    // blocks: most samples per staged tile
	blocksMaxB int    // blocks: most 4×4 blocks per invocation per pass
	tiledR     int    // tiled: register block
	tiledWG    int    // tiled: workgroup size aimed at
	tiledTT    int    // tiled: samples per staged tile
	tiledMaxT  int    // tiled: longest set
	// split-K (estimator None, sets of at least splitkMinT samples; 0: never)
	splitkMinT, splitkLen, splitkGroups int
	splitkR, splitkWG, splitkTT         int
}

// resolveTuning reads the parameters for info's device (ctx may carry an
// override, tune.WithOverride).
func resolveTuning(ctx context.Context, info engine.DeviceInfo) (tuning, error) {
	p, err := tune.Resolve(ctx, "cov", info)
	if err != nil {
		return tuning{}, err
	}
	t := tuning{
		kernel: p.Str("kernel"), acc32: p.Str("accumulate") == "float",
		blocksWGLo: p.Int("blocks_wg_min"), blocksWGHi: p.Int("blocks_wg_max"), blocksTC: p.Int("blocks_tc"), blocksMaxB: p.Int("blocks_maxb"),
		tiledR: p.Int("tiled_r"), tiledWG: p.Int("tiled_wg"), tiledTT: p.Int("tiled_tt"), tiledMaxT: p.Int("tiled_max_t"),
		splitkMinT: p.Int("splitk_min_t"), splitkLen: p.Int("splitk_len"), splitkGroups: p.Int("splitk_groups"),
		splitkR: p.Int("splitk_r"), splitkWG: p.Int("splitk_wg"), splitkTT: p.Int("splitk_tt"),
	}
	if t.blocksWGLo > t.blocksWGHi {
		return t, p.Errorf("blocks_wg_min", "more than blocks_wg_max = %d", t.blocksWGHi)
	}
	return t, nil
}

// Candidates are what `vkstat bench --tune` searches for the cov pipeline
// on dev (on the cases of package suite's cov operation, and its hard
// cases where the device has float64): the kernel (blocks, tiled), the
// accumulation of float32 data (double where the device has it, float)
// and the tiled kernel's register block, workgroup and tile, the built-in
// choice first.
func Candidates(dev *engine.Device) []map[string]any {
	var cands []map[string]any
	// The built-in choice first: another must beat it clearly to win.
	if b, err := tune.Builtin("cov", dev.Info); err == nil {
		first := map[string]any{"kernel": b.Str("kernel"), "accumulate": b.Str("accumulate")}
		if b.Str("kernel") == "tiled" {
			for _, k := range []string{"tiled_r", "tiled_wg", "tiled_tt"} {
				first[k] = b.Int(k)
			}
		}
		cands = append(cands, first)
	}
	accs := []string{"float"}
	if dev.Info.Float64 {
		accs = []string{"double", "float"}
	}
	for _, acc := range accs {
		cands = append(cands, map[string]any{"kernel": "blocks", "accumulate": acc})
		for _, c := range []struct{ r, wg, tt int }{{4, 256, 32}, {2, 256, 32}, {4, 128, 16}, {8, 256, 32}} {
			cands = append(cands, map[string]any{"kernel": "tiled", "accumulate": acc, "tiled_r": c.r, "tiled_wg": c.wg, "tiled_tt": c.tt})
		}
	}
	// Drop the built-in's duplicate.
	for i := 1; i < len(cands); i++ {
		if tune.Format(cands[i]) == tune.Format(cands[0]) {
			return append(cands[:i], cands[i+1:]...)
		}
	}
	return cands
}
