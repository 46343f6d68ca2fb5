package cli

// Commands given inputs that are not regular files fail at once, having read
// little (the readers' own bounds are tested in package formats).

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// setStreamLimit sets formats.MaxStreamBytes for the test.
func setStreamLimit(t *testing.T, n int64) {
	t.Helper()
	old := formats.MaxStreamBytes
	formats.MaxStreamBytes = n
	t.Cleanup(func() { formats.MaxStreamBytes = old })
}

// allocDuring runs read and returns the bytes allocated meanwhile and its
// error. A read still running after the deadline fails the test. A read
// whose live heap passes 1 GiB is unbounded and would take the machine's
// memory, which nothing but ending the process stops: allocDuring panics.
func allocDuring(t *testing.T, what string, deadline time.Duration, read func() error) (uint64, error) {
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

// TestCommandsBoundStreams: map and reduce given /dev/zero fail at once.
func TestCommandsBoundStreams(t *testing.T) {
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero here")
	}
	setStreamLimit(t, 4<<20)
	dir := t.TempDir()
	y := writeNPY(t, dir, "y.npy", tensor.FromF64(ramp(4), 4))
	zeroNPY := filepath.Join(dir, "zero.npy")
	if err := os.Symlink("/dev/zero", zeroNPY); err != nil {
		t.Skipf("cannot make a symbolic link: %v", err)
	}
	for _, args := range [][]string{
		{"map", "--x", "/dev/zero", "--y", y, "--out", filepath.Join(dir, "z.npy")},
		{"map", "--x", y, "--y", zeroNPY, "--out", filepath.Join(dir, "z.npy")},
		{"reduce", "--in", "/dev/zero", "--out-dir", filepath.Join(dir, "out")},
		{"reduce", "--in", zeroNPY, "--out-dir", filepath.Join(dir, "out")},
	} {
		var code int
		var stderr string
		alloc, _ := allocDuring(t, strings.Join(args, " "), 20*time.Second, func() error {
			code, _, stderr = run(t, append([]string{"--device", "cpu"}, args...)...)
			return nil
		})
		if code != 1 || !strings.Contains(stderr, "not an NPY file") && !strings.Contains(stderr, "unknown array format") {
			t.Errorf("%v: exit %d, stderr %q; want 1 and a format error", args, code, stderr)
		}
		if alloc > 16<<20 {
			t.Errorf("%v: allocated %d bytes to fail", args, alloc)
		}
	}
}
