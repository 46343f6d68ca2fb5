package formats

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestSampleReader: every sample range read from NPY (float16, bfloat16,
// float32, big-endian float64, Fortran order) and safetensors files equals
// the same samples of the tensor ReadTensor reads whole.
func TestSampleReader(t *testing.T) {
	dir := t.TempDir()
	shape := []int{5, 3, 2, 4}
	n := tensor.NumElements(shape)
	vals := make([]float32, n)
	for i := range vals {
		vals[i] = float32(math.Sin(float64(i))*3 + 0.25)
	}
	raw := func(size int, order binary.ByteOrder, put func(b []byte, v float32)) []byte {
		b := make([]byte, n*size)
		for i, v := range vals {
			put(b[i*size:], v)
		}
		return b
	}
	le, be := binary.LittleEndian, binary.BigEndian
	files := map[string][]byte{}
	npy := func(name, descr string, data []byte, fortran bool) {
		var w bytes.Buffer
		if err := EncodeRawNPY(&w, descr, shape, data); err != nil {
			t.Fatal(err)
		}
		b := w.Bytes()
		if fortran {
			b = bytes.Replace(b, []byte("False, 'shape': (5, 3, 2, 4), }"), []byte("True, 'shape': (5, 3, 2, 4), } "), 1)
		}
		files[name] = b
	}
	f16 := raw(2, le, func(b []byte, v float32) { le.PutUint16(b, tensor.Float32ToHalf(v)) })
	bf16 := raw(2, le, func(b []byte, v float32) { le.PutUint16(b, tensor.Float32ToBFloat16(v)) })
	f16be := raw(2, be, func(b []byte, v float32) { be.PutUint16(b, tensor.Float32ToHalf(v)) })
	f32 := raw(4, le, func(b []byte, v float32) { le.PutUint32(b, math.Float32bits(v)) })
	f64be := raw(8, be, func(b []byte, v float32) { be.PutUint64(b, math.Float64bits(float64(v)*1.1)) })
	npy("f16.npy", "<f2", f16, false)
	npy("f16be.npy", ">f2", f16be, false)
	npy("bf16.npy", "<V2", bf16, false)
	npy("f32.npy", "<f4", f32, false)
	npy("f64be.npy", ">f8", f64be, false)
	npy("fortran.npy", "<f4", f32, true)
	var st bytes.Buffer
	if err := EncodeSafetensors(&st, []SafetensorsTensor{{Name: "a", DType: "BF16", Shape: shape, Data: bf16}, {Name: "b", DType: "F32", Shape: shape, Data: f32}}, nil); err != nil {
		t.Fatal(err)
	}
	files["two.safetensors"] = st.Bytes()
	for name, b := range files {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		file, tensor string
		streamed     bool
	}{{"f16.npy", "", true}, {"f16be.npy", "", true}, {"bf16.npy", "", true}, {"f32.npy", "", true}, {"f64be.npy", "", true}, {"fortran.npy", "", false},
		{"two.safetensors", "a", true}, {"two.safetensors", "b", true}}
	// OpenSamples16 reads as ReadTensor16 (16-bit data kept 16-bit).
	for _, c := range cases {
		for _, keep16 := range []bool{false, true} {
			readSamplesCase(t, filepath.Join(dir, c.file), c.tensor, c.streamed, keep16, shape)
		}
	}
	if _, err := OpenSamples(filepath.Join(dir, "two.safetensors"), ""); err == nil {
		t.Error("a safetensors file of two tensors opens without a name")
	}
	if _, err := OpenSamples(filepath.Join(dir, "two.safetensors"), "c"); err == nil {
		t.Error("an unknown tensor name opens")
	}
}

// readSamplesCase reads every range of samples of one file and holds them
// to the whole tensor read at once.
func readSamplesCase(t *testing.T, path, name string, streamed, keep16 bool, shape []int) {
	t.Helper()
	n := tensor.NumElements(shape)
	readWhole, open := ReadTensor, OpenSamples
	if keep16 {
		readWhole, open = ReadTensor16, OpenSamples16
	}
	file := filepath.Base(path)
	whole, info, err := readWhole(path, name)
	if err != nil {
		t.Fatal(err)
	}
	r, err := open(path, name)
	if err != nil {
		t.Fatal(err)
	}
	if r.Streamed != streamed || r.DType != whole.DType || !tensor.SameShape(r.Shape, whole.Shape) || r.Info != info {
		t.Errorf("%s %s: streamed %v dtype %v shape %v info %+v; want %v %v %v %+v", file, name, r.Streamed, r.DType, r.Shape, r.Info,
			streamed, whole.DType, whole.Shape, info)
	}
	var buf *tensor.Tensor
	per := n / shape[0]
	for lo := 0; lo < shape[0]; lo++ {
		for hi := lo; hi <= shape[0]; hi++ {
			if buf, err = r.Read(lo, hi, buf); err != nil {
				t.Fatal(err)
			}
			got, want := buf.Float64s(), whole.Float64s()[lo*per:hi*per]
			if len(got) != len(want) || buf.Shape[0] != hi-lo {
				t.Fatalf("%s [%d, %d): %d values, shape %v", file, lo, hi, len(got), buf.Shape)
			}
			for i := range got {
				if got[i] != want[i] {
					t.Fatalf("%s %s keep16 %v [%d, %d): value %d is %v, want %v", file, name, keep16, lo, hi, i, got[i], want[i])
				}
			}
		}
	}
	if _, err := r.Read(2, 6, nil); err == nil {
		t.Errorf("%s: a range past the end reads", file)
	}
	r.Close()
}
