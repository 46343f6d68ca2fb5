package engine_test

import (
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
)

// TestMemoryBudget: every device reports a budget within its heaps and its
// allocator's headroom; with VK_EXT_memory_budget it comes from the driver's
// heapBudget and heapUsage (queried under the validation layer, whose
// messages fail the test binary), else from the documented fraction.
func TestMemoryBudget(t *testing.T) {
	for _, d := range testdev.Devices(t) {
		b := d.MemoryBudget()
		t.Logf("%s: %s (heaps %d, budget %d, usage %d)", d.Info.Name, b, b.HeapSize, b.HeapBudget, b.HeapUsage)
		if b.Bytes <= 0 || b.Bytes > d.Available() {
			t.Errorf("%s: budget %d bytes, want within (0, %d]", d.Info.Name, b.Bytes, d.Available())
		}
		if b.HeapSize != d.Info.DeviceMemory() {
			t.Errorf("%s: heap size %d, want %d", d.Info.Name, b.HeapSize, d.Info.DeviceMemory())
		}
		if b.Source == "DeviceOptions.Budget" { // VKSTAT_DEVICE_MEMORY set: its cap is the smaller
			if b.Bytes != d.Available() {
				t.Errorf("%s: capped budget %d, want the headroom %d", d.Info.Name, b.Bytes, d.Available())
			}
		} else if d.Info.MemoryBudget {
			if b.Source != "VK_EXT_memory_budget" || b.HeapBudget == 0 {
				t.Errorf("%s lists VK_EXT_memory_budget but the budget came from %q (heapBudget %d)", d.Info.Name, b.Source, b.HeapBudget)
			}
		} else if want := int64(float64(b.HeapSize) * engine.DefaultBudgetFraction); b.Source != "90% of device-local heaps" || b.Bytes != min(want, d.Available()) {
			t.Errorf("%s: budget %d from %q, want %d from the fraction of the heaps", d.Info.Name, b.Bytes, b.Source, min(want, d.Available()))
		}
	}
}
