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
	in, err := openInput(path)
	if err != nil {
		return tensor.Source{}, nil, err
	}
	src, ok, err := inputSource(in)
	if err != nil || !ok {
		in.Close()
		if err == nil {
			err = errNotStreamable
		}
		return src, nil, err
	}
	return src, in, nil
}

// inputSource is the Source of an open input whose data can be served as
// stored (see openSource); false for any other, leaving nothing but the
// first bytes peeked at, so that it can still be read whole.
func inputSource(in *inputFile) (tensor.Source, bool, error) {
	var src tensor.Source
	if !in.regular() || formatOf(in) != formatNPY {
		return src, false, nil
	}
	h, _, err := readNPYHeader(in.source())
	if err != nil {
		return src, false, fmt.Errorf("%s: %w", in.path, err)
	}
	le := h.dt.order.Uint16([]byte{1, 0}) == 1
	if h.dt.kind != 'f' || (h.dt.size != 4 && h.dt.size != 8) || !le || h.fortran && len(h.shape) > 1 {
		return src, false, nil
	}
	return tensor.Source{Shape: h.shape, DType: h.dt.out(), Name: in.path, Fill: fileFill(in.f, in.path, h.dataOff)}, true, nil
}

// OpenArray opens path once and gives what it holds: the Source of a file
// OpenSource serves (close the Closer when done), or else the whole array,
// read as ReadArray reads it from that same open (a FIFO's writer is read
// once), with a nil Closer.
func OpenArray(path string) (src tensor.Source, whole *tensor.Tensor, c io.Closer, err error) {
	if isRasterName(path) {
		whole, err = ReadRaster(path)
		return src, whole, nil, err
	}
	in, err := openInput(path)
	if err != nil {
		return src, nil, nil, err
	}
	src, ok, err := inputSource(in)
	if ok {
		return src, nil, in, nil
	}
	defer in.Close()
	if err != nil {
		return src, nil, nil, err
	}
	whole, err = readArrayInput(in, formatOf(in))
	return src, whole, nil, err
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
