package engine

import (
	"strings"
	"testing"
)

// The table of two devices, figures chosen by hand: 6 GiB of the first's
// heaps are device-local (the host heap is not counted), the second has
// no driver name (its version shows) and no float64.
func TestListingTable(t *testing.T) {
	l := Listing{
		Devices: []DeviceInfo{
			{Index: 0, Name: "Big GPU", Type: "discrete", Vendor: "NVIDIA", Driver: "550.1", APIVersion: "1.3.280",
				Heaps: []Heap{{4 << 30, true}, {2 << 30, true}, {8 << 30, false}}, Float64: true, SubgroupSize: 32, Timestamps: true},
			{Index: 1, Name: "llvmpipe", Type: "cpu", Vendor: "Mesa", DriverVersion: "24.0.0", APIVersion: "1.3.0",
				Heaps: []Heap{{1 << 29, true}}, SubgroupSize: 8},
		},
		Budgets: []MemoryBudget{{Bytes: 5 << 29, Source: "VK_EXT_memory_budget"}, {Bytes: 1 << 28, Source: "90% of device-local heaps"}},
	}
	var b strings.Builder
	l.WriteTable(&b, MemoryBudget{Bytes: 3 << 30, Source: "half of MemAvailable"})
	want := `DEVICE  NAME                TYPE      VENDOR  DRIVER  VULKAN   MEMORY   FP64  SUBGROUP  TIMESTAMPS
0       Big GPU             discrete  NVIDIA  550.1   1.3.280  6.0 GiB  yes   32        yes
1       llvmpipe            cpu       Mesa    24.0.0  1.3.0    0.5 GiB  no    8         no
cpu     native Go CPU path  cpu       -       -       -        -        yes   -         -
memory budget: 0: 2.5 GiB (VK_EXT_memory_budget); 1: 0.2 GiB (90% of device-local heaps); cpu: 3.0 GiB (half of MemAvailable)
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
}
