package engine

import (
	"errors"
	"fmt"
	"sort"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// ErrOutOfMemory reports that the device could not allocate a buffer.
var ErrOutOfMemory = errors.New("out of device memory")

// ErrBudget reports that a buffer would take the device memory vkstat holds
// past its budget (DeviceOptions.Budget).
var ErrBudget = errors.New("over the device memory budget")

// ErrTooLarge reports a single buffer larger than the device allocates in
// one piece (maxMemoryAllocationSize); callers split the work.
var ErrTooLarge = errors.New("buffer larger than one device allocation")

// Small buffers are carved from blocks of blockSize; a buffer of
// dedicatedFrom bytes or more gets a block of its own, sized to it, so
// memory follows the work: a command on a thousand elements allocates a
// few MiB, not hundreds.
//
// Blocks no buffer uses stay cached, as PyTorch's CUDA caching allocator
// and CuPy's memory pool keep theirs: the next buffer of a size the block
// fits (a large block serves a buffer of 80 % of its size or more) takes it
// with no vkAllocateMemory, so a repeated call allocates nothing. Cached
// blocks count against the budget; they are freed, least recently used
// first, when a new block would pass the budget or the driver is out of
// memory (then the allocation is retried), when more than the cache's cap
// sits idle (allocator.keep), at Device.Trim and at Close.
const (
	blockSize     = 8 << 20
	dedicatedFrom = 2 << 20
	// stagingKeep caps the idle staging (pinned host) memory kept cached.
	stagingKeep = 256 << 20
)

type span struct{ off, size int64 }

type block struct {
	mem    vk.DeviceMemory
	size   int64
	mapped unsafe.Pointer
	free   []span // sorted by offset, coalesced
	used   int
	large  bool   // holds one buffer (a dedicated block), never carved
	idleAt uint64 // the allocator's clock when it last became idle
	// views are the VkBuffers bound to ranges of the block, by range:
	// kept when their Buffer is released, so that the next Buffer placed
	// on the same range takes the same VkBuffer with no vkCreateBuffer,
	// and a command buffer recorded with it can be replayed (replay.go).
	views map[span]*view
}

// view is a VkBuffer bound to one range of a block. Its id is never
// reused, where the driver may reuse a destroyed VkBuffer's handle: the
// replay cache keys recordings on it (replay.go).
type view struct {
	handle vk.Buffer
	id     uint64
	inUse  bool
	last   uint64 // the allocator's clock when last released
}

// maxViews caps the idle views a block keeps.
const maxViews = 32

type allocator struct {
	dev      *Device
	typ      uint32
	hostView bool
	blocks   []*block
	total    int64 // bytes allocated from the driver
	budget   bool  // total counts against the device's budget
	keep     int64 // idle bytes kept cached at most
	clock    uint64
	// reqs are the memory requirements of a buffer of each size (the
	// usage is the allocator's), so that a buffer placed on a range with
	// a view needs no VkBuffer made to learn them.
	reqs map[int64]memReqs
}

func newAllocator(d *Device, typ uint32, hostVisible, budget bool, keep int64) *allocator {
	return &allocator{dev: d, typ: typ, hostView: hostVisible, budget: budget, keep: keep}
}

func alignUp(v, a int64) int64 { return (v + a - 1) / a * a }

func (a *allocator) newBlock(size int64) (*block, error) {
	if max := a.dev.Info.MaxMemoryAllocation; max > 0 && uint64(size) > max {
		return nil, fmt.Errorf("a single buffer of %s on %s: %w (maxMemoryAllocationSize %s)", SizeText(size), a.dev.Info.Name, ErrTooLarge, SizeText(int64(max)))
	}
	if a.budget && a.total+size > a.dev.budget {
		a.evict(a.total + size - a.dev.budget)
		if a.total+size > a.dev.budget {
			return nil, fmt.Errorf("allocating %s on %s with %s of its %s budget in use: %w",
				SizeText(size), a.dev.Info.Name, SizeText(a.total), SizeText(a.dev.budget), ErrBudget)
		}
	}
	mem, r := a.dev.allocMemory(size, a.typ, 0)
	if r == vk.ErrorOutOfDeviceMemory || r == vk.ErrorOutOfHostMemory {
		// Memory held in the caches may be what the driver lacks.
		if a.dev.trim() > 0 {
			mem, r = a.dev.allocMemory(size, a.typ, 0)
		}
	}
	if r == vk.ErrorOutOfDeviceMemory || r == vk.ErrorOutOfHostMemory {
		return nil, fmt.Errorf("allocating %s on %s: %w (%s)", SizeText(size), a.dev.Info.Name, ErrOutOfMemory, resultName(r))
	}
	if err := check(r, "vkAllocateMemory"); err != nil {
		return nil, err
	}
	a.dev.count(cAllocs, 1)
	a.dev.count(cAllocBytes, size)
	b := &block{mem: mem, size: size, free: []span{{0, size}}}
	if a.hostView {
		var mapped unsafe.Pointer
		if err := check(vk.MapMemory(a.dev.handle, mem, 0, vk.DeviceSize(size), 0, &mapped), "vkMapMemory"); err != nil {
			a.freeMemory(mem, size)
			return nil, err
		}
		b.mapped = mapped
	}
	a.blocks = append(a.blocks, b)
	a.total += size
	return b, nil
}

func (b *block) take(size, align int64) (int64, bool) {
	for i, s := range b.free {
		off := alignUp(s.off, align)
		if off+size > s.off+s.size {
			continue
		}
		// Split s into [s.off, off) and [off+size, end).
		end := s.off + s.size
		var rest []span
		if off > s.off {
			rest = append(rest, span{s.off, off - s.off})
		}
		if off+size < end {
			rest = append(rest, span{off + size, end - off - size})
		}
		b.free = append(b.free[:i], append(rest, b.free[i+1:]...)...)
		b.used++
		return off, true
	}
	return 0, false
}

func (b *block) give(off, size int64) {
	i := sort.Search(len(b.free), func(i int) bool { return b.free[i].off > off })
	b.free = append(b.free, span{})
	copy(b.free[i+1:], b.free[i:])
	b.free[i] = span{off, size}
	// Coalesce with the neighbours.
	if i+1 < len(b.free) && b.free[i].off+b.free[i].size == b.free[i+1].off {
		b.free[i].size += b.free[i+1].size
		b.free = append(b.free[:i+1], b.free[i+2:]...)
	}
	if i > 0 && b.free[i-1].off+b.free[i-1].size == b.free[i].off {
		b.free[i-1].size += b.free[i].size
		b.free = append(b.free[:i], b.free[i+1:]...)
	}
	b.used--
}

func (a *allocator) alloc(size, align int64) (*block, int64, error) {
	large := a.dev.dedicated(size)
	if large {
		// The smallest idle block that fits, wasting at most a fifth.
		var best *block
		for _, b := range a.blocks {
			if b.large && b.used == 0 && b.size >= size && b.size-b.size/5 <= size && (best == nil || b.size < best.size) {
				best = b
			}
		}
		if best != nil {
			off, _ := best.take(size, align) // an empty block: offset 0
			return best, off, nil
		}
	} else {
		for _, b := range a.blocks {
			if !b.large {
				if off, ok := b.take(size, align); ok {
					return b, off, nil
				}
			}
		}
	}
	bs := a.dev.smallBlock()
	if large {
		bs = dedicatedSize(size)
	} else if a.budget && a.total+bs > a.dev.budget {
		a.evict(a.total + bs - a.dev.budget)
		if a.total+bs > a.dev.budget {
			bs = alignUp(size, 64<<10)
		}
	}
	b, err := a.newBlock(bs)
	if err != nil {
		return nil, 0, err
	}
	b.large = large
	off, _ := b.take(size, align)
	return b, off, nil
}

func (a *allocator) release(b *block, off, size int64) {
	b.give(off, size)
	if b.used > 0 {
		return
	}
	a.clock++
	b.idleAt = a.clock
	if idle := a.idle(); idle > a.keep {
		a.evict(idle - a.keep)
	}
}

// evict frees idle blocks, least recently used first, until at least
// need bytes are freed or none is idle; it returns the bytes freed.
func (a *allocator) evict(need int64) int64 {
	var freed int64
	for freed < need {
		var lru *block
		for _, b := range a.blocks {
			if b.used == 0 && (lru == nil || b.idleAt < lru.idleAt) {
				lru = b
			}
		}
		if lru == nil {
			break
		}
		a.drop(lru)
		freed += lru.size
	}
	return freed
}

// drop frees b, which no buffer uses.
func (a *allocator) drop(b *block) {
	for i, x := range a.blocks {
		if x == b {
			a.blocks = append(a.blocks[:i], a.blocks[i+1:]...)
			break
		}
	}
	a.freeBlock(b)
}

// idle is the size of the blocks no buffer uses.
func (a *allocator) idle() int64 {
	var n int64
	for _, b := range a.blocks {
		if b.used == 0 {
			n += b.size
		}
	}
	return n
}

func (a *allocator) freeBlock(b *block) {
	for r, v := range b.views {
		a.dev.dropView(v)
		delete(b.views, r)
	}
	if b.mapped != nil {
		vk.UnmapMemory(a.dev.handle, b.mem)
	}
	a.freeMemory(b.mem, b.size)
	a.total -= b.size
}

func (a *allocator) freeMemory(mem vk.DeviceMemory, size int64) {
	vk.FreeMemory(a.dev.handle, mem, nil)
	a.dev.count(cFrees, 1)
	a.dev.count(cFreeBytes, size)
}

func (a *allocator) close() {
	for _, b := range a.blocks {
		a.freeBlock(b)
	}
	a.blocks = nil
}

// trim frees the cached memory of both allocators that no buffer uses
// (d.mu held) and returns the bytes freed.
func (d *Device) trim() int64 {
	n := d.local.evict(1 << 62)
	if d.staging != d.local {
		n += d.staging.evict(1 << 62)
	}
	return n
}

// Trim frees the device and staging memory that vkstat keeps cached for
// later buffers (as torch.cuda.empty_cache does) and returns its size in
// bytes. Memory that buffers use stays.
func (d *Device) Trim() int64 {
	defer d.since(phAlloc, time.Now())
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.trim()
}

// MemoryUse is what a device's allocators hold from the driver.
type MemoryUse struct {
	// Device is the device memory held (what counts against the budget),
	// DeviceCached the part of it no buffer uses, kept for later buffers.
	Device, DeviceCached int64
	// Staging and StagingCached are the same for host-visible staging
	// memory (none on UMA devices, whose buffers are host-visible).
	Staging, StagingCached int64
}

// MemoryUse reports the memory the device holds.
func (d *Device) MemoryUse() MemoryUse {
	d.mu.Lock()
	defer d.mu.Unlock()
	return MemoryUse{Device: d.local.total, DeviceCached: d.local.idle(), Staging: d.staging.total, StagingCached: d.staging.idle()}
}

// Buffer is a storage buffer sub-allocated from a device memory block.
type Buffer struct {
	dev    *Device
	alloc  *allocator
	handle vk.Buffer
	blk    *block
	view   *view
	off    int64 // offset in the block
	span   int64 // bytes reserved in the block
	size   int64
}

// Size is the buffer's size in bytes.
func (b *Buffer) Size() int64 { return b.size }

// NewBuffer allocates a storage buffer of size bytes: device-local memory, or
// host-visible memory on devices where that is the same thing (lavapipe,
// integrated GPUs). It fails with an error wrapping ErrBudget past the
// device's budget, ErrTooLarge past one allocation, or ErrOutOfMemory.
func (d *Device) NewBuffer(size int64) (*Buffer, error) {
	return d.newBuffer(d.local, size, vk.BufferUsageStorageBufferBit|vk.BufferUsageTransferSrcBit|vk.BufferUsageTransferDstBit)
}

// Buffers allocates one buffer per size, all or none: on an error the ones
// already made are released. A size of 0 or less gets a minimal buffer.
func (d *Device) Buffers(sizes ...int64) ([]*Buffer, error) {
	out := make([]*Buffer, len(sizes))
	for i, s := range sizes {
		b, err := d.NewBuffer(s)
		if err != nil {
			ReleaseAll(out[:i])
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// ReleaseAll releases every buffer (nil ones are skipped).
func ReleaseAll(bufs []*Buffer) {
	for _, b := range bufs {
		b.Release()
	}
}

func (d *Device) newStaging(size int64) (*Buffer, error) {
	return d.newBuffer(d.staging, size, vk.BufferUsageTransferSrcBit|vk.BufferUsageTransferDstBit)
}

func (d *Device) newBuffer(a *allocator, size int64, usage vk.BufferUsageFlagBits) (*Buffer, error) {
	defer d.since(phAlloc, time.Now())
	if size <= 0 {
		size = 4
	}
	size = alignUp(size, 4)
	d.mu.Lock()
	req, known := a.reqs[size]
	d.mu.Unlock()
	h := vk.NullBuffer
	if !known {
		var err error
		if h, req, err = d.createBuffer(size, usage, false); err != nil {
			return nil, err
		}
		if req.types&(1<<a.typ) == 0 {
			vk.DestroyBuffer(d.handle, h, nil)
			return nil, fmt.Errorf("buffer cannot live in memory type %d on %s", a.typ, d.Info.Name)
		}
		d.mu.Lock()
		if a.reqs == nil || len(a.reqs) >= 1024 {
			a.reqs = map[int64]memReqs{}
		}
		a.reqs[size] = req
		d.mu.Unlock()
	}
	need := alignUp(req.size, bufferAlign)
	d.mu.Lock()
	blk, off, err := a.alloc(need, req.align)
	var v *view
	if err == nil {
		if v = blk.views[span{off, size}]; v != nil {
			v.inUse = true
		}
	}
	d.mu.Unlock()
	if err != nil || v != nil {
		if h != vk.NullBuffer {
			vk.DestroyBuffer(d.handle, h, nil)
		}
		if err != nil {
			return nil, err
		}
		return &Buffer{dev: d, alloc: a, handle: v.handle, view: v, blk: blk, off: off, span: need, size: size}, nil
	}
	if h == vk.NullBuffer {
		h, _, err = d.createBuffer(size, usage, false)
	}
	if err == nil {
		err = check(vk.BindBufferMemory(d.handle, h, blk.mem, vk.DeviceSize(off)), "vkBindBufferMemory")
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil {
		if h != vk.NullBuffer {
			vk.DestroyBuffer(d.handle, h, nil)
		}
		a.release(blk, off, need)
		return nil, err
	}
	v = &view{handle: h, id: d.nextID(), inUse: true}
	a.addView(blk, span{off, size}, v)
	return &Buffer{dev: d, alloc: a, handle: h, view: v, blk: blk, off: off, span: need, size: size}, nil
}

// addView keeps v as blk's view of range r, destroying the least recently
// released idle views past maxViews (d.mu held).
func (a *allocator) addView(blk *block, r span, v *view) {
	if blk.views == nil {
		blk.views = map[span]*view{}
	}
	blk.views[r] = v
	for len(blk.views) > maxViews {
		var lru span
		var old *view
		for r, v := range blk.views {
			if !v.inUse && (old == nil || v.last < old.last) {
				lru, old = r, v
			}
		}
		if old == nil {
			return
		}
		a.dev.dropView(old)
		delete(blk.views, lru)
	}
}

// dropView destroys v, an idle view, and the recordings that use it
// (d.mu held).
func (d *Device) dropView(v *view) {
	d.replays.drop(v.id)
	vk.DestroyBuffer(d.handle, v.handle, nil)
}

// Release returns the buffer's memory to the allocator's cache; its
// VkBuffer stays, idle, with the block (see block.views).
func (b *Buffer) Release() {
	if b == nil || b.handle == vk.NullBuffer {
		return
	}
	if !b.dev.settle() {
		return // a timed-out kernel may still use it
	}
	defer b.dev.since(phAlloc, time.Now())
	b.dev.mu.Lock()
	a := b.alloc
	a.clock++
	b.view.inUse, b.view.last = false, a.clock
	a.release(b.blk, b.off, b.span)
	b.dev.mu.Unlock()
	b.handle = vk.NullBuffer
}

// host returns the buffer's bytes [off, off+n) when it is host-visible.
func (b *Buffer) host(off, n int64) []byte {
	if b.blk.mapped == nil {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Add(b.blk.mapped, b.off+off)), n)
}

// bufferAlign is what a buffer's size is rounded up to in its block.
const bufferAlign = 256

// dedicated reports whether a buffer of size bytes gets an allocation of
// its own (dedicatedSize) rather than a piece of a shared small block.
func (d *Device) dedicated(size int64) bool { return size >= min(dedicatedFrom, d.smallBlock()) }

// dedicatedSize is the allocation a dedicated buffer of size bytes takes.
func dedicatedSize(size int64) int64 { return alignUp(size, 64<<10) }

// Need is what buffers of sizes (NewBuffer's) take from the budget at
// most, by the allocator's rules: small ones are carved from shared
// blocks, rounded up to bufferAlign, with one more small block for the
// carving's waste; the others get allocations of their own
// (dedicatedSize). A pipeline plans its passes with it (what fits
// Available) without restating those rules.
func (d *Device) Need(sizes ...int64) int64 {
	n := d.smallBlock()
	for _, s := range sizes {
		s = alignUp(max(s, 4), bufferAlign)
		if d.dedicated(s) {
			s = dedicatedSize(s)
		}
		n += s
	}
	return n
}

// smallBlock is the size of the blocks small buffers are carved from:
// blockSize, or a sixteenth of a small budget.
func (d *Device) smallBlock() int64 {
	return max(min(blockSize, d.budget/16)&^(64<<10-1), 256<<10)
}
