package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
	"unsafe"

	vk "github.com/vulkan-go/vulkan"

	"github.com/vkstat/vkstat/internal/par"
)

// Binding is the byte range [Offset, Offset+Size) of a buffer bound to one
// binding of a kernel. Size 0 means to the end of the buffer.
type Binding struct {
	Buf    *Buffer
	Offset int64
	Size   int64
}

// Bind binds the whole buffer.
func Bind(b *Buffer) Binding { return Binding{Buf: b} }

type download struct {
	src *Buffer
	off int64
	dst []byte
	imp *imported // dst's import, or nil: through staging
	at  int64     // dst's offset in imp
}

// Sequence records uploads, dispatches and downloads into one command
// buffer, with a memory barrier between consecutive steps, and runs them
// in one submission. The commands are kept as a list (ops) and recorded
// when the sequence is submitted, unless the device kept a recording of
// the same commands, which is submitted again (replay.go). Its command
// buffer, descriptor pools and query pool are then the recording's, or
// else the device's, reused from one sequence to the next.
type Sequence struct {
	dev       *Device
	cmd       vk.CommandBuffer
	cmdPool   vk.CommandPool // cmd's own (cmdBuf)
	open      bool           // cmd begun and not ended
	ops       []op
	key       []uint64   // the ops, as the replay cache keys them
	deps      []uint64   // the views the ops use
	noReplay  bool       // the ops cannot be replayed (Record, a per-sequence import)
	rec       *recording // the recording cmd is, when kept for replay
	pools     []vk.DescriptorPool
	poolLeft  int
	staging   []*Buffer
	imports   []*imported // host ranges imported for this sequence (import.go)
	downloads []download
	queries   vk.QueryPool
	nq        uint32
	phases    []Phase
	names     []string
	hostUp    time.Duration
	upBytes   int64
	started   time.Time
	mark      Mark
	recording bool
	streamed  bool // uploads went through the ring: compute waits for them
	// The submission's own fence and, where copies have a queue of their
	// own, semaphores (Submit): up gates the commands on the streamed
	// uploads, down the streamed downloads on the commands.
	fence          vk.Fence
	semUp, semDown vk.Semaphore
	pending        bool // submitted, not yet waited for
	downWaited     bool // a download copy waited on semDown
	stuck          bool // timed out (Device.SetTimeout): released once it finishes
	err            error
	// used holds the buffers that recorded commands touch, so that a host
	// write on a UMA device does not overtake them; downloaded holds the
	// buffers read back directly (UMA) at the end of the run, which no
	// later command may touch.
	used       map[*Buffer]bool
	downloaded map[*Buffer]bool
}

// touch records that a command uses b, and refuses when b was already
// arranged to be read back directly: the read would see the later write.
func (s *Sequence) touch(b *Buffer) error {
	if s.downloaded[b] {
		return s.fail(fmt.Errorf("engine: a buffer downloaded earlier in this sequence is used again; on host-visible (UMA) devices the download reads it when the sequence ends, so use another buffer or another sequence"))
	}
	s.used[b] = true
	return nil
}

const maxQueries = 512

// Run records one sequence with record, runs it and releases it: the loop
// body of every pipeline that works in passes. It returns ctx's error
// before starting, and any error recorded (Upload, Dispatch and Download
// keep the first) or raised while running.
func (d *Device) Run(ctx context.Context, record func(s *Sequence)) (Timing, error) {
	if err := ctx.Err(); err != nil {
		return Timing{}, err
	}
	s, err := d.NewSequence()
	if err != nil {
		return Timing{}, err
	}
	defer s.Release()
	record(s)
	return s.Run(ctx)
}

// NewSequence starts recording.
func (d *Device) NewSequence() (*Sequence, error) {
	if !d.settle() {
		return nil, d.busy()
	}
	s := &Sequence{dev: d, started: time.Now(), used: map[*Buffer]bool{}, downloaded: map[*Buffer]bool{}}
	s.mark = Begin(d)
	s.recording = true
	return s, nil
}

// step closes a recorded step: a timestamp, then a barrier that makes its
// writes visible to every later transfer or shader access.
func (s *Sequence) step(p Phase, name string) {
	if s.queries != vk.NullQueryPool && s.nq < maxQueries {
		vk.CmdWriteTimestamp(s.cmd, vk.PipelineStageBottomOfPipeBit, s.queries, s.nq)
		s.nq++
		s.phases = append(s.phases, p)
		s.names = append(s.names, name)
	}
	stages := vk.PipelineStageComputeShaderBit | vk.PipelineStageTransferBit
	s.dev.cmdBarrier(s.cmd, stages, stages, vk.AccessShaderWriteBit|vk.AccessTransferWriteBit,
		vk.AccessShaderReadBit|vk.AccessShaderWriteBit|vk.AccessTransferReadBit|vk.AccessTransferWriteBit)
}

// addCopy adds a copy of n bytes from src at srcOff to dst at dstOff,
// a step of phase p named name.
func (s *Sequence) addCopy(p Phase, name string, src, dst *Buffer, srcOff, dstOff, n int64) {
	s.ops = append(s.ops, op{phase: p, name: name, src: src.handle, dst: dst.handle, srcOff: srcOff, dstOff: dstOff, n: n})
	s.key = append(s.key, 2, uint64(p), src.view.id, dst.view.id, uint64(srcOff), uint64(dstOff), uint64(n))
	s.deps = append(s.deps, src.view.id, dst.view.id)
}

// fail keeps the sequence's first error and returns it; fail(nil) on a
// sequence without one returns nil.
func (s *Sequence) fail(err error) error {
	if s.err == nil {
		s.err = err
	}
	return s.err
}

// Upload copies src into dst at byte offset off. The host copy happens
// now: directly into dst on UMA devices, otherwise streamed through the
// device's staging ring, whose copies are submitted as the chunks fill and
// ordered before every command this sequence runs. Where the device
// imports host memory (VK_EXT_external_memory_host) and src is large
// enough, the device copies straight from src, with no host copy: src must
// then stay unchanged until the sequence has run. When a command recorded
// earlier in the sequence uses dst, the bytes wait in a staging buffer of
// their own (or in src, imported) and are copied in order instead.
func (s *Sequence) Upload(dst *Buffer, off int64, src []byte) error {
	if s.err != nil {
		return s.err
	}
	if imp, at := s.importFor(src); imp != nil {
		return s.uploadImported(dst, off, imp, at, int64(len(src)))
	}
	return s.UploadFrom(dst, off, int64(len(src)), func(p []byte, at int64) error {
		par.Copy(p, src[at:at+int64(len(p))])
		return nil
	})
}

// UploadFrom is Upload with the bytes produced by fill: fill(p, at) writes
// bytes [at, at+len(p)) of the n to upload into p, which is device or staging
// memory. A file reader passed as fill reads straight into the memory the
// device copies from, chunk by chunk, while earlier chunks are in flight.
func (s *Sequence) UploadFrom(dst *Buffer, off, n int64, fill func(p []byte, at int64) error) error {
	if s.err != nil {
		return s.err
	}
	if n == 0 && off >= 0 && off <= dst.size {
		return nil
	}
	t0 := time.Now()
	defer func() { s.hostUp += time.Since(t0) }()
	earlier, err := s.beginUpload(dst, off, n)
	if err != nil {
		return err
	}
	d := s.dev
	if h := dst.host(off, n); h != nil && !earlier {
		// Nothing recorded so far uses dst: write it directly.
		defer d.since(phCopyIn, time.Now())
		d.count(cMappedIn, n)
		return s.fail(fill(h, 0))
	}
	if !earlier {
		d.xmu.Lock()
		err = d.ring.upload(dst, off, n, fill)
		d.xmu.Unlock()
		s.streamed = true
		return s.fail(err)
	}
	st, err := d.newStaging(n)
	if err != nil {
		return s.fail(err)
	}
	s.staging = append(s.staging, st)
	tc := time.Now()
	err = fill(st.host(0, n), 0)
	d.since(phCopyIn, tc)
	d.count(cStagingIn, n)
	if err != nil {
		return s.fail(err)
	}
	s.addCopy(PhaseUpload, "upload", st, dst, 0, off, n)
	return nil
}

// beginUpload checks an upload of n bytes into dst at off, counts it and
// marks dst as used; earlier reports that a command recorded before uses
// dst.
func (s *Sequence) beginUpload(dst *Buffer, off, n int64) (earlier bool, err error) {
	if off < 0 || n < 0 || off+n > dst.size {
		return false, s.fail(fmt.Errorf("upload of %d bytes at %d overflows a buffer of %d", n, off, dst.size))
	}
	s.upBytes += n
	earlier = s.used[dst]
	return earlier, s.touch(dst)
}

// uploadImported is Upload of n bytes at offset at of imp, imported host
// memory: the device copies them, in order when a command recorded earlier
// uses dst, else on the copy queue ahead of the sequence.
func (s *Sequence) uploadImported(dst *Buffer, off int64, imp *imported, at, n int64) error {
	t0 := time.Now()
	defer func() { s.hostUp += time.Since(t0) }()
	earlier, err := s.beginUpload(dst, off, n)
	if err != nil {
		return err
	}
	d := s.dev
	d.count(cImported, n)
	if earlier {
		// From a sequence's own import: never replayed.
		s.ops = append(s.ops, op{phase: PhaseUpload, name: "upload", src: imp.buf, dst: dst.handle, srcOff: at, dstOff: off, n: n})
		s.noReplay = true
		return nil
	}
	d.xmu.Lock()
	err = d.ring.copy(imp.buf, dst.handle, at, off, n, vk.NullSemaphore)
	d.xmu.Unlock()
	s.streamed = true
	return s.fail(err)
}

// Download arranges for the bytes of src at off to land in dst when Run
// returns: read directly on UMA devices, otherwise streamed back through
// the staging ring once the commands have run, or copied by the device
// straight into dst where the device imports host memory and dst is large
// enough (see Upload). dst is the caller's: a result array, or memory the
// caller lent (a NumPy array through the C ABI), with no copy after. No
// command may use src after its download in the same sequence.
func (s *Sequence) Download(src *Buffer, off int64, dst []byte) error {
	if s.err != nil {
		return s.err
	}
	if off < 0 || off+int64(len(dst)) > src.size {
		return s.fail(fmt.Errorf("download of %d bytes at %d overflows a buffer of %d", len(dst), off, src.size))
	}
	if len(dst) == 0 {
		return nil
	}
	dl := download{src: src, off: off, dst: dst}
	if src.host(0, 0) == nil {
		dl.imp, dl.at = s.importFor(dst)
	}
	s.downloads = append(s.downloads, dl)
	s.downloaded[src] = true
	return nil
}

// setsPerPool is the descriptor sets of one pool: pools are the device's,
// reset and reused by later sequences.
const setsPerPool = 64

func (s *Sequence) descriptorSet(k *Kernel) (vk.DescriptorSet, error) {
	if s.poolLeft == 0 {
		d := s.dev
		d.mu.Lock()
		var pool vk.DescriptorPool
		var err error
		if n := len(d.freeSets); n > 0 {
			pool, d.freeSets = d.freeSets[n-1], d.freeSets[:n-1]
		} else {
			pool, err = d.createDescriptorPool(setsPerPool, setsPerPool*maxBindings)
		}
		d.mu.Unlock()
		if err != nil {
			return nil, err
		}
		s.pools = append(s.pools, pool)
		s.poolLeft = setsPerPool
	}
	set, r := s.dev.allocSet(s.pools[len(s.pools)-1], k.setLayout)
	if err := check(r, "vkAllocateDescriptorSets"); err != nil {
		return nil, err
	}
	s.poolLeft--
	return set, nil
}

// Dispatch records one dispatch of k over groups workgroups with the given
// push constants (a value of the kernel's KernelSpec.Push type, raw bytes,
// or nil for none) and bindings (one per binding of the kernel, in order).
func (s *Sequence) Dispatch(k *Kernel, groups [3]uint32, push any, binds ...Binding) error {
	if s.err != nil {
		return s.err
	}
	if len(binds) != k.io.bindings {
		return s.fail(fmt.Errorf("kernel %s takes %d bindings, got %d", k.Spec.Name, k.io.bindings, len(binds)))
	}
	defer s.dev.since(phRecord, time.Now())
	s.dev.count(cDispatches, 1)
	pc, err := k.io.pack(k.Spec.Name, push)
	if err != nil {
		return s.fail(err)
	}
	o := op{phase: PhaseKernel, name: k.Spec.Name, k: k, groups: groups, binds: make([]bound, len(binds))}
	if len(pc) > 0 {
		o.push = append([]byte(nil), pc...)
	}
	s.key = append(s.key, 1, k.id, uint64(groups[0]), uint64(groups[1]), uint64(groups[2]), uint64(len(pc)))
	for i := 0; i < len(pc); i += 8 {
		var w uint64
		for j := i; j < min(i+8, len(pc)); j++ {
			w |= uint64(pc[j]) << (8 * (j - i))
		}
		s.key = append(s.key, w)
	}
	s.key = append(s.key, uint64(len(binds)))
	for i, b := range binds {
		size := b.Size
		if size == 0 {
			size = b.Buf.size - b.Offset
		}
		if b.Offset < 0 || size <= 0 || b.Offset+size > b.Buf.size {
			return s.fail(fmt.Errorf("kernel %s binding %d: range [%d, %d) outside a buffer of %d bytes", k.Spec.Name, i, b.Offset, b.Offset+size, b.Buf.size))
		}
		if err := s.touch(b.Buf); err != nil {
			return err
		}
		if size > int64(s.dev.Info.MaxStorageBufferRange) {
			return s.fail(fmt.Errorf("kernel %s binding %d: %d bytes exceed maxStorageBufferRange (%d); the caller must split the work", k.Spec.Name, i, size, s.dev.Info.MaxStorageBufferRange))
		}
		o.binds[i] = bound{b.Buf.handle, b.Offset, size}
		s.key = append(s.key, b.Buf.view.id, uint64(b.Offset), uint64(size))
		s.deps = append(s.deps, b.Buf.view.id)
	}
	s.ops = append(s.ops, o)
	return nil
}

// Run submits the recorded commands, runs the context's overlap work
// (WithOverlap) while the device runs them, waits for them, completes the
// downloads and returns the timing. A sequence runs once.
func (s *Sequence) Run(ctx context.Context) (Timing, error) {
	if err := s.Submit(); err != nil {
		return Timing{}, err
	}
	if f := overlapOf(ctx); f != nil {
		d := s.dev
		before := d.sequences.Load()
		f()
		d.count(cOverlapped, d.sequences.Load()-before)
	}
	return s.Wait(ctx)
}

// Submit ends recording and submits the recorded commands without waiting
// for them: the device runs them while the caller goes on (recording and
// submitting more, copying the next batch's bytes), and Wait waits. Only
// the submission holds the device's queue lock, so that other sequences
// record, upload and submit meanwhile; each submission has its own
// command buffer, fence and semaphores. Submissions to a queue run in
// order, each sequence's commands after the copies streamed before it.
func (s *Sequence) Submit() error {
	if s.err != nil {
		return s.err
	}
	if !s.recording {
		return errors.New("engine: sequence already ran")
	}
	s.recording = false
	d := s.dev
	err := s.record()
	tr := time.Now()
	streamedDown := false
	for _, dl := range s.downloads {
		streamedDown = streamedDown || dl.src.host(0, 0) == nil
	}
	if err == nil {
		err = s.takeSync(d.separate && s.streamed, d.separate && streamedDown)
	}
	d.since(phRecord, tr)
	if err != nil {
		return s.fail(err)
	}
	d.qmu.Lock()
	if s.semUp != vk.NullSemaphore {
		// Uploads ran on the copy queue: this semaphore, signalled after
		// them, gates the submission.
		err = check(d.submit(d.xqueue, nil, vk.NullSemaphore, 0, s.semUp, vk.NullFence), "vkQueueSubmit (transfer)")
	}
	if err == nil {
		err = check(d.submit(d.queue, s.cmd, s.semUp, vk.PipelineStageAllCommandsBit, s.semDown, s.fence), "vkQueueSubmit")
	}
	d.qmu.Unlock()
	if err != nil {
		return s.fail(err)
	}
	s.pending = true
	d.sequences.Add(1)
	return nil
}

// takeSync takes the sequence's fence and, on a device whose copies run on
// a queue of their own, its semaphores: up (uploads before the commands)
// and down (the commands before the downloads), from the device's free
// lists or new.
func (s *Sequence) takeSync(up, down bool) error {
	d := s.dev
	d.mu.Lock()
	defer d.mu.Unlock()
	var err error
	if n := len(d.freeFences); n > 0 {
		s.fence, d.freeFences = d.freeFences[n-1], d.freeFences[:n-1]
	} else if s.fence, err = d.createFence(); err != nil {
		return err
	}
	sem := func(want bool) (vk.Semaphore, error) {
		if !want {
			return vk.NullSemaphore, nil
		}
		if n := len(d.freeSems); n > 0 {
			h := d.freeSems[n-1]
			d.freeSems = d.freeSems[:n-1]
			return h, nil
		}
		return d.createSemaphore()
	}
	if s.semUp, err = sem(up); err != nil {
		return err
	}
	s.semDown, err = sem(down)
	return err
}

// Wait waits for a submitted sequence, completes its downloads and returns
// its timing.
func (s *Sequence) Wait(ctx context.Context) (Timing, error) {
	var t Timing
	if !s.pending {
		if s.err != nil {
			return t, s.err
		}
		return t, errors.New("engine: sequence not submitted")
	}
	d := s.dev
	tw := time.Now()
	err := d.waitRun(s)
	d.since(phWait, tw)
	if err != nil {
		return t, err
	}
	s.pending = false
	var direct, streamed []download
	for _, dl := range s.downloads {
		if dl.src.host(0, 0) != nil {
			direct = append(direct, dl)
		} else {
			streamed = append(streamed, dl)
		}
	}
	t0 := time.Now()
	for _, dl := range direct {
		tc := time.Now()
		par.Copy(dl.dst, dl.src.host(dl.off, int64(len(dl.dst))))
		d.since(phCopyOut, tc)
		d.count(cMappedOut, int64(len(dl.dst)))
	}
	if len(streamed) > 0 {
		downWait := s.semDown
		d.xmu.Lock()
		for _, dl := range streamed {
			if dl.imp != nil {
				d.count(cImported, int64(len(dl.dst)))
				err = d.ring.copy(dl.src.handle, dl.imp.buf, dl.off, dl.at, int64(len(dl.dst)), downWait)
			} else {
				err = d.ring.download(dl.src, dl.off, dl.dst, downWait)
			}
			if err != nil {
				break
			}
			downWait = vk.NullSemaphore
		}
		if downWait == vk.NullSemaphore {
			s.downWaited = true
		}
		if err == nil {
			err = d.ring.drain()
		}
		d.xmu.Unlock()
		if err != nil {
			return t, err
		}
	}
	hostDown := time.Since(t0)
	t.Upload, t.Download = s.hostUp, hostDown
	t.UpBytes = s.upBytes
	for _, dl := range s.downloads {
		t.DownBytes += int64(len(dl.dst))
	}
	if s.nq > 1 {
		tq := time.Now()
		ts := make([]uint64, s.nq)
		if vk.GetQueryPoolResults(d.handle, s.queries, 0, s.nq, uint(8*s.nq), unsafe.Pointer(&ts[0]), 8,
			vk.QueryResultFlags(vk.QueryResult64Bit|vk.QueryResultWaitBit)) == vk.Success {
			mask := uint64(1)<<d.Info.timestampBits - 1
			if d.Info.timestampBits >= 64 {
				mask = ^uint64(0)
			}
			for i, p := range s.phases {
				dt := time.Duration(float64((ts[i+1]-ts[i])&mask) * float64(d.Info.TimestampPeriodNs))
				t.Steps = append(t.Steps, Step{Name: s.names[i], Phase: p, Time: dt})
				switch p {
				case PhaseUpload:
					t.Upload += dt
				case PhaseKernel:
					t.Kernel += dt
				case PhaseDownload:
					t.Download += dt
				}
			}
			t.GPUTimed = true
		}
		d.since(phRecord, tq)
	}
	s.mark.End(&t)
	if err := d.Validation(); err != nil {
		return t, err
	}
	return t, ctx.Err()
}

// Release gives the sequence's command buffer, descriptor pools and query
// pool back to the device for later sequences, and releases its staging
// buffers and imports. It is safe to call more than once.
func (s *Sequence) Release() {
	d := s.dev
	if s.stuck {
		d.settle() // releases s when its submission finishes
		return
	}
	if s.pending {
		// Submitted and never waited for: nothing may be reused under it.
		d.count(cFenceWaits, 1)
		waitFence(d.handle, s.fence)
		vk.ResetFences(d.handle, 1, []vk.Fence{s.fence})
		s.pending = false
	}
	for _, b := range s.staging {
		b.Release()
	}
	s.staging = nil
	if len(s.imports) > 0 || (s.semDown != vk.NullSemaphore && !s.downWaited) {
		// Copies from the imports may be in flight when the sequence did
		// not run, and so may a download that waits on semDown.
		d.xmu.Lock()
		d.ring.drain()
		d.xmu.Unlock()
		for _, imp := range s.imports {
			d.unimport(imp)
		}
		s.imports = nil
	}
	defer d.since(phRecord, time.Now())
	d.mu.Lock()
	defer d.mu.Unlock()
	if s.fence != vk.NullFence {
		d.freeFences = append(d.freeFences, s.fence)
		s.fence = vk.NullFence
	}
	if s.semUp != vk.NullSemaphore {
		// Waited on by the submission, which has finished: unsignalled.
		d.freeSems = append(d.freeSems, s.semUp)
		s.semUp = vk.NullSemaphore
	}
	if s.semDown != vk.NullSemaphore {
		if s.downWaited {
			d.freeSems = append(d.freeSems, s.semDown)
		} else {
			// Signalled and never waited on: not reusable.
			vk.DestroySemaphore(d.handle, s.semDown, nil)
		}
		s.semDown = vk.NullSemaphore
	}
	for _, p := range s.pools {
		vk.ResetDescriptorPool(d.handle, p, 0)
		d.freeSets = append(d.freeSets, p)
	}
	s.pools = nil
	s.recording = false
	if s.rec != nil {
		// The recording's command buffer and query pool stay with it.
		d.replays.done(s.rec)
		s.rec, s.cmd, s.cmdPool, s.queries = nil, nil, vk.NullCommandPool, vk.NullQueryPool
		return
	}
	if s.queries != vk.NullQueryPool {
		d.freeQueries = append(d.freeQueries, s.queries)
		s.queries = vk.NullQueryPool
	}
	if s.cmd != nil {
		if s.open {
			// Recording failed half-way: back to the initial state for
			// the next begin.
			vk.ResetCommandBuffer(s.cmd, 0)
			s.open = false
		}
		d.freeCmds = append(d.freeCmds, cmdBuf{s.cmdPool, s.cmd})
		s.cmd, s.cmdPool = nil, vk.NullCommandPool
	}
}
