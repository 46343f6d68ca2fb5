package cov

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/device/tune"
	"github.com/vkstat/vkstat/tensor"
)

// tuning is the cov pipeline's resolved parameters (internal/device/tune,
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

// Tuner is what `vkstat bench --tune` searches for the cov pipeline on dev:
// the kernel (blocks, tiled), the accumulation of float32 data (double
// where the device has it, float) and the tiled kernel's register block,
// workgroup and tile, over float32 (N, T, P) arrays: the PACO case of
// issue 10, (16384, 64, 49) with PACO shrinkage (N = 1024 on CPU-type
// devices), a wide one (P = 130) and a long one (T = 512) with
// Ledoit-Wolf. Each candidate's output is checked against Reference
// first (float32's tolerance), on those cases and, where the device has
// float64, on hard ones (long sets, large means, bfloat16 storage) that
// float accumulation can fail: the H100's tune chose it and then failed
// the suites (docs/benchmarks/gpu/2026-11-26-h100). The kernel time (GPU
// timestamps, else the wall time) is what is compared.
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
	// The hard cases: what the test suites hold cov (and latent's
	// correlations over it) to, where float accumulation can fail.
	hard := []struct {
		name string
		make func() (*tensor.Tensor, Options)
	}{
		{"long sets (2,30011,3) mean 1000 ledoit-wolf f32", func() (*tensor.Tensor, Options) {
			return hardSets(2, 30011, 3, func(int) (float64, float64) { return 1000, 1 }), Options{Estimator: LedoitWolf}
		}},
		{"large means (64,64,49) 1e6 and 100 f32", func() (*tensor.Tensor, Options) {
			return hardSets(64, 64, 49, func(i int) (float64, float64) {
				if i%2 == 0 {
					return 1e6, 0.5
				}
				return 100, 1e-3
			}), Options{Estimator: PACO}
		}},
		{"bfloat16 (65,251,13)", func() (*tensor.Tensor, Options) {
			return hardSets(65, 251, 13, func(int) (float64, float64) { return 100, 1 }).As(tensor.BF16), Options{}
		}},
	}
	// Without shaderFloat64 every candidate sums in float: there is no
	// more accurate one to prefer, and the hard cases would put them all out.
	for _, h := range hard {
		if dev.Info.Float64 {
			t.Hard = append(t.Hard, h.name)
		}
	}
	t.Check = func(ctx context.Context, hi int) error {
		in, opt := hard[hi].make()
		ref, err := Reference(tensor.FromF64(in.Float64s(), in.Shape...), opt)
		if err != nil {
			return err
		}
		out, _, err := Vulkan(ctx, dev, in, opt)
		if err != nil {
			return err
		}
		return closeResult(out, ref, in.Shape[0])
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
			if err := closeResult(out, d.ref, c.n); err != nil {
				return 0, err
			}
		}
		if tm.Kernel > 0 {
			return tm.Kernel, nil
		}
		return tm.Wall, nil
	}
	return t
}

// closeResult holds got's mean, covariance and shrinkage over n sets to
// want's within float32's tolerance (the suites' 1e-4).
func closeResult(got, want *Result, n int) error {
	for _, o := range []struct {
		what      string
		got, want *tensor.Tensor
	}{{"mean", got.Mean, want.Mean}, {"cov", got.Cov, want.Cov}, {"rho", got.Rho, want.Rho}} {
		if err := closeSets(o.got.Float64s(), o.want.F64, n, 1e-4); err != nil {
			return fmt.Errorf("%s: %w", o.what, err)
		}
	}
	return nil
}

// hardSets is n float32 sets of t samples of p correlated channels,
// channel i around musd(i)'s mean with its standard deviation.
func hardSets(n, t, p int, musd func(i int) (mean, sd float64)) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(uint64(n*t*p), 0x68617264))
	x := tensor.New(tensor.F32, n, t, p)
	z := make([]float64, p)
	for s := 0; s < n*t; s++ {
		for i := range z {
			z[i] = rng.NormFloat64()
		}
		for i := range z {
			m, sd := musd(i)
			v := z[i]
			if i > 0 {
				v += 0.6 * z[i-1]
			}
			x.F32[s*p+i] = float32(m + sd*v)
		}
	}
	return x
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
