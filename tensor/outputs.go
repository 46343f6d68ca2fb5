package tensor

import "unsafe"

// Outputs gives a pipeline's results their memory: where the front end's
// caller wants them (the C ABI asks Python for NumPy arrays, and the
// pipeline writes into those), else new Go memory. A nil *Outputs, the
// default, allocates with New.
//
// The memory Alloc gives is not zeroed: a pipeline that makes its results
// with Outputs.New writes every element of them.
type Outputs struct {
	// Alloc returns the result named name (a pipeline's name for it:
	// "mean", "cov", "l", ...), of dt and shape, over the caller's memory.
	// It does not fail: a front end whose caller refuses the memory
	// returns Go memory and reports the refusal itself.
	Alloc func(name string, dt DType, shape []int) *Tensor
}

// New is result name of dt and shape: o.Alloc's, or New's when o is nil.
func (o *Outputs) New(name string, dt DType, shape ...int) *Tensor {
	if o == nil || o.Alloc == nil {
		return New(dt, shape...)
	}
	return o.Alloc(name, dt, shape)
}

// Over is a tensor of dt and shape over b, which holds exactly its bytes
// and is aligned to dt's size: Raw's inverse, sharing memory with b.
func Over(b []byte, dt DType, shape ...int) *Tensor {
	t := &Tensor{Shape: append([]int{}, shape...), DType: dt}
	n := len(b) / dt.Size()
	p := unsafe.Pointer(unsafe.SliceData(b))
	switch {
	case dt == F64 && n == 0:
		t.F64 = []float64{}
	case dt == F64:
		t.F64 = unsafe.Slice((*float64)(p), n)
	case dt.Is16() && n == 0:
		t.U16 = []uint16{}
	case dt.Is16():
		t.U16 = unsafe.Slice((*uint16)(p), n)
	case n == 0:
		t.F32 = []float32{}
	default:
		t.F32 = unsafe.Slice((*float32)(p), n)
	}
	return t
}
