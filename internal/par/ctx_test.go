package par

import (
	"context"
	"errors"
	"runtime"
	"sync/atomic"
	"testing"
)

// EachContext begins no index once its context is done, and says so.
func TestEachContextStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ran, after atomic.Int64
	var cancelled atomic.Bool
	err := EachContext(ctx, 1000, 1, func() int { return 0 }, func(_ int, i int) {
		if cancelled.Load() {
			after.Add(1)
		}
		if ran.Add(1) == 10 {
			cancel()
			cancelled.Store(true)
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	// Other goroutines run on while cancel itself runs (a slow one, under
	// the race detector or on a loaded machine); once it has returned, each
	// may only finish the index it had already begun.
	if n := after.Load(); n > int64(runtime.GOMAXPROCS(0)) {
		t.Errorf("%d of 1000 indices began after cancel returned", n)
	}
	ran.Store(0)
	if err := EachContext(context.Background(), 1000, 7, func() int { return 0 }, func(int, int) { ran.Add(1) }); err != nil || ran.Load() != 1000 {
		t.Errorf("without a cancel: err %v, %d of 1000 ran", err, ran.Load())
	}
}
