package cli

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/internal/glsl"
	"github.com/vkstat/vkstat/shaders"
)

// setShaderDir applies --shader-dir: a folder of NAME.spv files, or a
// folder of GLSL sources with a variants.txt (vkstat's shaders/, or a copy
// being edited), whose variants are compiled when first used, as make
// shaders compiles them (glslc -O, vulkan1.1). So, after editing
// shaders/cov.comp, `vkstat --shader-dir shaders verify --op cov` checks it
// against the float64 reference in one command.
func setShaderDir(dir string) {
	if dir != "" {
		if _, err := os.Stat(filepath.Join(dir, "variants.txt")); err == nil {
			shaders.SetDir("")
			shaders.SetLoader(sourceLoader(dir))
			return
		}
	}
	shaders.SetLoader(nil)
	shaders.SetDir(dir)
}

// sourceLoader compiles the variants listed in dir/variants.txt on demand,
// each once.
func sourceLoader(dir string) func(name string) ([]byte, error) {
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
			return nil, fmt.Errorf("--shader-dir: %w", err)
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
				return nil, fmt.Errorf("--shader-dir: shader %s (%s %s): %w", name, src, strings.Join(fields[2:], " "), err)
			}
			done[name] = r.SPIRV
			return r.SPIRV, nil
		}
		return nil, fmt.Errorf("--shader-dir: shader %s is not listed in %s", name, list)
	}
}
