package engine

import (
	"strings"
	"testing"
)

// The CPU path's budget is half of what is available, a fixed 64 GiB when
// that is unknown; an allocation above what is available is refused,
// naming both sizes.
func TestHostMemory(t *testing.T) {
	if b := HostBudget(8 << 30); b.Bytes != 4<<30 || b.HeapSize != 8<<30 {
		t.Errorf("HostBudget(8 GiB) = %+v; want 4 GiB of 8", b)
	}
	if b := HostBudget(0); b.Bytes != 64<<30 {
		t.Errorf("HostBudget(unknown) = %+v; want 64 GiB", b)
	}
	if err := CheckHostMemory("a cube", 3<<30, 2<<30); err == nil || !strings.Contains(err.Error(), "a cube needs 3.0 GiB of memory; this machine has 2.0 GiB") {
		t.Errorf("3 GiB of 2: %v", err)
	}
	if err := CheckHostMemory("a cube", 65<<30, 0); err == nil || !strings.Contains(err.Error(), "65.0 GiB, more than the 64.0 GiB") {
		t.Errorf("65 GiB, memory unknown: %v", err)
	}
	for _, c := range [][2]uint64{{2 << 30, 2 << 30}, {64 << 30, 0}} {
		if err := CheckHostMemory("a cube", c[0], c[1]); err != nil {
			t.Errorf("%d bytes of %d: %v", c[0], c[1], err)
		}
	}
	if AvailableMemory() == 0 {
		t.Log("no MemAvailable in /proc/meminfo here")
	}
}
