package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/vkstat/vkstat/shaderlab"
)

// shaderSource is --shader-dir as the devices' shader source
// (engine.DeviceOptions.Shaders): a folder of NAME.spv files, or a folder
// of GLSL sources with a variants.txt (vkstat's shaders/, or a copy being
// edited), whose variants are compiled when first used, as make shaders
// compiles them (glslc -O, vulkan1.1). So, after editing shaders/cov.comp,
// `vkstat --shader-dir shaders verify --op cov` checks it against the
// float64 reference in one command. nil for no folder: the shaders built
// into the binary.
func shaderSource(dir string) func(name string) ([]byte, error) {
	if dir == "" {
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "variants.txt")); err == nil {
		load := shaderlab.VariantLoader(dir)
		return func(name string) ([]byte, error) {
			b, err := load(name)
			if err != nil {
				return nil, fmt.Errorf("--shader-dir: %w", err)
			}
			return b, nil
		}
	}
	return func(name string) ([]byte, error) {
		b, err := os.ReadFile(filepath.Join(dir, name+".spv"))
		if err != nil {
			return nil, fmt.Errorf("shader %s: %w", name, err)
		}
		return b, nil
	}
}
