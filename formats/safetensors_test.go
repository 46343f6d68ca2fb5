package formats

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// stFile builds a safetensors file: the 8-byte little-endian length of
// header, header, then data.
func stFile(header string, data []byte) []byte {
	b := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	b = append(b, header...)
	return append(b, data...)
}

// TestSafetensorsHandMade reads a file whose every byte is written out
// here: two F16 values 1 and −2 (0x3c00, 0xc000), one BF16 value 1.5
// (0x3fc0) and one F64 value 0.25 (0x3fd0000000000000).
func TestSafetensorsHandMade(t *testing.T) {
	header := `{"a":{"dtype":"F16","shape":[2],"data_offsets":[0,4]},` +
		`"b":{"dtype":"BF16","shape":[1,1],"data_offsets":[4,6]},` +
		`"c":{"dtype":"F64","shape":[],"data_offsets":[6,14]},"__metadata__":{"k":"v"}}  `
	data := []byte{
		0x00, 0x3c, 0x00, 0xc0, // a: 1, -2 (little-endian binary16)
		0xc0, 0x3f, // b: 1.5 (bfloat16: the top 16 bits of float32 0x3fc00000)
		0, 0, 0, 0, 0, 0, 0xd0, 0x3f, // c: 0.25
	}
	file := stFile(header, data)
	if len(file) != 8+len(header)+14 || file[0] != byte(len(header)) {
		t.Fatalf("the hand-made file is %d bytes", len(file))
	}
	p := writeTemp(t, "hand.safetensors", file)
	cases := []struct {
		name  string
		dt    tensor.DType
		shape []int
		want  []float64
	}{
		{"a", tensor.F32, []int{2}, []float64{1, -2}},
		{"b", tensor.F32, []int{1, 1}, []float64{1.5}},
		{"c", tensor.F64, []int{}, []float64{0.25}},
	}
	for _, c := range cases {
		got, e, err := ReadSafetensors(p, c.name)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.DType != c.dt || !tensor.SameShape(got.Shape, c.shape) || !reflect.DeepEqual(got.Float64s(), c.want) || e.Name != c.name {
			t.Errorf("%s: got %v %v %v, want %v %v %v", c.name, got.DType, got.Shape, got.Float64s(), c.dt, c.shape, c.want)
		}
	}
	entries, meta, err := ListSafetensors(p)
	if err != nil || len(entries) != 3 || meta["k"] != "v" || entries[1].DType != "BF16" || entries[2].Begin != 6 {
		t.Errorf("ListSafetensors: %v %v %v", entries, meta, err)
	}
	// No name with three tensors: an error naming them all.
	if _, _, err := ReadSafetensors(p, ""); err == nil || !strings.Contains(err.Error(), `"b" BF16 (1, 1)`) {
		t.Errorf("no name: %v", err)
	}
}

// TestSafetensorsNumPyFile reads testdata/safetensors/latents.safetensors
// (make.py: the same values in F16, BF16, F32, F64) against latent_ref.npy,
// written by NumPy.
func TestSafetensorsNumPyFile(t *testing.T) {
	dir := filepath.Join("..", "testdata", "safetensors")
	p := filepath.Join(dir, "latents.safetensors")
	ref, err := ReadNPY(filepath.Join(dir, "latent_ref.npy"))
	if err != nil {
		t.Fatal(err)
	}
	refBF, err := ReadNPY(filepath.Join(dir, "latent_ref_bf16.npy"))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]*tensor.Tensor{"latent_f16": ref, "latent_f32": ref, "latent_f64": ref.As(tensor.F64), "latent_bf16": refBF} {
		got, info, err := ReadTensor(p, name)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if !sameTensor(got, want) {
			t.Errorf("%s: got %v %v %v, want %v", name, got.DType, got.Shape, got.Float64s()[:4], want.Float64s()[:4])
		}
		wantDT := map[string]string{"latent_f16": "float16", "latent_bf16": "bfloat16", "latent_f32": "float32", "latent_f64": "float64"}[name]
		if info.Format != "safetensors" || info.Name != name || info.DType != wantDT {
			t.Errorf("%s: info %+v", name, info)
		}
	}
	got, _, err := ReadSafetensors(p, "scalar")
	if err != nil || len(got.Shape) != 0 || got.F32[0] != 2.5 {
		t.Errorf("scalar: %v %v", got, err)
	}
	_, _, err = ReadSafetensors(p, "ids")
	if err == nil || !strings.Contains(err.Error(), "I64") || !strings.Contains(err.Error(), "supported: F16, BF16") {
		t.Errorf("I64 tensor: %v", err)
	}
	_, _, err = ReadSafetensors(p, "latent")
	if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), `no tensor "latent"`) ||
		!strings.Contains(err.Error(), `"latent_bf16" BF16 (2, 3, 4)`) || !strings.Contains(err.Error(), `"scalar" F32 ()`) {
		t.Errorf("unknown name: %v", err)
	}
	if _, _, err := ReadTensor(filepath.Join(dir, "latent_ref.npy"), "x"); err == nil || !strings.Contains(err.Error(), "only for safetensors") {
		t.Errorf("a name for an NPY file: %v", err)
	}
}

func TestSafetensorsErrors(t *testing.T) {
	ok := `{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`
	cases := []struct {
		what string
		file []byte
		want string
	}{
		{"empty", nil, "fewer than the 8"},
		{"short length", []byte{1, 2, 3}, "fewer than the 8"},
		{"huge header", binary.LittleEndian.AppendUint64(nil, 1<<40), "not a safetensors file: header length"},
		{"header past the end", append(binary.LittleEndian.AppendUint64(nil, 100), "{}"...), "truncated safetensors file: the header is 100 bytes"},
		{"not JSON", stFile("[1, 2]", nil), "does not start with '{'"},
		{"bad JSON", stFile(`{"x":`, nil), "malformed safetensors header (JSON)"},
		{"missing field", stFile(`{"x":{"dtype":"F32","shape":[2]}}`, nil), "needs dtype, shape and data_offsets"},
		{"unknown dtype", stFile(`{"x":{"dtype":"F12","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8)), `unknown dtype "F12"`},
		{"offsets vs shape", stFile(`{"x":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, make([]byte, 12)), "is 12 bytes, but data_offsets [0, 8] span 8"},
		{"reversed offsets", stFile(`{"x":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, make([]byte, 8)), "invalid data_offsets"},
		{"negative dim", stFile(`{"x":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, nil), "negative dimension"},
		{"overflowing shape", stFile(`{"x":{"dtype":"F32","shape":[4294967296,4294967296],"data_offsets":[0,8]}}`, nil), "too large"},
		{"overlap", stFile(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F16","shape":[2],"data_offsets":[6,10]}}`, make([]byte, 10)),
			`"x" [0, 8) and "y" [6, 10) overlap`},
		{"truncated data", stFile(ok, make([]byte, 7)), "truncated safetensors file: tensor \"x\" needs bytes up to 8 of the data buffer, the file has 7"},
		{"bad metadata", stFile(`{"__metadata__":{"a":1},"x":{"dtype":"F32","shape":[0],"data_offsets":[0,0]}}`, nil), "__metadata__ must map strings"},
	}
	for _, c := range cases {
		p := writeTemp(t, "bad.safetensors", c.file)
		_, _, err := ReadSafetensors(p, "x")
		if err == nil || !strings.HasPrefix(err.Error(), p+": ") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want an error with %q", c.what, err, c.want)
		}
	}
	// A good file, with a gap and trailing bytes, reads.
	good := stFile(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}`, []byte{9, 9, 9, 9, 0, 0, 0x80, 0x3f, 0, 0, 0, 0x40, 7})
	got, _, err := ReadSafetensors(writeTemp(t, "ok.safetensors", good), "x")
	if err != nil || !reflect.DeepEqual(got.F32, []float32{1, 2}) {
		t.Errorf("good file: %v %v", got, err)
	}
}

// FuzzReadSafetensors feeds arbitrary bytes to the safetensors reader, from
// a file and as a stream: it must never panic, errors must name the file,
// and an accepted tensor must be consistent and no larger than the file.
func FuzzReadSafetensors(f *testing.F) {
	f.Add(stFile(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}`, make([]byte, 8)), "x")
	f.Add(stFile(`{"x":{"dtype":"BF16","shape":[1,2],"data_offsets":[0,4]},"__metadata__":{"a":"b"}}`, make([]byte, 4)), "x")
	f.Add(stFile(`{"x":{"dtype":"F16","shape":[],"data_offsets":[2,4]},"y":{"dtype":"F64","shape":[1],"data_offsets":[4,12]}}`, make([]byte, 12)), "y")
	f.Add(stFile(`{"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"y":{"dtype":"F16","shape":[2],"data_offsets":[6,10]}}`, make([]byte, 10)), "")
	f.Add(stFile(`{"x":{"dtype":"F32","shape":[1000000000],"data_offsets":[0,4000000000]}}`, make([]byte, 8)), "x")
	if b, err := os.ReadFile(filepath.Join("..", "testdata", "safetensors", "latents.safetensors")); err == nil {
		f.Add(b, "latent_bf16")
	}
	f.Add([]byte{}, "")
	setFuzzStreamLimit(f)
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte, name string) {
		p := filepath.Join(dir, "fuzz.safetensors")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := ReadSafetensors(p, name)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p+": ") {
				t.Errorf("error %q does not name the file", err)
			}
		} else {
			n := tensor.NumElements(got.Shape)
			if n > len(data) || (got.DType == tensor.F32 && len(got.F32) != n) || (got.DType == tensor.F64 && len(got.F64) != n) {
				t.Fatalf("inconsistent tensor %v %v from %d bytes", got.DType, got.Shape, len(data))
			}
		}
		want, _, werr := decodeSafetensors(bytesSource(data), name)
		stream, _, serr := decodeSafetensors(newStreamSource(bytes.NewReader(data), "not a regular file"), name)
		checkStream(t, "", len(data), stream, serr, want, werr)
		if (err == nil) != (werr == nil) || (err == nil && !sameTensor(got, want)) {
			t.Fatalf("file: %v; memory: %v", err, werr)
		}
	})
}

// TestReadNPYBFloat16 reads the bfloat16 files NumPy wrote (make_bf16.py):
// '<V2', as np.save writes ml_dtypes' bfloat16 arrays, '|V2' and
// 'bfloat16'.
func TestReadNPYBFloat16(t *testing.T) {
	dir := filepath.Join("..", "testdata", "npy")
	vals := []float64{1, -0.5, 3.140625, 65536, math.Inf(-1), math.Ldexp(1, -133)}
	cases := []struct {
		file  string
		shape []int
		want  []float64
	}{
		{"bf16_ml_dtypes_2x3.npy", []int{2, 3}, vals},
		{"bf16_void_4.npy", []int{4}, vals[:4]},
		{"bf16_named_3.npy", []int{3}, []float64{math.NaN(), math.Ldexp(1, -133), math.Copysign(0, -1)}},
	}
	for _, c := range cases {
		p := filepath.Join(dir, c.file)
		got, info, err := ReadTensor(p, "")
		if err != nil {
			t.Fatalf("%s: %v", c.file, err)
		}
		if info.DType != "bfloat16" || info.Format != "npy" || got.DType != tensor.F32 || !tensor.SameShape(got.Shape, c.shape) {
			t.Fatalf("%s: %+v %v %v", c.file, info, got.DType, got.Shape)
		}
		for i, w := range c.want {
			g := got.Float64s()[i]
			if math.Float64bits(g) != math.Float64bits(w) && !(math.IsNaN(g) && math.IsNaN(w)) {
				t.Errorf("%s[%d] = %v, want %v", c.file, i, g, w)
			}
		}
	}
	// float16 keeps its name too; a 4-byte void is still refused.
	if _, info, err := ReadTensor(filepath.Join(dir, "f2_4.npy"), ""); err != nil || info.DType != "float16" {
		t.Errorf("f2_4.npy: %+v %v", info, err)
	}
	p := writeTemp(t, "v4.npy", npyFile(npyDict("|V4", false, "(1,)"), make([]byte, 4)))
	if _, err := ReadNPY(p); err == nil || !strings.Contains(err.Error(), "raw or structured") {
		t.Errorf("|V4: %v", err)
	}
	// Big-endian bfloat16 ('>V2'): 1.5 is 0x3fc0.
	p = writeTemp(t, "be.npy", npyFile(npyDict(">V2", false, "(1,)"), []byte{0x3f, 0xc0}))
	if got, err := ReadNPY(p); err != nil || got.F32[0] != 1.5 {
		t.Errorf(">V2: %v %v", got, err)
	}
}

// TestEncodeSafetensors writes two tensors and reads them back, and checks
// the header's padding and offsets.
func TestEncodeSafetensors(t *testing.T) {
	var b bytes.Buffer
	half := []byte{0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38} // 1, -2, 0.5
	f64 := binary.LittleEndian.AppendUint64(nil, math.Float64bits(-0.75))
	err := EncodeSafetensors(&b, []SafetensorsTensor{{"h", "F16", []int{1, 3}, half}, {"s", "F64", nil, f64}}, map[string]string{"by": "test"})
	if err != nil {
		t.Fatal(err)
	}
	file := b.Bytes()
	n := binary.LittleEndian.Uint64(file)
	if n%8 != 0 || int(n)+8+14 != len(file) {
		t.Fatalf("header length %d, file %d bytes", n, len(file))
	}
	p := writeTemp(t, "w.safetensors", file)
	h, _, err := ReadSafetensors(p, "h")
	s, _, err2 := ReadSafetensors(p, "s")
	if err != nil || err2 != nil || !reflect.DeepEqual(h.F32, []float32{1, -2, 0.5}) || len(s.Shape) != 0 || s.F64[0] != -0.75 {
		t.Fatalf("read back: %v %v %v %v", h, s, err, err2)
	}
	if err := EncodeSafetensors(&b, []SafetensorsTensor{{"x", "F32", []int{2}, make([]byte, 4)}}, nil); err == nil {
		t.Error("short data accepted")
	}
	if err := EncodeSafetensors(&b, []SafetensorsTensor{{"__metadata__", "F32", nil, make([]byte, 4)}}, map[string]string{"a": "b"}); err == nil {
		t.Error("reserved name accepted")
	}
}

// TestTensorEncoder: a bf16 tensor written under a safetensors name is
// read back (ReadTensor16) as the tensor named, with its metadata, and
// under a .npy name as NPY; another name has no encoder.
func TestTensorEncoder(t *testing.T) {
	x := tensor.FromF64([]float64{1, -2, 0.5, 4}, 2, 2).As(tensor.BF16)
	dir := t.TempDir()
	for _, name := range []string{"x.SafeTensors", "x.npy"} {
		path := filepath.Join(dir, name)
		enc, ok := TensorEncoder(path, "lat")
		if !ok {
			t.Fatalf("%s: no encoder", name)
		}
		var b bytes.Buffer
		if err := enc(&b, x, map[string]string{"k": "v"}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		got, info, err := ReadTensor16(path, map[bool]string{true: "lat"}[IsSafetensorsName(path)])
		if err != nil || got.DType != tensor.BF16 || !reflect.DeepEqual(got.Shape, []int{2, 2}) || info.DType != "bfloat16" {
			t.Errorf("%s: %v %v, %+v", name, got, err, info)
			continue
		}
		if IsSafetensorsName(path) {
			if _, meta, err := ListSafetensors(path); err != nil || meta["k"] != "v" {
				t.Errorf("%s: metadata %v, %v", name, meta, err)
			}
		}
	}
	if _, ok := TensorEncoder("x.fits", ""); ok {
		t.Error("an encoder for x.fits")
	}
}
