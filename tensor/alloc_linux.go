package tensor

import (
	"syscall"
	"unsafe"
)

// hugePage is the size of an x86-64 and arm64 (4 KiB base page) transparent
// huge page.
const hugePage = 2 << 20

// adviseHuge madvises the whole huge pages inside [p, p+n) MADV_HUGEPAGE.
// Errors (a kernel without transparent huge pages) are ignored: the memory
// is then ordinary pages, as before.
func adviseHuge(p unsafe.Pointer, n int) {
	beg := (uintptr(p) + hugePage - 1) &^ (hugePage - 1)
	end := (uintptr(p) + uintptr(n)) &^ (hugePage - 1)
	if beg < end {
		syscall.Syscall(syscall.SYS_MADVISE, beg, end-beg, syscall.MADV_HUGEPAGE)
	}
}
