// Package par spreads independent pieces of work over every core: the
// batch loops of the CPU paths.
package par

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Range calls fn(lo, hi) on pieces of at most grain indices covering
// [0, n), from up to GOMAXPROCS goroutines, the caller's included, that
// take pieces as they finish the previous one. With one piece or one core
// it runs on the caller. It returns when every piece is done, without
// waiting for a goroutine that found none left (one the scheduler started
// late, on a busy machine): such a goroutine calls nothing.
func Range(n, grain int, fn func(lo, hi int)) {
	grain = max(grain, 1)
	pieces := (n + grain - 1) / grain
	workers := min(runtime.GOMAXPROCS(0), pieces)
	if workers <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var next, done atomic.Int64
	finished := make(chan struct{})
	work := func() {
		for {
			k := int(next.Add(1) - 1)
			if k >= pieces {
				return
			}
			lo := k * grain
			fn(lo, min(lo+grain, n))
			if done.Add(1) == int64(pieces) {
				close(finished)
			}
		}
	}
	for w := 1; w < workers; w++ {
		go work()
	}
	work()
	<-finished
}

// Each calls fn(s, i) for every i in [0, n), handing indices out in
// batches; every goroutine gets its own scratch from newScratch.
func Each[S any](n, batch int, newScratch func() S, fn func(s S, i int)) {
	(&Pool[S]{New: newScratch}).Each(n, batch, fn)
}

// Pool keeps the scratch of Each's goroutines from one call to the next,
// for work handed out in rounds: New makes one where none is free.
type Pool[S any] struct {
	New  func() S
	mu   sync.Mutex
	free []S
}

// Each is the package's Each with the pool's scratch.
func (p *Pool[S]) Each(n, batch int, fn func(s S, i int)) {
	Range(n, batch, func(lo, hi int) {
		p.mu.Lock()
		var s S
		if k := len(p.free); k > 0 {
			s, p.free = p.free[k-1], p.free[:k-1]
			p.mu.Unlock()
		} else {
			p.mu.Unlock()
			s = p.New()
		}
		for i := lo; i < hi; i++ {
			fn(s, i)
		}
		p.mu.Lock()
		p.free = append(p.free, s)
		p.mu.Unlock()
	})
}

// Copy copies src into dst (the shorter length) from every core for large
// blocks: one core cannot saturate the memory bus, nor fill staging memory
// as fast as a PCIe link drains it.
func Copy(dst, src []byte) {
	n := min(len(dst), len(src))
	const grain = 1 << 20
	if n < 2*grain {
		copy(dst, src)
		return
	}
	piece := max((n/runtime.GOMAXPROCS(0)+4095)&^4095, grain)
	Range(n, piece, func(lo, hi int) { copy(dst[lo:hi], src[lo:hi]) })
}
