//go:build !linux

package formats

import "os"

// physicalMemory returns 0: the physical memory is only looked up on Linux.
func physicalMemory() int64 { return 0 }

func preallocate(f *os.File, off, n int64) {}

// releaseMemory does nothing here: the garbage collector returns the memory
// of dropped buffers in its time.
func releaseMemory([]byte) {}
