package engine

import (
	"errors"
	"fmt"
	"sort"
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
// dedicatedFrom bytes or more gets an allocation of its own, sized to it, so
// memory follows the work: a command on a thousand elements allocates a
// few MiB, not hundreds.
const (
	blockSize     = 8 << 20
	dedicatedFrom = 2 << 20
)

type span struct{ off, size int64 }

type block struct {
	mem    vk.DeviceMemory
	size   int64
	mapped unsafe.Pointer
	free   []span // sorted by offset, coalesced
	used   int
}

type allocator struct {
	dev      *Device
	typ      uint32
	hostView bool
	blocks   []*block
	total    int64 // bytes allocated from the driver
	budget   bool  // total counts against the device's budget
}

func newAllocator(d *Device, typ uint32, hostVisible, budget bool) *allocator {
	return &allocator{dev: d, typ: typ, hostView: hostVisible, budget: budget}
}

func alignUp(v, a int64) int64 { return (v + a - 1) / a * a }

func (a *allocator) newBlock(size int64) (*block, error) {
	if max := a.dev.Info.MaxMemoryAllocation; max > 0 && uint64(size) > max {
		return nil, fmt.Errorf("a single buffer of %s on %s: %w (maxMemoryAllocationSize %s)", SizeText(size), a.dev.Info.Name, ErrTooLarge, SizeText(int64(max)))
	}
	if a.budget && a.total+size > a.dev.budget {
		return nil, fmt.Errorf("allocating %s on %s with %s of %s in use: %w",
			SizeText(size), a.dev.Info.Name, SizeText(a.total), SizeText(a.dev.budget), ErrBudget)
	}
	var mem vk.DeviceMemory
	r := vk.AllocateMemory(a.dev.handle, &vk.MemoryAllocateInfo{
		SType:           vk.StructureTypeMemoryAllocateInfo,
		AllocationSize:  vk.DeviceSize(size),
		MemoryTypeIndex: a.typ,
	}, nil, &mem)
	if r == vk.ErrorOutOfDeviceMemory || r == vk.ErrorOutOfHostMemory {
		return nil, fmt.Errorf("allocating %s on %s: %w (%s)", SizeText(size), a.dev.Info.Name, ErrOutOfMemory, resultName(r))
	}
	if err := check(r, "vkAllocateMemory"); err != nil {
		return nil, err
	}
	b := &block{mem: mem, size: size, free: []span{{0, size}}}
	if a.hostView {
		var mapped unsafe.Pointer
		if err := check(vk.MapMemory(a.dev.handle, mem, 0, vk.DeviceSize(size), 0, &mapped), "vkMapMemory"); err != nil {
			vk.FreeMemory(a.dev.handle, mem, nil)
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
	for _, b := range a.blocks {
		if off, ok := b.take(size, align); ok {
			return b, off, nil
		}
	}
	bs := a.dev.smallBlock()
	if size >= min(dedicatedFrom, bs) {
		bs = alignUp(size, 64<<10)
	}
	if a.budget && a.total+bs > a.dev.budget {
		a.dropEmpty()
		if a.total+bs > a.dev.budget {
			bs = alignUp(size, 64<<10)
		}
	}
	b, err := a.newBlock(bs)
	if err != nil {
		return nil, 0, err
	}
	off, _ := b.take(size, align)
	return b, off, nil
}

func (a *allocator) release(b *block, off, size int64) {
	b.give(off, size)
	if b.used > 0 || len(a.blocks) == 1 && b.size == a.dev.smallBlock() {
		return // keep one standard block around for the next buffer
	}
	for i, x := range a.blocks {
		if x == b {
			a.blocks = append(a.blocks[:i], a.blocks[i+1:]...)
			break
		}
	}
	a.freeBlock(b)
}

// dropEmpty frees the blocks no buffer uses.
func (a *allocator) dropEmpty() {
	kept := a.blocks[:0]
	for _, b := range a.blocks {
		if b.used == 0 {
			a.freeBlock(b)
		} else {
			kept = append(kept, b)
		}
	}
	a.blocks = kept
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
	if b.mapped != nil {
		vk.UnmapMemory(a.dev.handle, b.mem)
	}
	vk.FreeMemory(a.dev.handle, b.mem, nil)
	a.total -= b.size
}

func (a *allocator) close() {
	for _, b := range a.blocks {
		a.freeBlock(b)
	}
	a.blocks = nil
}

// Buffer is a storage buffer sub-allocated from a device memory block.
type Buffer struct {
	dev    *Device
	alloc  *allocator
	handle vk.Buffer
	blk    *block
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
	if size <= 0 {
		size = 4
	}
	size = alignUp(size, 4)
	var h vk.Buffer
	bci := vk.BufferCreateInfo{
		SType:       vk.StructureTypeBufferCreateInfo,
		Size:        vk.DeviceSize(size),
		Usage:       vk.BufferUsageFlags(usage),
		SharingMode: vk.SharingModeExclusive,
	}
	if len(d.families) > 1 {
		// Copies run on a queue of another family: share the buffer
		// rather than transfer its ownership back and forth.
		bci.SharingMode = vk.SharingModeConcurrent
		bci.QueueFamilyIndexCount = uint32(len(d.families))
		bci.PQueueFamilyIndices = d.families
	}
	if err := check(vk.CreateBuffer(d.handle, &bci, nil, &h), "vkCreateBuffer"); err != nil {
		return nil, err
	}
	var req vk.MemoryRequirements
	vk.GetBufferMemoryRequirements(d.handle, h, &req)
	req.Deref()
	if req.MemoryTypeBits&(1<<a.typ) == 0 {
		vk.DestroyBuffer(d.handle, h, nil)
		return nil, fmt.Errorf("buffer cannot live in memory type %d on %s", a.typ, d.Info.Name)
	}
	need := alignUp(int64(req.Size), 256)
	d.mu.Lock()
	blk, off, err := a.alloc(need, int64(req.Alignment))
	d.mu.Unlock()
	if err != nil {
		vk.DestroyBuffer(d.handle, h, nil)
		return nil, err
	}
	if err := check(vk.BindBufferMemory(d.handle, h, blk.mem, vk.DeviceSize(off)), "vkBindBufferMemory"); err != nil {
		vk.DestroyBuffer(d.handle, h, nil)
		d.mu.Lock()
		a.release(blk, off, need)
		d.mu.Unlock()
		return nil, err
	}
	return &Buffer{dev: d, alloc: a, handle: h, blk: blk, off: off, span: need, size: size}, nil
}

// Release destroys the buffer and returns its memory to the allocator.
func (b *Buffer) Release() {
	if b == nil || b.handle == vk.NullBuffer {
		return
	}
	if !b.dev.settle() {
		return // a timed-out kernel may still use it
	}
	vk.DestroyBuffer(b.dev.handle, b.handle, nil)
	b.dev.mu.Lock()
	b.alloc.release(b.blk, b.off, b.span)
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

// smallBlock is the size of the blocks small buffers are carved from:
// blockSize, or a sixteenth of a small budget.
func (d *Device) smallBlock() int64 {
	return max(min(blockSize, d.budget/16)&^(64<<10-1), 256<<10)
}
