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
	"runtime/pprof"
	"syscall"
	"time"

	"github.com/vkstat/vkstat/cli"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/heap"
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
	if !cli.Informational(os.Args) && !cli.SmallJob(os.Args) {
		heap.Start()
	}
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
