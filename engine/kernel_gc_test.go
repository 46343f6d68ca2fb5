package engine_test

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaders"
)

// collectWithoutPause starts two goroutines that allocate and collect
// garbage without pause, so that vulkan-go's finalizers (which free its C
// copies of create-infos) run as often as they can; the returned function
// stops them and waits.
func collectWithoutPause(every int) (stop func()) {
	var done atomic.Bool
	var wg sync.WaitGroup
	for g := 0; g < 2; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var sink [][]byte
			for !done.Load() {
				sink = append(sink, make([]byte, 1<<10))
				if len(sink) > every {
					sink = nil
					runtime.GC()
				}
			}
		}()
	}
	return func() {
		done.Store(true)
		wg.Wait()
	}
}

// TestKernelBuildUnderGC builds pipelines while other goroutines collect
// garbage without pause. vulkan-go frees the C copies of create-infos in
// finalizers that may run during the call; pipelines are now built from
// create-infos in C memory of the engine's own, so this must never crash or
// report a validation message (issue 9: SIGSEGV in vkCreateComputePipelines
// under -race).
func TestKernelBuildUnderGC(t *testing.T) {
	code, err := shaders.Code("map_f32")
	if err != nil {
		t.Fatal(err)
	}
	n := 48
	if testing.Short() {
		n = 16
	}
	for _, d := range testdev.Devices(t) {
		stop := collectWithoutPause(256)
		for i := 0; i < n; i++ {
			wgSize := uint32(1 + i%64)
			if _, err := d.Kernel(engine.KernelSpec{Name: "map_f32", Code: code, Spec: []uint32{wgSize, uint32(i)}}); err != nil {
				stop()
				t.Fatalf("%s: kernel %d: %v", d.Info.Name, i, err)
			}
		}
		stop()
	}
}
