package engine

// Recording once, replaying after (issue 39): a sequence's commands are
// kept as a list while the caller adds them and recorded into a command
// buffer only when it is submitted. The list, with every object it names
// by an id that is never reused (a buffer's view, a kernel), is the key
// of a recording the device keeps, with its command buffer, descriptor
// sets and query pool: a later sequence with the same key — the same
// kernels, workgroups, push constants, and buffer ranges on the same live
// VkBuffers — submits that command buffer again, recording nothing and
// writing no descriptor, as CUDA Graphs replay a captured graph. The
// bytes uploaded and downloaded are no part of the key: they move outside
// the command buffer (host writes, the staging ring) or through buffers
// the key names.
//
// A push constant that changes is a new key: the commands are recorded
// anew, as every sequence was before (a buffer for the constants would
// spare that, at the price of a read in every shader). A sequence that
// records commands of its own (Sequence.Record) is never kept. A
// recording is submitted once at a time: a sequence that finds its
// recording in flight records one of its own, as before. The cache holds
// maxReplays recordings, least recently used out first, and drops those
// that name a VkBuffer being destroyed (memory.go dropView): its memory
// stays flat over any number of calls.

import (
	"slices"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"
)

// maxReplays caps the recordings a device keeps.
const maxReplays = 32

// bound is one binding of a recorded dispatch: a range of a VkBuffer.
type bound struct {
	buf       vk.Buffer
	off, size int64
}

// op is one step of a sequence, recorded when it is submitted: a copy
// (kernel nil), a dispatch, or commands of the caller's own (fn).
type op struct {
	phase  Phase
	name   string
	k      *Kernel
	groups [3]uint32
	push   []byte
	binds  []bound
	// copy
	src, dst       vk.Buffer
	srcOff, dstOff int64
	n              int64
	fn             func(cmd unsafe.Pointer) error
}

// recording is a recorded command buffer the device keeps for replay.
type recording struct {
	key     []uint64
	hash    uint64
	deps    []uint64 // the ids of the views it uses
	cb      cmdBuf
	pool    vk.DescriptorPool // its descriptor sets, nil when it has none
	queries vk.QueryPool
	nq      uint32
	phases  []Phase
	names   []string
	busy    bool // submitted by a sequence not yet released
	dead    bool // names a destroyed view: freed when released
	last    uint64
}

// replays is a device's recordings (d.mu guards it).
type replays struct {
	d     *Device
	recs  []*recording
	clock uint64
}

func keyHash(key []uint64) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range key {
		h ^= w
		h *= 1099511628211
	}
	return h
}

// take returns an idle recording of key, marked busy, or nil (d.mu held).
func (r *replays) take(key []uint64, h uint64) *recording {
	for _, rec := range r.recs {
		if rec.hash == h && !rec.busy && !rec.dead && slices.Equal(rec.key, key) {
			r.clock++
			rec.busy, rec.last = true, r.clock
			return rec
		}
	}
	return nil
}

// room makes room for one more recording, freeing the least recently used
// idle one when the cache is full; false when every recording is in
// flight (d.mu held).
func (r *replays) room() bool {
	if len(r.recs) < maxReplays {
		return true
	}
	var lru *recording
	for _, rec := range r.recs {
		if !rec.busy && (lru == nil || rec.last < lru.last) {
			lru = rec
		}
	}
	if lru == nil {
		return false
	}
	r.remove(lru)
	return true
}

// add keeps rec, busy (d.mu held).
func (r *replays) add(rec *recording) {
	r.clock++
	rec.busy, rec.last = true, r.clock
	r.recs = append(r.recs, rec)
}

// done marks rec idle after its sequence's release, freeing it when a
// view it names went meanwhile (d.mu held).
func (r *replays) done(rec *recording) {
	rec.busy = false
	if rec.dead {
		r.remove(rec)
	}
}

// drop frees the recordings that name view id, or marks those in flight
// to be freed when released (d.mu held).
func (r *replays) drop(id uint64) {
	for i := 0; i < len(r.recs); i++ {
		rec := r.recs[i]
		for _, dep := range rec.deps {
			if dep != id {
				continue
			}
			if rec.busy {
				rec.dead = true
			} else {
				r.remove(rec)
				i--
			}
			break
		}
	}
}

// remove frees rec, not in flight (d.mu held).
func (r *replays) remove(rec *recording) {
	for i, x := range r.recs {
		if x == rec {
			r.recs = append(r.recs[:i], r.recs[i+1:]...)
			break
		}
	}
	r.free(rec)
}

// free gives rec's command buffer and query pool back to the device and
// destroys its descriptor pool (d.mu held).
func (r *replays) free(rec *recording) {
	d := r.d
	if rec.cb.cmd != nil {
		vk.ResetCommandBuffer(rec.cb.cmd, 0)
		d.freeCmds = append(d.freeCmds, rec.cb)
		rec.cb = cmdBuf{}
	}
	if rec.queries != vk.NullQueryPool {
		d.freeQueries = append(d.freeQueries, rec.queries)
		rec.queries = vk.NullQueryPool
	}
	if rec.pool != vk.NullDescriptorPool {
		vk.DestroyDescriptorPool(d.handle, rec.pool, nil)
		rec.pool = vk.NullDescriptorPool
	}
}

// close frees every recording; none may be in flight (d.mu held).
func (r *replays) close() {
	for _, rec := range r.recs {
		r.free(rec)
	}
	r.recs = nil
}

// Replays is the number of recordings the device keeps for replay.
func (d *Device) Replays() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return len(d.replays.recs)
}

// nextID is a new id for a view, never given before on d.
func (d *Device) nextID() uint64 { return d.ids.Add(1) }

// EmptySubmit submits nothing to the compute queue, with a fence, and
// waits for the fence: the least any sequence costs on the driver, the
// floor a repeated call is measured against (issue 39). It returns the
// time from the submission to the end of the wait.
func (d *Device) EmptySubmit() (time.Duration, error) {
	if !d.settle() {
		return 0, d.busy()
	}
	d.mu.Lock()
	var f vk.Fence
	var err error
	if n := len(d.freeFences); n > 0 {
		f, d.freeFences = d.freeFences[n-1], d.freeFences[:n-1]
	} else {
		f, err = d.createFence()
	}
	d.mu.Unlock()
	if err != nil {
		return 0, err
	}
	t0 := time.Now()
	d.qmu.Lock()
	err = check(d.submit(d.queue, nil, vk.NullSemaphore, 0, vk.NullSemaphore, f), "vkQueueSubmit")
	d.qmu.Unlock()
	if err == nil {
		err = d.waitFence(f)
		vk.ResetFences(d.handle, 1, []vk.Fence{f})
	}
	el := time.Since(t0)
	d.mu.Lock()
	d.freeFences = append(d.freeFences, f)
	d.mu.Unlock()
	return el, err
}

// takeCmd takes a command buffer and a query pool for a recording from the
// device's free lists, or makes them.
func (d *Device) takeCmd() (cmdBuf, vk.QueryPool, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	var cb cmdBuf
	var err error
	if n := len(d.freeCmds); n > 0 {
		cb, d.freeCmds = d.freeCmds[n-1], d.freeCmds[:n-1]
	} else if cb, err = d.newCmdBuf(); err != nil {
		return cb, vk.NullQueryPool, err
	}
	q := vk.NullQueryPool
	if d.Info.Timestamps {
		if n := len(d.freeQueries); n > 0 {
			q, d.freeQueries = d.freeQueries[n-1], d.freeQueries[:n-1]
		} else if q, err = d.createQueryPool(maxQueries); err != nil {
			d.freeCmds = append(d.freeCmds, cb)
			return cmdBuf{}, vk.NullQueryPool, err
		}
	}
	return cb, q, nil
}

// record ends the sequence's list of commands: it takes the device's
// recording of the same commands where there is one (replay.go), or
// records them, into a recording the device keeps where it can.
func (s *Sequence) record() error {
	d := s.dev
	defer d.since(phRecord, time.Now())
	keep := !s.noReplay && !d.opt.NoReplay
	var h uint64
	if keep {
		h = keyHash(s.key)
		d.mu.Lock()
		rec := d.replays.take(s.key, h)
		if rec == nil {
			keep = d.replays.room()
		}
		d.mu.Unlock()
		if rec != nil {
			s.rec, s.cmd, s.queries, s.nq = rec, rec.cb.cmd, rec.queries, rec.nq
			s.phases, s.names = rec.phases, rec.names
			d.count(cReplays, 1)
			return nil
		}
	}
	cb, q, err := d.takeCmd()
	if err != nil {
		return err
	}
	s.cmd, s.cmdPool, s.queries = cb.cmd, cb.pool, q
	set := s.descriptorSet
	if keep {
		rec := &recording{key: append([]uint64(nil), s.key...), hash: h, deps: append([]uint64(nil), s.deps...), cb: cb, queries: q}
		s.rec = rec
		sets, descs := 0, 0
		for _, o := range s.ops {
			if o.k != nil {
				sets++
				descs += len(o.binds)
			}
		}
		if sets > 0 {
			if rec.pool, err = d.createDescriptorPool(uint32(sets), uint32(max(descs, 1))); err != nil {
				s.rec = nil
				return err
			}
		}
		set = func(k *Kernel) (vk.DescriptorSet, error) {
			set, r := d.allocSet(rec.pool, k.setLayout)
			return set, check(r, "vkAllocateDescriptorSets")
		}
	}
	err = s.emit(keep, set)
	if s.rec != nil {
		rec := s.rec
		d.mu.Lock()
		if err == nil {
			rec.nq, rec.phases, rec.names = s.nq, s.phases, s.names
			d.replays.add(rec)
		} else {
			// Half recorded: never kept.
			s.open = false
			d.replays.free(rec)
			s.rec, s.cmd, s.cmdPool, s.queries = nil, nil, vk.NullCommandPool, vk.NullQueryPool
		}
		d.mu.Unlock()
	}
	return err
}

// emit records the sequence's commands into s.cmd: the barrier that
// orders streamed uploads first, the steps, and the barrier that makes
// the results visible to the host and the download copies. set gives each
// dispatch its descriptor set.
func (s *Sequence) emit(reuse bool, set func(k *Kernel) (vk.DescriptorSet, error)) error {
	d := s.dev
	if err := d.beginCmd(s.cmd, reuse); err != nil {
		return err
	}
	s.open = true
	s.nq, s.phases, s.names = 0, nil, nil
	// Streamed uploads are submitted before this command buffer: order
	// their writes before every command in it.
	d.cmdBarrier(s.cmd, vk.PipelineStageTransferBit, vk.PipelineStageComputeShaderBit|vk.PipelineStageTransferBit,
		vk.AccessTransferWriteBit, vk.AccessShaderReadBit|vk.AccessShaderWriteBit|vk.AccessTransferReadBit|vk.AccessTransferWriteBit)
	if s.queries != vk.NullQueryPool {
		vk.CmdResetQueryPool(s.cmd, s.queries, 0, maxQueries)
		vk.CmdWriteTimestamp(s.cmd, vk.PipelineStageTopOfPipeBit, s.queries, 0)
		s.nq = 1
	}
	for _, o := range s.ops {
		switch {
		case o.fn != nil:
			if err := o.fn(raw(s.cmd)); err != nil {
				return err
			}
		case o.k != nil:
			k := o.k
			ds, err := set(k)
			if err != nil {
				return err
			}
			d.writeSet(ds, o.binds)
			vk.CmdBindPipeline(s.cmd, vk.PipelineBindPointCompute, k.pipeline)
			d.cmdBindSet(s.cmd, k.layout, ds)
			if len(o.push) > 0 {
				vk.CmdPushConstants(s.cmd, k.layout, vk.ShaderStageFlags(vk.ShaderStageComputeBit), 0, uint32(len(o.push)), unsafe.Pointer(&o.push[0]))
			}
			vk.CmdDispatch(s.cmd, o.groups[0], o.groups[1], o.groups[2])
		default:
			d.cmdCopy(s.cmd, o.src, o.dst, o.srcOff, o.dstOff, o.n)
		}
		s.step(o.phase, o.name)
	}
	// Make device writes visible to host reads after the fence, and to the
	// copies that stream downloads back.
	d.cmdBarrier(s.cmd, vk.PipelineStageComputeShaderBit|vk.PipelineStageTransferBit, vk.PipelineStageHostBit|vk.PipelineStageTransferBit,
		vk.AccessShaderWriteBit|vk.AccessTransferWriteBit, vk.AccessHostReadBit|vk.AccessTransferReadBit)
	s.open = false
	return check(vk.EndCommandBuffer(s.cmd), "vkEndCommandBuffer")
}
