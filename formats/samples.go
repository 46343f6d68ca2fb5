package formats

// Reading a tensor file's samples (ranges of its first axis) one batch at
// a time, so that a command can work on a tensor larger than its memory:
// vkstat latent reads batch i+1 while batch i computes.

import (
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// SampleReader reads the samples of a tensor file: NumPy (.npy, any float
// type NPY and ReadTensor read: float16, bfloat16 as '<V2', float32,
// float64, either byte order) and safetensors (F16, BF16, F32, F64) in C
// order are read from the file range by range, the stored bytes through a
// tensor.Source and decoded as ReadTensor decodes them (float16 and
// bfloat16 to float32, or kept 16-bit by OpenSamples16). Other inputs (FITS, Fortran-order NPY, integer
// NPY, pipes) are read whole when opened and served from memory.
type SampleReader struct {
	// Shape and DType are the tensor's, as read (DType: float32 or float64;
	// float16 or bfloat16 from OpenSamples16).
	Shape []int
	DType tensor.DType
	// Info says what the file stored.
	Info TensorInfo
	// Streamed reports whether samples are read from the file as asked
	// (false: the tensor was read whole when opened).
	Streamed bool

	src   tensor.Source // the stored bytes (Streamed)
	dt    npyDType      // the stored element type (Streamed)
	whole *tensor.Tensor
	f     io.Closer
}

// OpenSamples opens path for reading by samples; name picks the tensor of
// a safetensors file as ReadTensor does. Close it when done.
func OpenSamples(path, name string) (*SampleReader, error) {
	return openSamples(path, name, false)
}

// OpenSamples16 is OpenSamples, except that float16 and bfloat16 data keep
// their 16-bit type (tensor.F16, tensor.BF16), as ReadTensor16 reads them.
func OpenSamples16(path, name string) (*SampleReader, error) {
	return openSamples(path, name, true)
}

func openSamples(path, name string, keep16 bool) (*SampleReader, error) {
	if err := checkTensorName(path, name); err != nil || isRasterName(path) && !IsSafetensorsName(path) {
		if err != nil {
			return nil, err
		}
		t, info, err := readTensor(path, name, keep16)
		if err != nil {
			return nil, err
		}
		return &SampleReader{Shape: t.Shape, DType: t.DType, Info: info, whole: t}, nil
	}
	in, err := openInput(path) // once: a FIFO gives its bytes to the first open only
	if err != nil {
		return nil, err
	}
	r, err := sampleStream(in, name, keep16)
	if r != nil || err != nil {
		if err != nil {
			in.Close()
		}
		return r, err
	}
	defer in.Close()
	t, info, err := readTensorInput(in, name, keep16)
	if err != nil {
		return nil, err
	}
	return &SampleReader{Shape: t.Shape, DType: t.DType, Info: info, whole: t}, nil
}

// sampleStream makes the reader of an open input whose data can be read
// in ranges (which then owns in); it returns nil and no error for the
// others, having read no more than a regular file's header.
func sampleStream(in *inputFile, name string, keep16 bool) (*SampleReader, error) {
	path := in.path
	if !in.regular() {
		return nil, nil
	}
	r := &SampleReader{Streamed: true, f: in}
	var base int64
	switch {
	case IsSafetensorsName(path):
		entries, _, off, err := readSafetensorsHeader(in.source())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		var e *SafetensorsEntry
		for i := range entries {
			if entries[i].Name == name || name == "" && len(entries) == 1 {
				e = &entries[i]
			}
		}
		if e == nil {
			return nil, nil // ReadTensor words the error: no such tensor, or several
		}
		le := binary.LittleEndian
		switch e.DType {
		case "F16":
			r.dt = npyDType{descr: "<f2", order: le, kind: 'f', size: 2}
		case "BF16":
			r.dt = npyDType{descr: "<V2", order: le, kind: 'V', size: 2}
		case "F32":
			r.dt = npyDType{descr: "<f4", order: le, kind: 'f', size: 4}
		case "F64":
			r.dt = npyDType{descr: "<f8", order: le, kind: 'f', size: 8}
		default:
			return nil, nil
		}
		if have := in.size; off+e.End > have {
			return nil, nil // truncated: ReadTensor words the error
		}
		base = off + e.Begin
		r.Shape = e.Shape
		r.Info = TensorInfo{Format: "safetensors", DType: map[string]string{"F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64"}[e.DType], Name: e.Name}
	case formatOf(in) == formatNPY:
		h, _, err := readNPYHeader(in.source())
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if (h.dt.kind != 'f' && !h.dt.bf16()) || h.fortran && len(h.shape) > 1 {
			return nil, nil
		}
		r.dt, base, r.Shape = h.dt, h.dataOff, h.shape
		r.Info = TensorInfo{Format: "npy", DType: h.dt.name()}
	default:
		return nil, nil
	}
	r.DType = r.dt.out()
	if keep16 && r.dt.size == 2 {
		r.DType = tensor.F16
		if r.dt.bf16() {
			r.DType = tensor.BF16
		}
	}
	r.src = tensor.Source{Shape: r.Shape, DType: r.DType, Name: path, Fill: fileFill(in.f, path, base)}
	return r, nil
}

// Samples is the length of the first axis (1 for a 0-d tensor).
func (r *SampleReader) Samples() int {
	if len(r.Shape) == 0 {
		return 1
	}
	return r.Shape[0]
}

// SampleElems is the number of elements of one sample.
func (r *SampleReader) SampleElems() int {
	if len(r.Shape) == 0 {
		return 1
	}
	return tensor.NumElements(r.Shape[1:])
}

// StoredSampleBytes is the size of one sample as the file stores it.
func (r *SampleReader) StoredSampleBytes() int64 {
	if r.Streamed {
		return int64(r.SampleElems()) * int64(r.dt.size)
	}
	return int64(r.SampleElems()) * int64(r.DType.Size())
}

// Read reads samples [lo, hi) into dst, which it returns: dst is reused
// when its data has room for them (a tensor of DType), else a new tensor
// is allocated. It may be called from any goroutine, not from two at once.
func (r *SampleReader) Read(lo, hi int, dst *tensor.Tensor) (*tensor.Tensor, error) {
	if lo < 0 || hi > r.Samples() || lo > hi {
		return nil, fmt.Errorf("samples [%d, %d) outside the tensor's %d", lo, hi, r.Samples())
	}
	per := r.SampleElems()
	shape := append([]int{hi - lo}, r.Shape[1:]...)
	if len(r.Shape) == 0 {
		shape = nil
	}
	n := (hi - lo) * per
	switch {
	case dst == nil || dst.DType != r.DType:
		dst = tensor.New(r.DType, shape...)
	case r.DType == tensor.F32 && cap(dst.F32) >= n:
		dst = &tensor.Tensor{Shape: shape, DType: r.DType, F32: dst.F32[:n]}
	case r.DType == tensor.F64 && cap(dst.F64) >= n:
		dst = &tensor.Tensor{Shape: shape, DType: r.DType, F64: dst.F64[:n]}
	case r.DType.Is16() && cap(dst.U16) >= n:
		dst = &tensor.Tensor{Shape: shape, DType: r.DType, U16: dst.U16[:n]}
	default:
		dst = tensor.New(r.DType, shape...)
	}
	if !r.Streamed {
		src := r.whole.Raw()
		es := r.DType.Size()
		par.Copy(dst.Raw(), src[lo*per*es:hi*per*es])
		return dst, nil
	}
	es := int64(r.dt.size)
	off := int64(lo) * int64(per) * es
	if (r.dt.kind == 'f' || r.dt.bf16()) && r.dt.order == binary.LittleEndian && r.dt.size == r.DType.Size() {
		// Stored as computed: straight into dst.
		if err := r.src.Fill(dst.Raw(), off); err != nil {
			return nil, err
		}
		return dst, nil
	}
	// Convert in pieces, each read and decoded by one goroutine.
	const grain = 1 << 20 // elements
	var mu sync.Mutex
	var first error
	par.Range(n, grain, func(a, b int) {
		buf := make([]byte, (b-a)*r.dt.size)
		if err := r.src.Fill(buf, off+int64(a)*es); err != nil {
			mu.Lock()
			if first == nil {
				first = err
			}
			mu.Unlock()
			return
		}
		switch r.DType {
		case tensor.F16, tensor.BF16: // big-endian 16-bit patterns
			for i := range dst.U16[a:b] {
				dst.U16[a+i] = r.dt.order.Uint16(buf[2*i:])
			}
		case tensor.F32:
			decodeF32(dst.F32[a:b], buf, r.dt)
		default:
			decodeF64(dst.F64[a:b], buf, r.dt)
		}
	})
	if first != nil {
		return nil, first
	}
	return dst, nil
}

// Close closes the file.
func (r *SampleReader) Close() error {
	if r.f != nil {
		return r.f.Close()
	}
	return nil
}
