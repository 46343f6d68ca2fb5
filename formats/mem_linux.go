package formats

import (
	"os"
	"syscall"
	"unsafe"
)

// physicalMemory returns the machine's physical memory in bytes, or 0 when
// it cannot be found.
func physicalMemory() int64 {
	var si syscall.Sysinfo_t
	if err := syscall.Sysinfo(&si); err != nil {
		return 0
	}
	return int64(si.Totalram) * int64(si.Unit)
}

// preallocate reserves [off, off+n) of f, keeping its size.
func preallocate(f *os.File, off, n int64) {
	const keepSize = 1 // FALLOC_FL_KEEP_SIZE
	syscall.Fallocate(int(f.Fd()), keepSize, off, n)
}

// releaseMemory gives the pages wholly inside b back to the system now
// (madvise MADV_DONTNEED), rather than when the garbage collector and the
// scavenger get to them: b is about to be dropped, and a large read is
// still under way that would otherwise hold it and its replacement at
// once. b's contents become zeros; b must not be in use.
func releaseMemory(b []byte) {
	if len(b) == 0 {
		return
	}
	page := uintptr(syscall.Getpagesize())
	start := uintptr(unsafe.Pointer(&b[0]))
	lo := (start + page - 1) &^ (page - 1)
	hi := (start + uintptr(len(b))) &^ (page - 1)
	if hi > lo {
		syscall.Madvise(b[lo-start:hi-start], syscall.MADV_DONTNEED)
	}
}
