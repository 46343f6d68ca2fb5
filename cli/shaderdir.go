package cli

import (
	"fmt"

	"github.com/vkstat/vkstat/shaderlab"
)

// shaderSource is --shader-dir as the devices' shader source
// (shaderlab.FolderLoader); nil for no folder: the shaders built into the
// binary.
func shaderSource(dir string) func(name string) ([]byte, error) {
	if dir == "" {
		return nil
	}
	load := shaderlab.FolderLoader(dir)
	return func(name string) ([]byte, error) {
		b, err := load(name)
		if err != nil {
			return nil, fmt.Errorf("--shader-dir: %w", err)
		}
		return b, nil
	}
}
