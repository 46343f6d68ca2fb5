package engine

// The staging ring: how bytes move between host memory and device-local
// buffers on devices whose storage buffers the host cannot map (discrete
// GPUs, or any device with DeviceOptions.Discrete). A few host-visible
// chunks, sized to the work and reused from one transfer to the next, are
// filled by host copies spread over the cores while the copy engine moves
// the previous chunk: host copy and DMA overlap, and no transfer allocates
// (and pins) memory the size of its array.

import (
	"fmt"
	"time"

	vk "github.com/vulkan-go/vulkan"

	"github.com/vkstat/vkstat/internal/par"
)

const (
	ringSlots    = 3
	defaultChunk = 32 << 20
	minChunk     = 64 << 10
)

type slot struct {
	buf   *Buffer
	cmd   vk.CommandBuffer
	fence vk.Fence
	busy  bool
	after func() // runs once the slot's copy has completed
	// key is the copy cmd holds: the same copy again is submitted with
	// no recording (replay.go). Zero: cmd was recorded for one
	// submission.
	key copyKey
}

// copyKey is a copy between a slot and a device buffer: direction (1 up,
// 2 down), the id of the buffer's view (never reused), the offset in it
// and the bytes.
type copyKey [4]uint64

type ring struct {
	d     *Device
	slots []*slot
	chunk int64
	next  int
}

// chunkFor is the chunk size for a transfer of total bytes: a quarter of
// it, as a power of two from minChunk to the limit, so that a transfer
// takes at least four chunks where it can and the host copy of one overlaps
// the device's copy of the one before (one chunk the size of the array
// would leave the two in turn).
func (r *ring) chunkFor(total int64) int64 {
	limit := r.d.opt.StagingChunk
	if limit <= 0 {
		limit = defaultChunk
	}
	limit = max(alignUp(limit, 256), 256)
	c := int64(minChunk)
	for 4*c < total && c < limit {
		c *= 2
	}
	return min(c, limit)
}

// ensure makes the ring's chunks at least chunkFor(total) bytes.
func (r *ring) ensure(total int64) error {
	want := r.chunkFor(total)
	if len(r.slots) > 0 && r.chunk >= want {
		return nil
	}
	if err := r.drain(); err != nil {
		return err
	}
	r.free()
	for i := 0; i < ringSlots; i++ {
		s := &slot{}
		r.slots = append(r.slots, s)
		var err error
		if s.buf, err = r.d.newBuffer(r.d.staging, want, vk.BufferUsageTransferSrcBit|vk.BufferUsageTransferDstBit); err != nil {
			r.free()
			return fmt.Errorf("staging memory: %w", err)
		}
		t0 := time.Now()
		s.cmd, err = r.d.allocCmd(r.d.xpool) // xmu guards xpool
		if err == nil {
			s.fence, err = r.d.createFence()
		}
		r.d.since(phAlloc, t0)
		if err != nil {
			r.free()
			return err
		}
	}
	r.chunk, r.next = want, 0
	return nil
}

// acquire returns the next slot, waiting for its previous copy, or an
// idle slot that holds key already, so that a repeated transfer replays
// its copies.
func (r *ring) acquire(key copyKey) (*slot, error) {
	if key != (copyKey{}) {
		for _, s := range r.slots {
			if s.key == key && !s.busy {
				return s, nil
			}
		}
	}
	s := r.slots[r.next]
	r.next = (r.next + 1) % len(r.slots)
	if err := r.finish(s); err != nil {
		return nil, err
	}
	return s, nil
}

// finish waits for s's copy and runs its completion.
func (r *ring) finish(s *slot) error {
	if !s.busy {
		return nil
	}
	t0 := time.Now()
	err := r.d.waitFence(s.fence)
	if err == nil {
		vk.ResetFences(r.d.handle, 1, []vk.Fence{s.fence})
	}
	r.d.since(phWait, t0)
	if err != nil {
		return err
	}
	s.busy = false
	if f := s.after; f != nil {
		s.after = nil
		f()
	}
	return nil
}

// drain waits for every slot, oldest first.
func (r *ring) drain() error {
	var first error
	for i := range r.slots {
		s := r.slots[(r.next+i)%len(r.slots)]
		if err := r.finish(s); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// free destroys the slots; none may be busy.
func (r *ring) free() {
	for _, s := range r.slots {
		if s.fence != vk.NullFence {
			vk.DestroyFence(r.d.handle, s.fence, nil)
		}
		if s.cmd != nil {
			vk.FreeCommandBuffers(r.d.handle, r.d.xpool, 1, []vk.CommandBuffer{s.cmd})
		}
		s.buf.Release()
	}
	r.slots, r.chunk, r.next = nil, 0, 0
}

// submit records copy into s's command buffer, unless it holds key
// already (not zero), and submits it on the transfer queue, waiting on
// wait (when not null) first.
func (r *ring) submit(s *slot, key copyKey, wait vk.Semaphore, copy func(cmd vk.CommandBuffer)) error {
	d := r.d
	if key != (copyKey{}) && s.key == key {
		return r.send(s, wait)
	}
	t0 := time.Now()
	s.key = copyKey{}
	if err := d.beginCmd(s.cmd, key != (copyKey{})); err != nil {
		return err
	}
	copy(s.cmd)
	// Make the copy's writes visible to the host (downloads) and to later
	// transfers and shaders (uploads; queue order or a semaphore orders them).
	d.cmdBarrier(s.cmd, vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit,
		vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit|vk.AccessTransferWriteBit)
	err := check(vk.EndCommandBuffer(s.cmd), "vkEndCommandBuffer")
	d.since(phRecord, t0)
	if err != nil {
		return err
	}
	s.key = key
	return r.send(s, wait)
}

// send submits s's recorded copy.
func (r *ring) send(s *slot, wait vk.Semaphore) error {
	d := r.d
	d.qmu.Lock()
	err := check(d.submit(d.xqueue, s.cmd, wait, vk.PipelineStageTransferBit, vk.NullSemaphore, s.fence), "vkQueueSubmit (transfer)")
	d.qmu.Unlock()
	if err != nil {
		return err
	}
	s.busy = true
	return nil
}

// chunks calls each(s, at, m) for the chunks [at, at+m) of n bytes, each
// with a free slot, preferring one that holds key(at, m).
func (r *ring) chunks(n int64, key func(at, m int64) copyKey, each func(s *slot, at, m int64) error) error {
	if err := r.ensure(n); err != nil {
		return err
	}
	for at := int64(0); at < n; at += r.chunk {
		s, err := r.acquire(key(at, min(r.chunk, n-at)))
		if err != nil {
			return err
		}
		if err := each(s, at, min(r.chunk, n-at)); err != nil {
			return err
		}
	}
	return nil
}

// upload streams n bytes into dst at off: fill writes the bytes of
// [at, at+len(p)) of the source into p, a staging chunk. It returns once
// the last chunk is submitted; queue order (or the semaphore a sequence
// waits on) orders later commands after the copies.
func (r *ring) upload(dst *Buffer, off, n int64, fill func(p []byte, at int64) error) error {
	key := func(at, m int64) copyKey { return copyKey{1, dst.view.id, uint64(off + at), uint64(m)} }
	return r.chunks(n, key, func(s *slot, at, m int64) error {
		t0 := time.Now()
		err := fill(s.buf.host(0, m), at)
		r.d.since(phCopyIn, t0)
		r.d.count(cStagingIn, m)
		if err != nil {
			return err
		}
		return r.submit(s, key(at, m), vk.NullSemaphore, func(cmd vk.CommandBuffer) {
			r.d.cmdCopy(cmd, s.buf.handle, dst.handle, 0, off+at, m)
		})
	})
}

// download streams n bytes of src at off into dst, waiting on wait (when
// not null) before the first copy, and returns when all of dst is filled:
// each chunk is copied out of its slot when the slot is next needed.
func (r *ring) download(src *Buffer, off int64, dst []byte, wait vk.Semaphore) error {
	key := func(at, m int64) copyKey { return copyKey{2, src.view.id, uint64(off + at), uint64(m)} }
	err := r.chunks(int64(len(dst)), key, func(s *slot, at, m int64) error {
		if err := r.submit(s, key(at, m), wait, func(cmd vk.CommandBuffer) {
			r.d.cmdCopy(cmd, src.handle, s.buf.handle, off+at, 0, m)
		}); err != nil {
			return err
		}
		wait = vk.NullSemaphore
		stage, out := s.buf, dst[at:at+m]
		s.after = func() {
			defer r.d.since(phCopyOut, time.Now())
			par.Copy(out, stage.host(0, m))
			r.d.count(cStagingOut, m)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return r.drain()
}

// copy copies n bytes from src at srcOff to dst at dstOff on the copy
// queue, waiting on wait (when not null) first: for imported host memory,
// which the device reads or writes itself. It returns once the copy is
// submitted; drain (or a later use of the slot) waits for it.
func (r *ring) copy(src, dst vk.Buffer, srcOff, dstOff, n int64, wait vk.Semaphore) error {
	if err := r.ensure(1); err != nil {
		return err
	}
	s, err := r.acquire(copyKey{})
	if err != nil {
		return err
	}
	return r.submit(s, copyKey{}, wait, func(cmd vk.CommandBuffer) { r.d.cmdCopy(cmd, src, dst, srcOff, dstOff, n) })
}

// waitFence waits for f, counted as a fence wait.
func (d *Device) waitFence(f vk.Fence) error {
	d.count(cFenceWaits, 1)
	return waitFence(d.handle, f)
}

func waitFence(dev vk.Device, f vk.Fence) error {
	for {
		r := vk.WaitForFences(dev, 1, []vk.Fence{f}, vk.True, uint64(100*time.Millisecond))
		switch r {
		case vk.Success:
			return nil
		case vk.Timeout:
			// The GPU cannot be interrupted: keep waiting, so that no
			// memory is freed under a running copy or kernel.
			continue
		default:
			return check(r, "vkWaitForFences")
		}
	}
}
