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

// once runs read, which reads the FIFO path, and fails the test if it is
// still running after 10 s: it opened the FIFO a second time, after its
// writer had gone, and waits for another (then a writer that writes
// nothing is let in, so that read returns).
func once(t *testing.T, path string, read func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- read() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		if f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
		t.Fatalf("%s: still reading after 10 s: the FIFO was opened again after its writer had gone", path)
		return nil
	}
}

// Issue 34, defect 3: every input is opened once, and what the first open
// gives is read: a stack's date, reduce's --in (OpenArray), latent's
// (OpenSamples) that is a FIFO. On main each was opened twice, the second
// open waiting forever for a writer (stack hung in 3 of 4 runs, reduce and
// latent now and then). Rasters that are not regular files are refused:
// GDAL opens them more than once.
func TestFIFOInputsOpenedOnce(t *testing.T) {
	dir := t.TempDir()
	img := tensor.FromF64(ramp(12), 3, 4)
	var paths []string
	for _, n := range []string{"d0.npy", "d1.npy"} {
		p := filepath.Join(dir, n)
		if err := WriteNPY(p, img); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	want := fmt.Sprint(img.As(tensor.F32).F32)

	var b bytes.Buffer
	if err := EncodeFITS(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	fits, wrote := fifo(t, dir, "d2.fits", b.Bytes(), nil)
	err := once(t, fits, func() error {
		dates, err := CheckDates(append(paths, fits), 1, true)
		if err != nil {
			return err
		}
		for _, d := range dates {
			r, err := d.Open()
			if err != nil {
				return err
			}
			got := make([]float32, 12)
			if err := r.Read(0, 0, 4, 3, got); err != nil {
				return err
			}
			if fmt.Sprint(got) != want {
				t.Errorf("%s: read %v, want %v", d.Path, got, want)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	wrote()

	for _, c := range []struct {
		name string
		read func(string) (*tensor.Tensor, error)
	}{
		{"OpenArray", func(p string) (*tensor.Tensor, error) {
			src, whole, c, err := OpenArray(p)
			if c != nil || src.Fill != nil {
				return nil, fmt.Errorf("a FIFO served as a Source")
			}
			return whole, err
		}},
		{"OpenSamples", func(p string) (*tensor.Tensor, error) {
			r, err := OpenSamples(p, "")
			if err != nil {
				return nil, err
			}
			defer r.Close()
			return r.Read(0, r.Samples(), nil)
		}},
	} {
		p, wrote := fifo(t, dir, c.name+".npy", npyBytes(t, img), nil)
		var got *tensor.Tensor
		if err := once(t, p, func() (err error) { got, err = c.read(p); return err }); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got == nil || fmt.Sprint(got.As(tensor.F32).F32) != want {
			t.Errorf("%s: read %v, want %s", c.name, got, want)
		}
		wrote()
	}

	tif := filepath.Join(dir, "date.tif")
	if err := syscall.Mkfifo(tif, 0o600); err != nil {
		t.Fatal(err)
	}
	refused := tif + ": not a regular file (a pipe or a device): rasters are read from regular files only"
	if !HaveGDAL { // the nogdal build (gpu-run.sh's) refuses a GeoTIFF before it looks at the file
		refused = "built without GDAL"
	}
	if _, err := CheckDates([]string{tif}, 1, false); err == nil || !strings.Contains(err.Error(), refused) {
		t.Errorf("a FIFO raster: %v", err)
	}
}
