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
	var ran atomic.Int64
	err := EachContext(ctx, 1000, 1, func() int { return 0 }, func(_ int, i int) {
		if ran.Add(1) == 10 {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err %v, want context.Canceled", err)
	}
	// Each goroutine may finish the index it began when cancel ran.
	if n := ran.Load(); n < 10 || n > 10+int64(runtime.GOMAXPROCS(0)) {
		t.Errorf("%d of 1000 indices ran after a cancel at the 10th", n)
	}
	ran.Store(0)
	if err := EachContext(context.Background(), 1000, 7, func() int { return 0 }, func(int, int) { ran.Add(1) }); err != nil || ran.Load() != 1000 {
		t.Errorf("without a cancel: err %v, %d of 1000 ran", err, ran.Load())
	}
}
