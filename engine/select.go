package engine

import (
	"fmt"
	"strconv"
	"strings"
)

// CPUPath is the index Select returns for the native Go CPU path.
const CPUPath = -1

// Select picks a device for spec among infos:
//
//	auto      the best GPU (discrete > integrated > virtual), else the CPU path
//	cpu       the native Go CPU path (no Vulkan)
//	gpu       the best GPU; an error when there is none
//	lavapipe  Mesa's lavapipe (Vulkan on the CPU)
//	N         the device with index N (as `vkstat devices` lists them)
//	text      the first device whose name contains text (case-insensitive)
func Select(infos []DeviceInfo, spec string) (int, error) {
	s := strings.ToLower(strings.TrimSpace(spec))
	if len(infos) == 0 && s != "" && s != "auto" && s != "cpu" {
		return 0, fmt.Errorf("%s: %w: the Vulkan instance lists none", spec, ErrNoDevice)
	}
	switch s {
	case "", "auto":
		if i := bestGPU(infos); i >= 0 {
			return i, nil
		}
		return CPUPath, nil
	case "cpu":
		return CPUPath, nil
	case "gpu":
		if i := bestGPU(infos); i >= 0 {
			return i, nil
		}
		return 0, fmt.Errorf("gpu: %w: no GPU among %s", ErrNoDevice, names(infos))
	case "lavapipe", "llvmpipe":
		for _, d := range infos {
			if d.IsLavapipe() {
				return d.Index, nil
			}
		}
		return 0, fmt.Errorf("lavapipe: %w: lavapipe is not among %s (Debian/Ubuntu: apt-get install mesa-vulkan-drivers)", ErrNoDevice, names(infos))
	}
	if n, err := strconv.Atoi(s); err == nil {
		if n < 0 || n >= len(infos) {
			return 0, fmt.Errorf("%d: %w with that index; found %s", n, ErrNoDevice, names(infos))
		}
		return n, nil
	}
	for _, d := range infos {
		if strings.Contains(strings.ToLower(d.Name), s) {
			return d.Index, nil
		}
	}
	return 0, fmt.Errorf("%q: unknown device; use auto, cpu, gpu, lavapipe, an index or part of a name among %s", spec, names(infos))
}

func bestGPU(infos []DeviceInfo) int {
	rank := map[string]int{"discrete": 3, "integrated": 2, "virtual": 1}
	best, bestRank := -1, 0
	for _, d := range infos {
		if r := rank[d.Type]; r > bestRank {
			best, bestRank = d.Index, r
		}
	}
	return best
}

func names(infos []DeviceInfo) string {
	if len(infos) == 0 {
		return "no Vulkan devices"
	}
	var parts []string
	for _, d := range infos {
		parts = append(parts, fmt.Sprintf("%d: %s (%s)", d.Index, d.Name, d.Type))
	}
	return strings.Join(parts, ", ")
}
