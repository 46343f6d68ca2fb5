//go:build linux || darwin

package smallfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 34: the caches were read with os.ReadFile, which waits for a
// FIFO's writer forever and reads /dev/zero or a huge sparse file until
// memory runs out. Read refuses them at once.
func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.json")
	os.WriteFile(ok, []byte("{}"), 0o644)
	if b, err := Read(ok, 10); err != nil || string(b) != "{}" {
		t.Errorf("a small file: %q %v", b, err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 10); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a missing file: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	syscall.Mkfifo(fifo, 0o600)
	zero := filepath.Join(dir, "zero")
	os.Symlink("/dev/zero", zero)
	sparse := filepath.Join(dir, "sparse")
	os.WriteFile(sparse, nil, 0o644)
	os.Truncate(sparse, 64<<30)
	for p, want := range map[string]string{fifo: "not a regular file", zero: "not a regular file", sparse: "68719476736 bytes, more than the 1048576 expected"} {
		done := make(chan error, 1)
		go func() { _, err := Read(p, 1<<20); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want %q", p, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: still reading after 10 s", p)
		}
	}
}
