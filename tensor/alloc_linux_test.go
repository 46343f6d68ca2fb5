package tensor

import (
	"bufio"
	"fmt"
	"os"
	"strings"
	"testing"
	"unsafe"
)

// vmFlags returns the VmFlags of the mapping that holds address a, from
// /proc/self/smaps.
func vmFlags(t *testing.T, a uintptr) []string {
	t.Helper()
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	defer f.Close()
	in := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		var lo, hi uintptr
		if n, _ := fmt.Sscanf(line, "%x-%x", &lo, &hi); n == 2 && strings.Contains(line, " ") {
			in = lo <= a && a < hi
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Fields(strings.TrimPrefix(line, "VmFlags:"))
		}
	}
	t.Fatalf("no mapping holds %#x", a)
	return nil
}

// TestMakeHuge: a large slice's whole huge pages are advised MADV_HUGEPAGE
// ("hg" in VmFlags); slices large and small are zeroed and of the length
// asked.
func TestMakeHuge(t *testing.T) {
	if _, err := os.Stat("/sys/kernel/mm/transparent_hugepage/enabled"); err != nil {
		t.Skip("no transparent huge pages")
	}
	big := Make[float64](3 << 20) // 24 MiB: whole huge pages inside
	small := Make[float32](1 << 10)
	if len(big) != 3<<20 || len(small) != 1<<10 {
		t.Fatalf("lengths %d, %d", len(big), len(small))
	}
	inner := (uintptr(unsafe.Pointer(&big[0])) + hugePage - 1) &^ (hugePage - 1)
	flags := vmFlags(t, inner)
	if !contains(flags, "hg") {
		t.Errorf("24 MiB slice at %#x: VmFlags %v, want hg (MADV_HUGEPAGE)", inner, flags)
	}
	for i := 0; i < len(big); i += 4096 {
		if big[i] != 0 {
			t.Fatalf("big[%d] = %v", i, big[i])
		}
	}
}

func contains(s []string, v string) bool {
	for _, x := range s {
		if x == v {
			return true
		}
	}
	return false
}
