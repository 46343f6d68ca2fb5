package shaderlab

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/internal/glsl"
)

// VariantLoader loads vkstat's kernels from a folder of GLSL sources with
// a variants.txt (vkstat's shaders/, or a copy being edited): each line
// NAME FILE.comp [-DMACRO[=VALUE] ...] names a variant, compiled when
// first asked for as make shaders compiles it (optimised, vulkan1.1), and
// once. engine.DeviceOptions.Shaders takes it, so that a device's kernels
// come from the edited sources.
func VariantLoader(dir string) func(name string) ([]byte, error) {
	var mu sync.Mutex
	done := map[string][]byte{}
	return func(name string) ([]byte, error) {
		mu.Lock()
		defer mu.Unlock()
		if b, ok := done[name]; ok {
			return b, nil
		}
		list := filepath.Join(dir, "variants.txt")
		f, err := os.Open(list)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			fields := strings.Fields(sc.Text())
			if len(fields) < 2 || fields[0] != name {
				continue
			}
			var defs []string
			for _, d := range fields[2:] {
				defs = append(defs, strings.TrimPrefix(d, "-D"))
			}
			src := filepath.Join(dir, fields[1])
			r, err := glsl.CompileFile(src, glsl.Options{Defines: defs, Optimize: true, TargetEnv: "vulkan1.1"})
			if err != nil {
				return nil, fmt.Errorf("shader %s (%s %s): %w", name, src, strings.Join(fields[2:], " "), err)
			}
			done[name] = r.SPIRV
			return r.SPIRV, nil
		}
		return nil, fmt.Errorf("shader %s is not listed in %s", name, list)
	}
}
