package formats

import (
	"bytes"
	"encoding/binary"
	"path/filepath"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestReadTensor16 reads float16 and bfloat16 files (NPY '<f2', '<V2',
// '|V2', 'bfloat16', a big-endian and a Fortran-order '>f2' written here,
// and safetensors F16 and BF16) with ReadTensor16: they keep their 16-bit
// type, and their values are ReadTensor's (widened to float32) bit for
// bit; float32 and float64 files are ReadTensor's.
func TestReadTensor16(t *testing.T) {
	npy := filepath.Join("..", "testdata", "npy")
	st := filepath.Join("..", "testdata", "safetensors", "latents.safetensors")
	// (2, 3) float16 in Fortran order, big-endian: column-major values.
	var be bytes.Buffer
	for _, v := range []float32{1, 4, 2, 5, 3, -6} {
		binary.Write(&be, binary.BigEndian, tensor.Float32ToHalf(v))
	}
	fortran := writeTemp(t, "be_f.npy", npyFile(npyDict(">f2", true, "(2, 3)"), be.Bytes()))
	for _, c := range []struct {
		path, name string
		want       tensor.DType
	}{
		{filepath.Join(npy, "f2_4.npy"), "", tensor.F16},
		{filepath.Join(npy, "bf16_ml_dtypes_2x3.npy"), "", tensor.BF16},
		{filepath.Join(npy, "bf16_void_4.npy"), "", tensor.BF16},
		{filepath.Join(npy, "bf16_named_3.npy"), "", tensor.BF16},
		{fortran, "", tensor.F16},
		{st, "latent_f16", tensor.F16},
		{st, "latent_bf16", tensor.BF16},
		{st, "latent_f32", tensor.F32},
		{st, "latent_f64", tensor.F64},
		{filepath.Join(npy, "f32_c_2x3.npy"), "", tensor.F32},
	} {
		got, info16, err := ReadTensor16(c.path, c.name)
		if err != nil {
			t.Fatalf("%s %s: %v", c.path, c.name, err)
		}
		want, info, err := ReadTensor(c.path, c.name)
		if err != nil {
			t.Fatal(err)
		}
		if got.DType != c.want || !tensor.SameShape(got.Shape, want.Shape) || info16 != info || !got.HasData() {
			t.Errorf("%s %s: %s %v %+v, want %s %v %+v", c.path, c.name, got.DType, got.Shape, info16, c.want, want.Shape, info)
			continue
		}
		g, w := got.As(want.DType).Raw(), want.Raw()
		if !bytes.Equal(g, w) {
			t.Errorf("%s %s: values differ from ReadTensor's: %v, want %v", c.path, c.name, got.Float64s(), want.Float64s())
		}
	}
	x, _, _ := ReadTensor16(fortran, "")
	if w := []float64{1, 2, 3, 4, 5, -6}; x.Shape[0] != 2 || x.Float64s()[5] != w[5] || x.Float64s()[1] != w[1] {
		t.Errorf("Fortran big-endian float16: %v", x.Float64s())
	}
}
