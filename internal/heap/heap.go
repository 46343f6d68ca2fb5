// Package heap is the vkstat command's memory policy: a ballast that keeps
// the garbage collector from running in a small run, free heap on
// transparent huge pages, and one collection before a run's outputs are
// encoded when its compute left enough garbage to be worth it. The command
// calls Start first (not for help, nor for a small job: cli.Informational,
// cli.SmallJob); a library embedded in another program (the Python
// package) leaves its host's memory alone and calls neither.
package heap

import (
	"os"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"github.com/vkstat/vkstat/tensor"
)

const (
	// Ballast is the heap Start holds and never touches, so that the
	// collector's goal, twice the live heap, starts at 128 MiB instead
	// of the runtime's 4 MiB: a small run (PACO on a 64×64×48 cube, whose
	// heap reaches 19 MB) then collects once, at start (nothing else live:
	// 0.1–0.6 ms), where it collected 3 times, each a stop of all cores
	// (4–37 ms on a loaded machine). It costs no memory (the pages are
	// never written: the kernel gives them only when touched, and the
	// collector does not scan memory without pointers) and is safe at any
	// size: a run's heap may hold at most 64 MiB more garbage than
	// without it before collecting, on a 100 GB cube a goal of 200.064 GB
	// for 200 GB.
	Ballast = 64 << 20

	// HugeFree is the free heap Start leaves advised for transparent huge
	// pages (madvise MADV_HUGEPAGE, tensor.Make), where the command's next
	// allocations go: its first write to each 2 MiB is then one page
	// fault, where it is 512 for the runtime's own pages while
	// transparent huge pages are in madvise mode, as on many
	// distributions. On a VM with shadow page tables a fault costs 11–14
	// µs: PACO on a 64×64×48 cube faulted 3,400 pages, 40 ms of its 150 ms
	// of CPU, and vkstat latent on a 16 MB tensor 13,400, drawing its
	// pictures. 128 MiB: a map of two 40 MB inputs fits, and 256 gave no
	// more. Pages never touched cost nothing (the process's peak memory
	// grows by a few whole huge pages: 8 MB), and the runtime reuses or
	// returns them as it does any other.
	HugeFree = 128 << 20
)

// ballast is Start's, held for the process.
var ballast []byte

// Start makes the ballast and the huge-page heap, once, at the start of
// the command. An environment that sets GOGC or GOMEMLIMIT chooses for
// itself: neither then.
func Start() {
	if ballast != nil || os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return
	}
	// No collection until both are made, so that both take fresh pages: a
	// collection frees the start-up's garbage, and a large object whose
	// pages begin on those is cleared whole by the runtime before
	// tensor.Make can advise it (64 MiB in 4 KiB faults, 200 ms, one run
	// in fifteen). Then one collection frees the huge pages and returns
	// them to the kernel untouched, so that the runtime knows them zeroed
	// and hands them out without clearing them.
	gc := debug.SetGCPercent(-1)
	free := tensor.Make[byte](HugeFree)
	ballast = make([]byte, Ballast)
	runtime.KeepAlive(free)
	debug.SetGCPercent(gc)
	debug.FreeOSMemory()
}

// CollectScratch collects the garbage of a run's compute before its
// outputs are encoded, when the heap beyond the ballast holds more than a
// quarter of HugeFree. The ballast keeps the collector from running, which
// spares the compute its pauses, but then no page the compute let go is
// used again: the pictures and files take fresh ones. While the heap is
// small those are huge pages, and a collection (2 ms on the VM) cost more
// than it saved (PACO on 64×64×48, 6 MB beyond the ballast: encoding the
// outputs 4.9 → 5.3 ms without it); on a 256×256×64 cube (68 MB) encoding
// took 24 ms without it, 9.4 with, in fresh 4 KiB pages. Without a
// ballast (GOGC or GOMEMLIMIT set) it always collects.
func CollectScratch() {
	if ballast != nil {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		metrics.Read(s)
		if s[0].Value.Kind() == metrics.KindUint64 && s[0].Value.Uint64() < Ballast+HugeFree/4 {
			return
		}
	}
	runtime.GC()
}
