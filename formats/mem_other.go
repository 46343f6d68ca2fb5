//go:build !linux

package formats

// physicalMemory returns 0: the physical memory is only looked up on Linux.
func physicalMemory() int64 { return 0 }
