package checks

import (
	"os"
	"strconv"
	"strings"
)

// RSS is the process's resident memory (VmRSS, from /proc/self/statm), or
// -1 where it cannot be read.
func RSS() int64 {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return -1
	}
	f := strings.Fields(string(b))
	if len(f) < 2 {
		return -1
	}
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		return -1
	}
	return pages * int64(os.Getpagesize())
}
