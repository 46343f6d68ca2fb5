package checks

import (
	"fmt"
	"runtime"
	"testing"
	"time"
)

// AllocDuring runs read and returns the bytes allocated meanwhile and its
// error. A read still running after the deadline fails the test. A read
// whose live heap passes 1 GiB is unbounded and would take the machine's
// memory, which nothing but ending the process stops: AllocDuring panics.
func AllocDuring(t testing.TB, what string, deadline time.Duration, read func() error) (uint64, error) {
	t.Helper()
	runtime.GC()
	var before, ms runtime.MemStats
	runtime.ReadMemStats(&before)
	done := make(chan error, 1)
	go func() { done <- read() }()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	timeout := time.After(deadline)
	for {
		select {
		case err := <-done:
			runtime.ReadMemStats(&ms)
			return ms.TotalAlloc - before.TotalAlloc, err
		case <-tick.C:
			runtime.ReadMemStats(&ms)
			if ms.HeapAlloc > before.HeapAlloc+1<<30 {
				runtime.GC() // what is live, not garbage, counts
				runtime.ReadMemStats(&ms)
			}
			if ms.HeapAlloc > before.HeapAlloc+1<<30 {
				panic(fmt.Sprintf("%s: still reading with %d bytes more on the heap: the read is unbounded", what, ms.HeapAlloc-before.HeapAlloc))
			}
		case <-timeout:
			t.Fatalf("%s: no result after %v", what, deadline)
		}
	}
}
