package capi

// os.fork() in a process that has loaded the library: only the forking
// thread lives on in the child, and Go's runtime and this package's locks
// held by any other thread at that moment are held there for good (a
// child's first call hung, issue 41, defect 5). ForkPrepare, called
// before the fork (the Python package's os.register_at_fork), holds new
// calls at the door, waits for those in flight to return, and finishes
// the garbage collector's cycle with collection off, so that the fork
// happens with no goroutine of the library running; ForkParent and
// ForkChild open the door again after it.

import (
	"runtime"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"
)

var gate struct {
	// door is held from ForkPrepare to ForkParent or ForkChild. The child
	// gets a new one: goroutines of the parent's other threads may wait on
	// the old, and waking one there (its thread is gone) would hang the
	// child's scheduler.
	door     atomic.Pointer[sync.Mutex]
	inFlight atomic.Int64
	gc       int // the collector's percentage before ForkPrepare
}

func init() { gate.door.Store(new(sync.Mutex)) }

// Enter marks a call of the C ABI in flight until the function it returns
// runs; it waits while a fork is being prepared.
func Enter() (leave func()) {
	d := gate.door.Load()
	d.Lock()
	gate.inFlight.Add(1)
	d.Unlock()
	return func() { gate.inFlight.Add(-1) }
}

// ForkPrepare readies the library for os.fork(): no new call starts until
// ForkParent or ForkChild, and it waits up to wait for the calls in flight
// in other threads to return. It reports whether they all did; when not,
// the child's calls may hang (Go's runtime is not fork-safe while its
// threads run).
func ForkPrepare(wait time.Duration) bool {
	gate.door.Load().Lock()
	deadline := time.Now().Add(wait)
	for gate.inFlight.Load() > 0 && time.Now().Before(deadline) {
		time.Sleep(200 * time.Microsecond)
	}
	gate.gc = debug.SetGCPercent(-1)
	runtime.GC() // no cycle half done, no background worker running
	return gate.inFlight.Load() == 0
}

// ForkParent undoes ForkPrepare in the parent.
func ForkParent() {
	debug.SetGCPercent(gate.gc)
	gate.door.Load().Unlock()
}

// ForkChild undoes ForkPrepare in the child: the calls the parent had in
// flight do not exist there.
func ForkChild() {
	gate.inFlight.Store(0)
	debug.SetGCPercent(gate.gc)
	gate.door.Store(new(sync.Mutex)) // the old one stays locked, its waiters asleep
}
