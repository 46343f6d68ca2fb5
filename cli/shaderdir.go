package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vkstat/vkstat/shaderlab"
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
			load := shaderlab.VariantLoader(dir)
			shaders.SetDir("")
			shaders.SetLoader(func(name string) ([]byte, error) {
				b, err := load(name)
				if err != nil {
					return nil, fmt.Errorf("--shader-dir: %w", err)
				}
				return b, nil
			})
			return
		}
	}
	shaders.SetLoader(nil)
	shaders.SetDir(dir)
}
