package cli

import (
	"errors"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
)

// advice words what a user can do about an engine error, in terms of the
// command line (the engine and the pipelines never name flags).
func advice(err error) string {
	switch {
	case errors.Is(err, engine.ErrNoFloat64):
		return "use --precision f32, or --device cpu"
	case errors.Is(err, engine.ErrBudget), errors.Is(err, engine.ErrNoFit):
		return "raise --device-memory (or VKSTAT_DEVICE_MEMORY), use a smaller input, or --device cpu"
	case errors.Is(err, engine.ErrOutOfMemory):
		return "the device is out of memory: set --device-memory below what is free so the work runs in passes, or use --device cpu"
	case errors.Is(err, engine.ErrTimeout):
		return "check the shader's loop bounds and the dispatch size; raise --timeout if it is only slow"
	case errors.Is(err, engine.ErrDeviceLimit):
		return "use a smaller problem (for paco, a smaller --radius), --precision f32, or --device cpu"
	case errors.Is(err, engine.ErrTooLarge):
		return "this operation cannot split its input yet: crop it, use --precision f32, or --device cpu"
	case errors.Is(err, tune.ErrBad):
		return "delete the tune cache, or run vkstat bench --tune again"
	}
	return ""
}
