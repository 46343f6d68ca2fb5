package engine_test

import (
	"testing"

	"github.com/vkstat/vkstat/engine"
)

// TestOpenUnderGC creates instances and opens every device while other
// goroutines collect garbage without pause. vulkan-go copies create-infos
// and enumeration arrays into C memory that a finalizer frees at the next
// collection, which may come during the very call that reads or writes it;
// the engine now makes those calls with C memory of its own, so this must
// never crash, corrupt the C heap or report a validation message (CI
// failure of 2026-12-07: SIGSEGV in strcmp over extension names, in the
// first 0.3 s of the cli tests).
func TestOpenUnderGC(t *testing.T) {
	n := 12
	if testing.Short() {
		n = 4
	}
	defer collectWithoutPause(64)()
	for i := 0; i < n; i++ {
		in, err := engine.NewInstance(engine.Options{Validate: true})
		if err != nil {
			t.Skipf("no Vulkan instance: %v", err)
		}
		for _, info := range in.Devices() {
			d, err := in.Open(info.Index)
			if err != nil {
				in.Close()
				t.Fatalf("round %d: %v", i, err)
			}
			if err := d.Close(); err != nil {
				t.Fatalf("round %d: closing %s: %v", i, info.Name, err)
			}
		}
		if err := in.Close(); err != nil {
			t.Fatalf("round %d: %v", i, err)
		}
	}
}
