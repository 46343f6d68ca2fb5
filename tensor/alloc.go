package tensor

import "unsafe"

// HugeMin is the size from which Make asks for huge pages: NumPy's
// threshold (it madvises arrays of 4 MiB and more).
const HugeMin = 4 << 20

// Make returns a zeroed slice of n elements, as make does, asking the
// kernel to back it with transparent huge pages when it is HugeMin bytes or
// more (madvise MADV_HUGEPAGE on its 2 MiB-aligned interior, before
// anything touches it; Linux only, a no-op elsewhere). Where transparent
// huge pages are in madvise mode, as on many distributions, the first
// write to each 4 KiB page of a large buffer otherwise takes a page fault:
// for a 40 MB array that is 10,000 faults, tens of milliseconds, paid again
// by each new buffer. The slice is ordinary Go memory: the garbage
// collector frees it, and nothing needs releasing.
func Make[T ~float32 | ~float64 | ~complex64 | ~complex128 | ~uint8 | ~uint16 | ~uint32 | ~int32 | ~int64 | ~int](n int) []T {
	s := make([]T, n)
	if n > 0 {
		if b := n * int(unsafe.Sizeof(s[0])); b >= HugeMin {
			adviseHuge(unsafe.Pointer(&s[0]), b)
		}
	}
	return s
}
