//go:build linux || darwin

package formats

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/vkstat/vkstat/internal/checks"

	"github.com/vkstat/vkstat/tensor"
)

// fifoWriterCap is the most a test FIFO's writer writes, so that an
// unbounded reader fails the test instead of taking the machine's memory.
const fifoWriterCap = 64 << 20

// fifo makes a FIFO at dir/name and starts a writer that writes prefix,
// then fill over and over (endlessly when fill is not empty, until the
// reader closes the FIFO or fifoWriterCap bytes are written), then closes
// it. wrote waits for the writer to stop and returns how much it wrote.
func fifo(t *testing.T, dir, name string, prefix, fill []byte) (path string, wrote func() int64) {
	t.Helper()
	path = filepath.Join(dir, name)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("cannot make a FIFO: %v", err)
	}
	var n atomic.Int64
	done := make(chan struct{})
	go func() {
		defer close(done)
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		defer f.Close()
		write := func(b []byte) bool {
			k, err := f.Write(b)
			n.Add(int64(k))
			return err == nil
		}
		if !write(prefix) || len(fill) == 0 {
			return
		}
		buf := bytes.Repeat(fill, max(1, (64<<10)/len(fill)))
		for n.Load() < fifoWriterCap && write(buf) {
		}
	}()
	return path, func() int64 {
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Errorf("%s: the writer is still blocked after 10 s (nobody opened the FIFO?)", path)
		}
		return n.Load()
	}
}

// npyBytes is t as an NPY file.
func npyBytes(t *testing.T, tt *tensor.Tensor) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := EncodeNPY(&b, tt); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestReadFIFOIsBounded: pipes are read once, no further than the array's
// data, and never beyond MaxStreamBytes, whatever the writer offers.
func TestReadFIFOIsBounded(t *testing.T) {
	const limit = 1 << 20
	setStreamLimit(t, limit)
	dir := t.TempDir()
	zeros := make([]byte, 4096)
	small := tensor.FromF64(ramp(1000), 1000)
	var fitsImg bytes.Buffer
	if err := EncodeFITS(&fitsImg, tensor.FromF32([]float32{1, 2, 3, 4, 5, 6}, 2, 3), nil); err != nil {
		t.Fatal(err)
	}
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write(fitsImg.Bytes())
	zw.Close()
	bigNPY := npyFile(npyDict("<f4", false, "(32768, 32768)"), nil)

	array := func(p string) (string, error) {
		a, err := ReadArray(p)
		if err != nil {
			return "", err
		}
		return fmt.Sprint(a.Shape, a.Float64s()[:min(a.Len(), 3)]), nil
	}
	vector := func(p string) (string, error) {
		v, err := ReadVector(p)
		return fmt.Sprint(v[:min(len(v), 3)]), err
	}
	cases := []struct {
		name         string
		prefix, fill []byte
		read         func(string) (string, error)
		want         string // the result, or what the error says
		limitErr     bool   // the error is a *StreamLimitError
	}{
		{"zeros.npy", nil, zeros, array, "not an NPY file", false},
		{"claims-4GiB.npy", bigNPY, zeros, array, "not a regular file and would need", true},
		{"claims-4GiB.fits", bombHeader(), zeros, array, "NAXISn = [32768 32768 1]", true},
		{"small-then-zeros.npy", npyBytes(t, small), zeros, array, "[1000] [-3.5 -2.5 -1.5]", false},
		{"small-no-extension", npyBytes(t, small), nil, array, "[1000] [-3.5 -2.5 -1.5]", false},
		{"image-then-zeros.fits", fitsImg.Bytes(), zeros, array, "[2 3] [1 2 3]", false},
		{"gzipped-then-zeros.fits.gz", gz.Bytes(), zeros, array, "[2 3] [1 2 3]", false},
		{"gzipped-no-extension", gz.Bytes(), nil, array, "[2 3] [1 2 3]", false},
		{"zeros", nil, zeros, array, "unknown array format", false},
		{"endless-lines.txt", nil, []byte("0 1 2\n"), vector, "not a regular file and larger than 1048576 bytes", true},
		{"endless-line.txt", nil, []byte("0 "), vector, "1048576 bytes", false},
		{"angles-no-extension", []byte("1 2 3\n4\n"), nil, vector, "[1 2 3]", false},
		{"zeros.txt", nil, zeros, vector, "not a text file", false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p, wrote := fifo(t, dir, c.name, c.prefix, c.fill)
			var got string
			alloc, err := checks.AllocDuring(t, p, 20*time.Second, func() (err error) {
				got, err = c.read(p)
				return err
			})
			t.Logf("%s %v; allocated %d bytes, %d bytes written", got, err, alloc, wrote())
			if err != nil {
				if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("error %q, want one naming the file and saying %q", err, c.want)
				}
				var le *StreamLimitError
				if errors.As(err, &le) != c.limitErr {
					t.Errorf("error %q: a StreamLimitError is %v, want %v", err, !c.limitErr, c.limitErr)
				}
			} else if got != c.want {
				t.Errorf("read %s, want %s", got, c.want)
			}
			if w := wrote(); w > limit+1<<20 {
				t.Errorf("the reader took %d bytes from the FIFO, more than the %d limit", w, limit)
			}
			// Text becomes a float64 per number and a string per token: up
			// to 40 bytes allocated per byte read.
			if bound := uint64(40 * limit); alloc > bound {
				t.Errorf("the read allocated %d bytes with a %d-byte limit", alloc, limit)
			}
		})
	}
}
