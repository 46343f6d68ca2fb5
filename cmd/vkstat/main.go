// Command vkstat runs batched statistics and small dense linear algebra on
// Vulkan GPUs or on the CPU. See the README, or run `vkstat --help`.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/vkstat/vkstat/cli"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// grace is how long an interrupted command gets to stop by itself (its
// loops check the context; a GPU submission cannot be cut short) before the
// process removes its temporary files and exits anyway.
const grace = 1500 * time.Millisecond

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		stop() // a second signal ends the process at once
		select {
		case <-done:
		case <-time.After(grace):
			formats.RemoveTemporaries()
			fmt.Fprintln(os.Stderr, "vkstat: interrupted")
			os.Exit(cli.ExitInterrupted)
		}
	}()
	defer runtime.KeepAlive(startingHeap())
	stopProfile := profile(os.Getenv("VKSTAT_CPUPROFILE"))
	var stdout io.Writer = os.Stdout
	if stdoutClosed() {
		stdout = failingWriter{errors.New("standard output is closed")}
	}
	code := cli.Main(ctx, os.Args, stdout, os.Stderr)
	stopProfile()
	close(done)
	stop()
	os.Exit(code)
}

// ballast is the heap startingHeap holds.
const ballast = 64 << 20

// startingHeap returns 64 MiB of heap that the command holds and never
// touches, so that the collector's goal, twice the live heap, starts at
// 128 MiB instead of the runtime's 4 MiB: a small run (PACO on a
// 64×64×48 cube, whose heap reaches 19 MB) then collects once, at start
// (nothing else live: 0.1–0.6 ms), where it collected 3 times, each a
// stop of all cores (4–37 ms on a loaded machine). It costs no memory (the
// pages are never written: the kernel gives them only when touched, and
// the collector does not scan memory without pointers) and is safe at any
// size: a run's heap may hold at most 64 MiB more garbage than without it
// before collecting, on a 100 GB cube a goal of 200.064 GB for 200 GB.
// What the compute let go is used again only after a collection: vkstat
// paco and survey run collect once before encoding their outputs
// (cli.collectScratch).
//
// It also leaves hugeFree bytes of free heap advised for transparent huge
// pages. An environment that sets GOGC or GOMEMLIMIT chooses for itself:
// neither then.
func startingHeap() []byte {
	if os.Getenv("GOGC") != "" || os.Getenv("GOMEMLIMIT") != "" {
		return nil
	}
	// No collection until both are made, so that both take fresh pages: a
	// collection frees the start-up's garbage, and a large object whose
	// pages begin on those is cleared whole by the runtime before
	// tensor.Make can advise it (64 MiB in 4 KiB faults, 200 ms, one run
	// in fifteen). Then one collection frees the huge pages and returns
	// them to the kernel untouched, so that the runtime knows them zeroed
	// and hands them out without clearing them.
	gc := debug.SetGCPercent(-1)
	free := tensor.Make[byte](hugeFree)
	b := make([]byte, ballast)
	runtime.KeepAlive(free)
	debug.SetGCPercent(gc)
	debug.FreeOSMemory()
	return b
}

// hugeFree is the free heap startingHeap leaves advised for transparent
// huge pages (madvise MADV_HUGEPAGE, tensor.Make), where the command's
// next allocations go: its first write to each 2 MiB is then one page
// fault, where it is 512 for the runtime's own pages while transparent
// huge pages are in madvise mode, as on many distributions. On a VM with
// shadow page tables a fault costs 11–14 µs: PACO on a 64×64×48 cube
// faulted 3,400 pages, 40 ms of its 150 ms of CPU, and vkstat latent on a
// 16 MB tensor 13,400, drawing its pictures. 128 MiB: a map of two 40 MB
// inputs fits, and 256 gave no more. Pages never touched cost nothing
// (the process's peak memory grows by a few whole huge pages: 8 MB), and
// the runtime reuses or returns them as it does any other.
const hugeFree = 128 << 20

// failingWriter fails every write with err.
type failingWriter struct{ err error }

func (f failingWriter) Write([]byte) (int, error) { return 0, f.err }

// profile writes a CPU profile of the command to path (go tool pprof reads
// it) when path is set: VKSTAT_CPUPROFILE=cpu.out vkstat ..., for finding
// where a command's host time goes.
func profile(path string) (stop func()) {
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "vkstat: VKSTAT_CPUPROFILE: %v\n", err)
		os.Exit(cli.ExitUsage)
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
