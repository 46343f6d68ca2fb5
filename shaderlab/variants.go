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

// FolderLoader loads vkstat's kernels from folder dir, as
// engine.DeviceOptions.Shaders takes them, so that a device's kernels come
// from there (vkstat's --shader-dir): from NAME.spv files, or, where dir
// has a variants.txt (vkstat's shaders/, or a copy being edited), from its
// GLSL sources: each line NAME FILE.comp [-DMACRO[=VALUE] ...] names a
// variant, compiled when first asked for as make shaders compiles it
// (optimised, vulkan1.1), and once. So, after editing shaders/cov.comp,
// `vkstat --shader-dir shaders verify --op cov` checks it against the
// float64 reference in one command.
func FolderLoader(dir string) func(name string) ([]byte, error) {
	if _, err := os.Stat(filepath.Join(dir, "variants.txt")); err != nil {
		return func(name string) ([]byte, error) {
			b, err := os.ReadFile(filepath.Join(dir, name+".spv"))
			if err != nil {
				return nil, fmt.Errorf("shader %s: %w", name, err)
			}
			return b, nil
		}
	}
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
