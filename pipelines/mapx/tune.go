package mapx

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

// workgroupSize is map.comp's workgroup size on info's device (internal/device/tune,
// defaults/mapx.json; ctx may carry an override), checked against its
// limit.
func workgroupSize(ctx context.Context, info engine.DeviceInfo) (int, error) {
	p, err := tune.Resolve(ctx, "mapx", info)
	if err != nil {
		return 0, err
	}
	wg := p.Int("workgroup")
	if lim := int(info.MaxWorkgroupInvocation); lim > 0 && wg > lim {
		return 0, p.Errorf("workgroup", "%s runs at most %d invocations per workgroup", info.Name, lim)
	}
	return wg, nil
}

// Tuner is what `vkstat bench --tune` searches for the map on dev: the
// workgroup size, 64 to 1024 within the device's limit, on a float32 map of
// the seed document's 5·10⁶ elements (2²⁰ on CPU devices); each
// candidate's output is checked against Reference first. The kernel time
// (GPU timestamps, or the wall time where the device has none) is what is
// compared.
func Tuner(dev *engine.Device) tune.Tuner {
	n := 5_000_000
	if dev.Info.IsCPU() {
		n = 1 << 20
	}
	t := tune.Tuner{Pipeline: "mapx", Cases: []string{fmt.Sprintf("%d float32", n)}}
	builtin := 256
	if p, err := tune.Builtin("mapx", dev.Info); err == nil {
		builtin = min(p.Int("workgroup"), int(dev.Info.MaxWorkgroupInvocation))
	}
	t.Candidates = append(t.Candidates, map[string]any{"workgroup": builtin})
	for _, wg := range []int{64, 128, 256, 512, 1024} {
		if wg != builtin && wg <= int(dev.Info.MaxWorkgroupInvocation) {
			t.Candidates = append(t.Candidates, map[string]any{"workgroup": wg})
		}
	}
	var x, y *tensor.Tensor
	var xs, ys, ref []float64
	p := Options{A: 1.5, B: -2, C: 0.25}
	t.Run = func(ctx context.Context, _ int, check bool) (time.Duration, error) {
		if x == nil {
			rng := rand.New(rand.NewPCG(5, 10))
			x, y = tensor.New(tensor.F32, n), tensor.New(tensor.F32, n)
			for i := range x.F32 {
				x.F32[i], y.F32[i] = float32(rng.NormFloat64()), float32(rng.NormFloat64())
			}
			xs, ys = x.Float64s(), y.Float64s()
			ref = Reference(xs, ys, p)
		}
		z, tm, err := Vulkan(ctx, dev, x, y, p)
		if err != nil {
			return 0, err
		}
		if check {
			for k, w := range ref {
				// float32 operands: a few ulps of the largest term.
				tol := 1e-6 * (math.Abs(p.A*xs[k]*xs[k]) + math.Abs(p.B*ys[k]) + math.Abs(p.C))
				if g := float64(z.F32[k]); !(math.Abs(g-w) <= tol) {
					return 0, fmt.Errorf("element %d: got %g, want %g: a wrong result, left out", k, g, w)
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
