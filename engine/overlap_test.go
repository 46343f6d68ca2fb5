package engine_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"sync"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaders"
)

// TestOverlapHold (issue 32): the work WithOverlap hands to a Run runs
// after that Run's commands are submitted and before they are waited for,
// so that the next batch's upload (HoldAsync) is submitted while this
// batch's kernel runs: one overlapped submission, counted, on every data
// path (the copy queue's semaphores included), and both the kernel's
// result and the held copy read back exactly. Without the overlap the
// same work counts none.
func TestOverlapHold(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, _ engine.DeviceOptions) {
		const n = 100_000
		x, y := mapInputs(n)
		next := pattern(3<<20+12, 5) // the next batch: streamed in chunks on the discrete paths
		for _, overlap := range []bool{true, false} {
			ctx := context.Background()
			var held *engine.Held
			var holdErr error
			hold := func() { held, holdErr = d.HoldAsync(next) }
			var o *engine.Overlap
			if overlap {
				ctx, o = engine.WithOverlap(ctx, hold)
			}
			c0 := d.Counts()
			z := make([]byte, len(x))
			if _, err := runMap(ctx, d, x, y, z); err != nil {
				t.Fatal(err)
			}
			if !overlap {
				hold()
			}
			o.Flush() // ran already: does nothing
			if holdErr != nil {
				t.Fatal(holdErr)
			}
			if !held.Holds() {
				t.Fatalf("overlap %v: nothing held", overlap)
			}
			c := d.Counts().Sub(c0)
			if want := int64(map[bool]int{true: 1, false: 0}[overlap]); c.Overlapped != want {
				t.Errorf("overlap %v: %d overlapped submissions, want %d", overlap, c.Overlapped, want)
			}
			checkMap(t, y, z)
			w, ok := d.Window(next[:len(next)&^3], int64(len(next)))
			if !ok {
				t.Fatal("no window of the held array")
			}
			got := make([]byte, len(next))
			// Read back before waiting for the hold: queue order (or its
			// semaphore) puts the download after the upload.
			if _, err := d.Run(context.Background(), func(s *engine.Sequence) { s.Download(w.Buf, w.Offset, got) }); err != nil {
				t.Fatal(err)
			}
			if _, err := held.Wait(ctx); err != nil {
				t.Fatal(err)
			}
			held.Release()
			if !bytes.Equal(got, next) {
				t.Errorf("overlap %v: the held copy differs from the array", overlap)
			}
			if err := d.Validation(); err != nil {
				t.Fatal(err)
			}
		}
	})
}

// runMap runs z = x + y (map_f32) in one sequence under ctx.
func runMap(ctx context.Context, d *engine.Device, x, y, z []byte) (engine.Timing, error) {
	code, err := shaders.Code("map_f32")
	if err != nil {
		return engine.Timing{}, err
	}
	k, err := d.Kernel(engine.KernelSpec{Name: "map_f32", Code: code, Push: mapPush{}, Spec: []uint32{64}})
	if err != nil {
		return engine.Timing{}, err
	}
	n := int64(len(x))
	bufs, err := d.Buffers(n, n, n)
	if err != nil {
		return engine.Timing{}, err
	}
	defer engine.ReleaseAll(bufs)
	return d.Run(ctx, func(s *engine.Sequence) {
		s.Upload(bufs[0], 0, x)
		s.Upload(bufs[1], 0, y)
		s.Dispatch(k, d.Groups(int(n/4+63)/64), mapPush{A: 1, B: 1, N: int(n / 4)}, engine.Bind(bufs[0]), engine.Bind(bufs[1]), engine.Bind(bufs[2]))
		s.Download(bufs[2], 0, z)
	})
}

// TestConcurrentSequences: a device no longer runs one sequence at a time
// (Submit holds the queue lock only to submit), so sequences from several
// goroutines record, submit and wait at once; each must get its own
// result, with no validation message (run it under -race too).
func TestConcurrentSequences(t *testing.T) {
	openModes(t, func(t *testing.T, d *engine.Device, _ engine.DeviceOptions) {
		const n, workers, rounds = 50_000, 4, 3
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				x, y := mapInputs(n)
				for i := 0; i < n; i++ { // each worker its own y: i/7 + w
					binary.LittleEndian.PutUint32(y[4*i:], math.Float32bits(float32(i)/7+float32(w)))
				}
				for r := 0; r < rounds; r++ {
					z := make([]byte, len(x))
					if _, err := runMap(context.Background(), d, x, y, z); err != nil {
						errs <- err
						return
					}
					for i := 0; i < n; i++ {
						want := 1 + math.Float32frombits(binary.LittleEndian.Uint32(y[4*i:]))
						if got := math.Float32frombits(binary.LittleEndian.Uint32(z[4*i:])); got != want {
							errs <- fmt.Errorf("worker %d round %d: z[%d] = %v, want %v", w, r, i, got, want)
							return
						}
					}
				}
			}()
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if err := d.Validation(); err != nil {
			t.Fatal(err)
		}
	})
}
