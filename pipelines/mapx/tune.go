package mapx

import (
	"context"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// workgroupSize is map.comp's workgroup size on info's device (device/tune,
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

// Candidates are what `vkstat bench --tune` searches for the map on dev
// (on the cases of package suite's map operation): the workgroup size, 64
// to 1024 within the device's limit, the built-in choice first.
func Candidates(dev *engine.Device) []map[string]any {
	builtin := 256
	if p, err := tune.Builtin("mapx", dev.Info); err == nil {
		builtin = min(p.Int("workgroup"), int(dev.Info.MaxWorkgroupInvocation))
	}
	cands := []map[string]any{{"workgroup": builtin}}
	for _, wg := range []int{64, 128, 256, 512, 1024} {
		if wg != builtin && wg <= int(dev.Info.MaxWorkgroupInvocation) {
			cands = append(cands, map[string]any{"workgroup": wg})
		}
	}
	return cands
}
