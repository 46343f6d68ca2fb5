package engine_test

import (
	"fmt"

	"github.com/vkstat/vkstat/engine"
)

// Open is the front door: "auto" is the best GPU, else lavapipe, else the
// CPU path (Session.Fallback says why); "gpu", "lavapipe", an index or
// part of a device's name ask for one; "cpu" never touches Vulkan. A
// pipeline takes Session.Device, nil meaning the CPU path: for example
// mapx.Run(ctx, s.Device, mapx.Input{X: x, Y: y}, opt).
func ExampleOpen() {
	s, err := engine.Open("cpu", engine.OpenOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer s.Close()
	fmt.Println("CPU path:", s.Device == nil)
	// Output: CPU path: true
}
