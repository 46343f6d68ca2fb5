package cli

// Commands given inputs that are not regular files fail at once, having read
// little (the readers' own bounds are tested in package formats).

import (
	"github.com/vkstat/vkstat/internal/checks"
	"os"
	"path/filepath"
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
		alloc, _ := checks.AllocDuring(t, strings.Join(args, " "), 20*time.Second, func() error {
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
