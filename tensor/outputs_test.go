package tensor

import (
	"testing"
	"unsafe"
)

// TestOutputs: a nil *Outputs allocates Go memory; Alloc's memory is the
// result's, and Over shares it with the bytes it is given.
func TestOutputs(t *testing.T) {
	var none *Outputs
	if r := none.New("mean", F64, 2, 3); r.Len() != 6 || len(r.F64) != 6 {
		t.Errorf("nil Outputs: %v", r.Shape)
	}
	buf := make([]float64, 6)
	var asked string
	o := &Outputs{Alloc: func(name string, dt DType, shape []int) *Tensor {
		asked = name
		return Over(unsafe.Slice((*byte)(unsafe.Pointer(&buf[0])), 8*len(buf)), dt, shape...)
	}}
	r := o.New("cov", F64, 2, 3)
	r.F64[4] = 7
	if asked != "cov" || buf[4] != 7 || &r.Raw()[0] != (*byte)(unsafe.Pointer(&buf[0])) || !SameShape(r.Shape, []int{2, 3}) {
		t.Errorf("Alloc's memory is not the result's: asked %q, buf %v, shape %v", asked, buf, r.Shape)
	}
	for _, dt := range []DType{F32, F64, F16, BF16} {
		if e := Over(nil, dt, 0, 4); !e.HasData() || e.Len() != 0 {
			t.Errorf("%s: an empty tensor over no bytes has no data", dt)
		}
	}
}
