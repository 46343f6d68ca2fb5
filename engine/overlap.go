package engine

import (
	"context"
	"sync"
	"sync/atomic"
)

type overlapKey struct{}

// WithOverlap returns a context under which the first Sequence.Run (or
// Device.Run) calls fn once its commands are submitted and before it waits
// for them: host work that runs while the device does, such as the next
// batch's upload (Device.HoldAsync) while this batch's first kernels run,
// as a CUDA stream overlaps a copy with a kernel. fn runs once, on the
// goroutine of that Run; the sequences it submits queue behind the running
// one (Counts.Overlapped counts them). A Run that fails before submitting
// leaves fn to the next; fn that never runs is the caller's to run (Flush).
func WithOverlap(ctx context.Context, fn func()) (context.Context, *Overlap) {
	o := &Overlap{fn: fn}
	return context.WithValue(ctx, overlapKey{}, o), o
}

// Overlap is the work WithOverlap hands to the next Run.
type Overlap struct {
	once  sync.Once
	taken atomic.Bool // a Run took it
	fn    func()
}

// Flush runs the work now if no Run has run it (a batch that submitted
// nothing, on the CPU path, say).
func (o *Overlap) Flush() {
	if o != nil {
		o.once.Do(o.fn)
	}
}

// overlapOf is the work ctx hands to a Run not yet run, or nil.
func overlapOf(ctx context.Context) func() {
	o, ok := ctx.Value(overlapKey{}).(*Overlap)
	if !ok || !o.taken.CompareAndSwap(false, true) {
		return nil
	}
	return o.Flush
}
