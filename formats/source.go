package formats

// Arrays read as a device consumes them: a file's data section served in
// pieces (tensor.Source), so that reading overlaps the copies to the device
// and host memory stays bounded whatever the file's size.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// errNotStreamable says a file must be read whole (its layout needs
// conversion: byte order, integer types, Fortran order, compression).
var errNotStreamable = errors.New("not streamable")

// openSource opens path as a Source when its data can be served as stored:
// a regular NPY file of little-endian float32 or float64 in C order. Other
// files give errNotStreamable (read them with ReadArray). Close the
// returned file when done.
func openSource(path string) (tensor.Source, io.Closer, error) {
	var src tensor.Source
	in, err := openInput(path)
	if err != nil {
		return src, nil, err
	}
	if !in.regular() || formatOf(in) != formatNPY {
		in.Close()
		return src, nil, errNotStreamable
	}
	h, _, err := readNPYHeader(in.source())
	if err != nil {
		in.Close()
		return src, nil, fmt.Errorf("%s: %w", path, err)
	}
	le := h.dt.order.Uint16([]byte{1, 0}) == 1
	if h.dt.kind != 'f' || (h.dt.size != 4 && h.dt.size != 8) || !le || h.fortran && len(h.shape) > 1 {
		in.Close()
		return src, nil, errNotStreamable
	}
	src = tensor.Source{Shape: h.shape, DType: h.dt.out(), Name: path, Fill: fileFill(in.f, path, h.dataOff)}
	return src, in, nil
}

// fileFill reads bytes [off, off+len(p)) of the data that starts at base in
// f (readParallel), naming path in its errors.
func fileFill(f *os.File, path string, base int64) func(p []byte, off int64) error {
	return func(p []byte, off int64) error {
		if err := readParallel(f, p, base+off); err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		return nil
	}
}

// readParallel reads len(p) bytes at off from r, from several goroutines
// for large pieces (the page cache copies at memory speed only from many
// cores). A short read is an error: the file changed under us.
func readParallel(r io.ReaderAt, p []byte, off int64) error {
	const grain = 4 << 20
	var mu sync.Mutex
	var first error
	par.Range(len(p), grain, func(lo, hi int) {
		n, err := r.ReadAt(p[lo:hi], off+int64(lo))
		if n < hi-lo {
			if err == nil || err == io.EOF {
				err = fmt.Errorf("truncated: %d bytes missing at byte %d (did the file change while it was read?)", hi-lo-n, off+int64(lo+n))
			}
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
		}
	})
	return first
}

// ErrNotStreamable says a file must be read whole (see OpenSource).
var ErrNotStreamable = errNotStreamable

// OpenSource opens path as a Source when its data can be served as stored: a
// regular NPY file of little-endian float32 or float64 in C order. Other
// files give an error that errors.Is ErrNotStreamable (read them with
// ReadArray). Close the returned file when done.
func OpenSource(path string) (tensor.Source, io.Closer, error) { return openSource(path) }
