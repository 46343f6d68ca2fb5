//go:build !linux

package tensor

import "unsafe"

func adviseHuge(p unsafe.Pointer, n int) {}
