package engine

import (
	"context"
	"errors"
	"unsafe"
)

// Held is a host array kept on the device by Hold.
type Held struct {
	dev  *Device
	buf  *Buffer
	base uintptr
	n    int64
	raw  []byte    // keeps the host array alive while its address is a key
	seq  *Sequence // the upload, until waited for (HoldAsync)
}

// Hold uploads raw to the device and keeps it there until Release. While
// it is held, a pipeline that would upload a part of it binds the device
// copy instead (Window): several statistics of one batch, or several
// passes of one, then read one upload. The caller must not change raw
// while it is held.
//
// Holding is a saving, never a requirement: Hold holds nothing (a Held
// whose Release does nothing, and no error) when raw is empty or already
// held, or when it would take more than half of the memory the device has
// left (Available) or fail for memory, so that the pipelines keep room to
// work; they then upload their parts as without it. Errors are the
// upload's.
func (d *Device) Hold(ctx context.Context, raw []byte) (*Held, Timing, error) {
	h, err := d.HoldAsync(raw)
	if err != nil {
		return nil, Timing{}, err
	}
	tm, err := h.Wait(ctx)
	if err != nil {
		h.Release()
		return nil, tm, err
	}
	return h, tm, nil
}

// HoldAsync is Hold without waiting for the upload: the host's share of it
// (a copy into device or staging memory) is done when it returns, the
// device's is submitted, and sequences submitted later use the copy after
// it. Wait waits for the upload and reports its errors; Release waits for
// it too. Called while the device runs earlier work (WithOverlap), the
// upload overlaps that work.
func (d *Device) HoldAsync(raw []byte) (*Held, error) {
	h := &Held{dev: d}
	if len(raw) == 0 || d.heldFor(raw) != nil || int64(len(raw)) > min(d.Available()/2, d.MaxBuffer()) {
		return h, nil
	}
	buf, err := d.NewBuffer(int64(len(raw)))
	if errors.Is(err, ErrBudget) || errors.Is(err, ErrOutOfMemory) || errors.Is(err, ErrTooLarge) {
		return h, nil
	}
	if err != nil {
		return nil, err
	}
	s, err := d.NewSequence()
	if err == nil {
		s.Upload(buf, 0, raw)
		if err = s.Submit(); err != nil {
			s.Release()
		}
	}
	if err != nil {
		buf.Release()
		return nil, err
	}
	h.buf, h.base, h.n, h.raw, h.seq = buf, uintptr(unsafe.Pointer(&raw[0])), int64(len(raw)), raw, s
	d.mu.Lock()
	d.held = append(d.held, h)
	d.mu.Unlock()
	return h, nil
}

// Wait waits for the upload of HoldAsync and returns its timing (nothing
// after the first call, or where nothing is held).
func (h *Held) Wait(ctx context.Context) (Timing, error) {
	if h == nil || h.seq == nil {
		return Timing{}, nil
	}
	s := h.seq
	h.seq = nil
	defer s.Release()
	return s.Wait(ctx)
}

// Holds reports whether h holds an array (Hold may hold nothing).
func (h *Held) Holds() bool { return h != nil && h.buf != nil }

// Release frees the device copy; pipelines upload the array again.
func (h *Held) Release() {
	if h == nil || h.buf == nil {
		return
	}
	if h.seq != nil {
		h.seq.Release() // waits for the upload
		h.seq = nil
	}
	d := h.dev
	d.mu.Lock()
	for i, o := range d.held {
		if o == h {
			d.held = append(d.held[:i], d.held[i+1:]...)
			break
		}
	}
	d.mu.Unlock()
	h.buf.Release()
	h.buf, h.raw = nil, nil
}

// Window binds size bytes of a held array's device copy from p's first
// byte, where p lies within an array that Hold holds, the binding's offset
// is a multiple of minStorageBufferOffsetAlignment and the size (at least
// len(p), a multiple of 4 past it allowed to round up to whole words) fits
// both the copy and maxStorageBufferRange; otherwise it reports false and
// the caller uploads p as before.
func (d *Device) Window(p []byte, size int64) (Binding, bool) {
	if len(p) == 0 || size < int64(len(p)) || size > int64(d.Info.MaxStorageBufferRange) {
		return Binding{}, false
	}
	h := d.heldFor(p)
	if h == nil {
		return Binding{}, false
	}
	off := int64(uintptr(unsafe.Pointer(&p[0])) - h.base)
	if off%max(int64(d.Info.MinStorageAlignment), 1) != 0 || off+size > h.buf.size {
		return Binding{}, false
	}
	return Binding{Buf: h.buf, Offset: off, Size: size}, true
}

// Holding reports whether Hold holds all of p (then the pipelines that
// read p need no input buffer of their own for it, windows permitting).
func (d *Device) Holding(p []byte) bool { return len(p) > 0 && d.heldFor(p) != nil }

// heldFor is the Held whose array holds all of p (not empty), or nil.
func (d *Device) heldFor(p []byte) *Held {
	at := uintptr(unsafe.Pointer(&p[0]))
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, h := range d.held {
		if at >= h.base && at-h.base+uintptr(len(p)) <= uintptr(h.n) {
			return h
		}
	}
	return nil
}
