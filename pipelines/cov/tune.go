package cov

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/tune"
	"github.com/vkstat/vkstat/tensor"
)

// tuning is the cov pipeline's resolved parameters (internal/tune,
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
	}
	if t.blocksWGLo > t.blocksWGHi {
		return t, p.Errorf("blocks_wg_min", "more than blocks_wg_max = %d", t.blocksWGHi)
	}
	return t, nil
}

// Tuner is what `vkstat bench --tune` searches for the cov pipeline on dev:
// the kernel (blocks, tiled), the accumulation of float32 data (double
// where the device has it, float) and the tiled kernel's register block,
// workgroup and tile, over float32 (N, T, P) arrays: the PACO case of
// issue 10, (16384, 64, 49) with PACO shrinkage (N = 1024 on CPU-type
// devices), a wide one (P = 130) and a long one (T = 512) with
// Ledoit-Wolf. Each candidate's output is checked against Reference
// first (float32's tolerance); the kernel time (GPU timestamps, else the
// wall time) is what is compared.
func Tuner(dev *engine.Device) tune.Tuner {
	n := 16384
	if dev.Info.IsCPU() {
		n = 1024
	}
	type tcase struct {
		n, t, p int
		est     Estimator
	}
	cases := []tcase{{n, 64, 49, PACO}, {n / 16, 128, 130, OAS}, {n / 8, 512, 16, LedoitWolf}}
	t := tune.Tuner{Pipeline: "cov"}
	// The built-in choice first: another must beat it clearly to win.
	if b, err := tune.Builtin("cov", dev.Info); err == nil {
		first := map[string]any{"kernel": b.Str("kernel"), "accumulate": b.Str("accumulate")}
		if b.Str("kernel") == "tiled" {
			for _, k := range []string{"tiled_r", "tiled_wg", "tiled_tt"} {
				first[k] = b.Int(k)
			}
		}
		t.Candidates = append(t.Candidates, first)
	}
	accs := []string{"float"}
	if dev.Info.Float64 {
		accs = []string{"double", "float"}
	}
	for _, acc := range accs {
		t.Candidates = append(t.Candidates, map[string]any{"kernel": "blocks", "accumulate": acc})
		for _, c := range []struct{ r, wg, tt int }{{4, 256, 32}, {2, 256, 32}, {4, 128, 16}, {8, 256, 32}} {
			t.Candidates = append(t.Candidates, map[string]any{"kernel": "tiled", "accumulate": acc, "tiled_r": c.r, "tiled_wg": c.wg, "tiled_tt": c.tt})
		}
	}
	// Drop the built-in's duplicate.
	for i := 1; i < len(t.Candidates); i++ {
		if tune.Format(t.Candidates[i]) == tune.Format(t.Candidates[0]) {
			t.Candidates = append(t.Candidates[:i], t.Candidates[i+1:]...)
			break
		}
	}
	for _, c := range cases {
		t.Cases = append(t.Cases, fmt.Sprintf("(%d,%d,%d) %s f32", c.n, c.t, c.p, c.est))
	}
	type data struct {
		in  *tensor.Tensor
		ref *Result
	}
	cache := map[int]data{}
	t.Run = func(ctx context.Context, ci int, check bool) (time.Duration, error) {
		c := cases[ci]
		d, ok := cache[ci]
		if !ok {
			rng := rand.New(rand.NewPCG(uint64(ci), 11))
			in := tensor.New(tensor.F32, c.n, c.t, c.p)
			for i := range in.F32 {
				in.F32[i] = float32(100 + rng.NormFloat64())
			}
			ref, err := Reference(in, Options{Estimator: c.est})
			if err != nil {
				return 0, err
			}
			d = data{in, ref}
			cache[ci] = d
		}
		out, tm, err := Vulkan(ctx, dev, d.in, Options{Estimator: c.est})
		if err != nil {
			return 0, err
		}
		if check {
			for _, o := range []struct {
				what      string
				got, want *tensor.Tensor
			}{{"mean", out.Mean, d.ref.Mean}, {"cov", out.Cov, d.ref.Cov}, {"rho", out.Rho, d.ref.Rho}} {
				if err := closeSets(o.got.Float64s(), o.want.F64, c.n, 1e-4); err != nil {
					return 0, fmt.Errorf("%s: %w", o.what, err)
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

// closeSets reports the first of n sets of got whose relative Frobenius
// distance from want's exceeds tol (absolute where want's norm is 0).
func closeSets(got, want []float64, n int, tol float64) error {
	m := len(want) / n
	for k := 0; k < n; k++ {
		var d, w float64
		for i := k * m; i < (k+1)*m; i++ {
			d += (got[i] - want[i]) * (got[i] - want[i])
			w += want[i] * want[i]
		}
		e := math.Sqrt(d)
		if w > 0 {
			e /= math.Sqrt(w)
		}
		if !(e <= tol) {
			return fmt.Errorf("set %d: relative error %.3g over %g: a wrong result, left out", k, e, tol)
		}
	}
	return nil
}
