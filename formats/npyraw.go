package formats

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// RawArray is an NPY array as its elements' bytes, unconverted: for
// readers that take any numeric dtype as it is stored (vkstat shader's
// buffers).
type RawArray struct {
	Shape []int
	DType NPYDType // as the header gives it
	Data  []byte   // the elements, little-endian, C order
}

// ReadRawNPY reads an NPY file of a simple numeric dtype (bool, int8..int64,
// uint8..uint64, float16, float32, float64, bfloat16) without converting its
// elements: big-endian data is byte-swapped to little-endian, and nothing
// else changes. It reads as ReadNPY does, checking every size against the
// file (a pipe or device no further than the array's data, never beyond
// MaxStreamBytes) before allocating. A Fortran-order array of more than one
// axis is refused.
func ReadRawNPY(path string) (*RawArray, error) {
	in, err := openInput(path)
	if err != nil {
		return nil, err
	}
	defer in.Close()
	h, r, err := readNPYHeader(in.source())
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if h.fortran && len(h.shape) > 1 {
		return nil, fmt.Errorf("%s: Fortran-order array; save it C-contiguous (numpy.ascontiguousarray)", path)
	}
	data := make([]byte, h.n*int64(h.dt.size))
	if _, err := io.ReadFull(r, data); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, fmt.Errorf("%s: reading data (%d elements of %s): %w", path, h.n, h.dt.descr, err)
	}
	if h.dt.order == binary.BigEndian && h.dt.size > 1 {
		for i := 0; i < len(data); i += h.dt.size {
			for l, r := i, i+h.dt.size-1; l < r; l, r = l+1, r-1 {
				data[l], data[r] = data[r], data[l]
			}
		}
	}
	dt := NPYDType{Descr: h.dt.descr, Order: h.dt.order, Kind: h.dt.kind, Size: h.dt.size}
	return &RawArray{Shape: append([]int(nil), h.shape...), DType: dt, Data: data}, nil
}
