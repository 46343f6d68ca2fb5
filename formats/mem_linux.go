package formats

import (
	"os"
	"syscall"
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
