package engine

// Importing the caller's memory (VK_EXT_external_memory_host): on devices
// that copy through staging (discrete GPUs, or any device with
// DeviceOptions.Discrete), an upload from, or a download into, a large
// host array lets the device's copy engine read or write the array itself:
// no host copy into or out of staging memory, and no staging memory.
//
// An array is imported for one sequence: the page-aligned span around it
// (minImportedHostPointerAlignment) becomes device memory bound to a
// transfer buffer, looked up by address for every upload and download of
// the sequence, and released with it (Sequence.Release), after the copies
// that use it have completed. Memory its owner keeps from call to call can
// instead be registered (Device.Register) once, until the owner releases
// it. Go memory is pinned (runtime.Pinner) for that time, so that the
// driver may keep its address after the cgo call; memory from C (a NumPy
// array through the C ABI) must stay allocated, as any array passed to an
// upload or download must, until the sequence ends (or the registration).
// The span's pages outside the array are imported too but never read or
// written. Where an array is too small to be worth it (importMin), the
// device or the driver refuses (an address range imported twice, say), the
// copy goes through staging as before.

import (
	"runtime"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// importMin is the smallest array imported: below it the staging copy
// costs less than the import (a pinning of pages on a GPU).
const importMin = 1 << 20

// imported is a host range imported as device memory, bound to a buffer.
type imported struct {
	mem  vk.DeviceMemory
	buf  vk.Buffer
	base uintptr // the range's first byte, aligned
	size int64
	pin  runtime.Pinner
}

// importFor returns p's import for this sequence and p's offset in it,
// importing p when no import of the sequence covers it; nil when p is not
// imported (its copies go through staging).
func (s *Sequence) importFor(p []byte) (*imported, int64) {
	d := s.dev
	if d.importAlign == 0 || d.uma || len(p) < importMin {
		return nil, 0
	}
	at := uintptr(unsafe.Pointer(&p[0]))
	covers := func(imp *imported) bool { return at >= imp.base && at+uintptr(len(p)) <= imp.base+uintptr(imp.size) }
	d.mu.Lock()
	for _, r := range d.registered {
		if covers(r.imp) {
			d.mu.Unlock()
			return r.imp, int64(at - r.imp.base)
		}
	}
	d.mu.Unlock()
	for _, imp := range s.imports {
		if covers(imp) {
			return imp, int64(at - imp.base)
		}
	}
	imp := d.importRange(p)
	if imp == nil {
		return nil, 0
	}
	s.imports = append(s.imports, imp)
	return imp, int64(at - imp.base)
}

// importRange imports the aligned span around p, or returns nil where the
// device cannot.
func (d *Device) importRange(p []byte) *imported {
	defer d.since(phImport, time.Now())
	a := uintptr(d.importAlign)
	at := uintptr(unsafe.Pointer(&p[0]))
	base := at / a * a
	size := int64((at+uintptr(len(p))+a-1)/a*a - base)
	if m := d.Info.MaxMemoryAllocation; m > 0 && uint64(size) > m {
		return nil
	}
	types := d.hostPointerTypes(base)
	if types == 0 {
		return nil
	}
	buf, req, err := d.createBuffer(size, vk.BufferUsageTransferSrcBit|vk.BufferUsageTransferDstBit, true)
	if err != nil {
		return nil
	}
	types &= req.types
	if types == 0 || req.size > size {
		vk.DestroyBuffer(d.handle, buf, nil)
		return nil
	}
	typ := uint32(0)
	for types&(1<<typ) == 0 {
		typ++
	}
	imp := &imported{buf: buf, base: base, size: size}
	// The driver keeps the address: the Go allocation holding p must
	// neither move nor be freed until the import is released.
	imp.pin.Pin(&p[0])
	mem, r := d.allocMemory(size, typ, base)
	if r != vk.Success {
		imp.pin.Unpin()
		vk.DestroyBuffer(d.handle, buf, nil)
		return nil
	}
	imp.mem = mem
	if vk.BindBufferMemory(d.handle, buf, mem, 0) != vk.Success {
		d.unimport(imp)
		return nil
	}
	d.count(cImports, 1)
	d.count(cImportBytes, size)
	return imp
}

// unimport releases an import whose copies have completed.
func (d *Device) unimport(imp *imported) {
	defer d.since(phImport, time.Now())
	vk.DestroyBuffer(d.handle, imp.buf, nil)
	if imp.mem != vk.NullDeviceMemory {
		vk.FreeMemory(d.handle, imp.mem, nil)
	}
	imp.pin.Unpin()
}

// Registered is host memory imported for as long as its owner keeps it
// (Register), rather than for one sequence.
type Registered struct {
	dev *Device
	imp *imported
}

// Register imports p for every later upload from, or download into, any
// part of it, until Release: the pages are pinned once rather than at
// every call, as cudaHostRegister does. It suits memory a caller reuses
// from call to call (a pool of output arrays, a buffer refilled in a loop).
// The owner guarantees that p stays allocated and is not released while a
// sequence that uses it runs. It registers nothing (a Registered whose
// Release does nothing, and no error) where the device does not import
// host memory (Imports) or refuses this range; the copies then go through
// staging.
func (d *Device) Register(p []byte) *Registered {
	r := &Registered{dev: d}
	if !d.Imports() || len(p) == 0 {
		return r
	}
	if r.imp = d.importRange(p); r.imp != nil {
		d.mu.Lock()
		d.registered = append(d.registered, r)
		d.mu.Unlock()
	}
	return r
}

// Holds reports whether r imported its range.
func (r *Registered) Holds() bool { return r != nil && r.imp != nil }

// Release ends the registration; later copies of the range go through a
// sequence's own import or staging.
func (r *Registered) Release() {
	if r == nil || r.imp == nil {
		return
	}
	d := r.dev
	d.mu.Lock()
	for i, o := range d.registered {
		if o == r {
			d.registered = append(d.registered[:i], d.registered[i+1:]...)
			break
		}
	}
	d.mu.Unlock()
	d.unimport(r.imp)
	r.imp = nil
}

// Imports reports whether the data path imports host memory: the device
// copies large arrays straight from and into the caller's memory, with no
// host copy (see Sequence.Upload).
func (d *Device) Imports() bool { return d.importAlign > 0 && !d.uma }
