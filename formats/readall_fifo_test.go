//go:build linux || darwin

package formats

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// Issue 25, item 1: whole-file readers (manifests, reports, shader sources)
// stop at their limit on a stream that goes on, and refuse binary data where
// they see it.
func TestReadTextIsBounded(t *testing.T) {
	const limit = 1 << 20
	dir := t.TempDir()
	text := []byte("name,cube\nA,a.fits\n")

	// A text stream longer than the limit: the writer is stopped early.
	long, wrote := fifo(t, dir, "long", nil, []byte("x,y\n"))
	alloc, err := checks.AllocDuring(t, "ReadText(long)", 20*time.Second, func() error {
		_, err := ReadText(long, limit, "a manifest")
		return err
	})
	var tl *TooLargeError
	if !errors.As(err, &tl) || tl.Limit != limit || !strings.Contains(err.Error(), "longer than 1048576 bytes, the most read as a manifest") {
		t.Errorf("long stream: %v; want a TooLargeError at %d bytes", err, limit)
	}
	if n := wrote(); n >= fifoWriterCap {
		t.Errorf("long stream: the reader took all %d bytes the writer offered", n)
	}
	if alloc > 8*limit {
		t.Errorf("long stream: %d bytes allocated for a %d-byte limit", alloc, limit)
	}

	// Binary data is refused at once, not read up to the limit.
	zeros, wrote := fifo(t, dir, "zeros", nil, []byte{0})
	_, err = ReadText(zeros, 0, "a manifest")
	if err == nil || !strings.Contains(err.Error(), "not a text file") || !strings.Contains(err.Error(), "NUL byte at byte 0") {
		t.Errorf("zeros: %v; want a binary-data refusal", err)
	}
	if n := wrote(); n > 4<<20 {
		t.Errorf("zeros: %d bytes read before the refusal", n)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadText("/dev/zero", 0, "a report"); err == nil || !strings.Contains(err.Error(), "not a text file") {
			t.Errorf("/dev/zero: %v", err)
		}
		if _, err := ReadFileLimit("/dev/zero", limit, "a shader"); !errors.As(err, &tl) {
			t.Errorf("/dev/zero as a binary file: %v; want a TooLargeError", err)
		}
	}

	// A short stream and a regular file are read whole.
	short, _ := fifo(t, dir, "short", text, nil)
	if b, err := ReadText(short, limit, "a manifest"); err != nil || !bytes.Equal(b, text) {
		t.Errorf("short stream: %q, %v; want %q", b, err, text)
	}
	reg := filepath.Join(dir, "m.csv")
	if err := os.WriteFile(reg, text, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadText(reg, int64(len(text)), "a manifest"); err != nil || !bytes.Equal(b, text) {
		t.Errorf("regular file at the limit: %q, %v; want %q", b, err, text)
	}
	// A regular file over the limit is refused by its size.
	_, err = ReadText(reg, int64(len(text))-1, "a manifest")
	if !errors.As(err, &tl) || tl.Size != int64(len(text)) {
		t.Errorf("regular file over the limit: %v; want a TooLargeError giving its size", err)
	}
	if _, err := ReadText(dir, 0, "a manifest"); err == nil || !strings.Contains(err.Error(), "directory") {
		t.Errorf("a folder: %v", err)
	}
}

// Issue 25, item 1: ReadRawNPY (vkstat shader's buffers) reads as ReadNPY
// does: /dev/zero and a stream claiming more than it holds fail at once.
func TestReadRawNPY(t *testing.T) {
	dir := t.TempDir()
	// int16 big-endian, as NumPy writes '>i2': 1, -2, 300.
	hdr := "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }"
	hdr += strings.Repeat(" ", 128-10-len(hdr)-1) + "\n"
	raw := append([]byte("\x93NUMPY\x01\x00"+string([]byte{byte(len(hdr)), 0})+hdr), 0, 1, 0xff, 0xfe, 1, 44)
	p := filepath.Join(dir, "i2.npy")
	if err := os.WriteFile(p, raw, 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := ReadRawNPY(p)
	if err != nil {
		t.Fatal(err)
	}
	if want := []byte{1, 0, 0xfe, 0xff, 44, 1}; !bytes.Equal(a.Data, want) || a.DType.Kind != 'i' || a.DType.Size != 2 || len(a.Shape) != 1 || a.Shape[0] != 3 {
		t.Errorf("got %+v, data % x; want shape (3,) int16 little-endian % x", a, a.Data, want)
	}

	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := ReadRawNPY("/dev/zero"); err == nil || !strings.Contains(err.Error(), "not an NPY file") {
			t.Errorf("/dev/zero: %v", err)
		}
	}
	old := MaxStreamBytes
	MaxStreamBytes = 1 << 20
	t.Cleanup(func() { MaxStreamBytes = old })
	big := npyBytes(t, tensor.New(tensor.F32, 1<<20)) // 4 MiB of data
	pipe, wrote := fifo(t, dir, "big", big[:128], []byte{0})
	if _, err := ReadRawNPY(pipe); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a stream claiming 4 MiB: %v; want the stream limit", err)
	}
	if n := wrote(); n > 2<<20 {
		t.Errorf("a stream claiming 4 MiB: %d bytes read", n)
	}
}
