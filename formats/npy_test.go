package formats

import (
	"bytes"
	"encoding/binary"
	"errors"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// npyFile builds an NPY version 1.0 file by hand, following the format's
// rules: magic, version 1.0, little-endian uint16 header length, then the
// header dict padded with spaces and ended by '\n' so that the data starts
// at a multiple of 64 bytes.
func npyFile(dict string, data []byte) []byte {
	hlen := len(dict) + 1
	pad := (64 - (10+hlen)%64) % 64
	var b bytes.Buffer
	b.WriteString("\x93NUMPY\x01\x00")
	binary.Write(&b, binary.LittleEndian, uint16(hlen+pad))
	b.WriteString(dict)
	b.WriteString(strings.Repeat(" ", pad))
	b.WriteByte('\n')
	b.Write(data)
	return b.Bytes()
}

func npyDict(descr string, fortran bool, shape string) string {
	f := "False"
	if fortran {
		f = "True"
	}
	return "{'descr': '" + descr + "', 'fortran_order': " + f + ", 'shape': " + shape + ", }"
}

// encode writes values as dt ('f', 'i', 'u' or 'b' with size) in order o.
func encode(t *testing.T, o binary.ByteOrder, kind byte, size int, vals []float64) []byte {
	t.Helper()
	var b bytes.Buffer
	for _, v := range vals {
		var x any
		switch {
		case kind == 'f' && size == 4:
			x = float32(v)
		case kind == 'f' && size == 8:
			x = v
		case kind == 'i' && size == 1:
			x = int8(v)
		case kind == 'i' && size == 2:
			x = int16(v)
		case kind == 'i' && size == 4:
			x = int32(v)
		case kind == 'i' && size == 8:
			x = int64(v)
		case kind == 'u' && size == 1:
			x = uint8(v)
		case kind == 'u' && size == 2:
			x = uint16(v)
		case kind == 'u' && size == 4:
			x = uint32(v)
		case kind == 'u' && size == 8:
			x = uint64(v)
		case kind == 'b':
			x = v != 0
		default:
			t.Fatalf("encode: bad type %c%d", kind, size)
		}
		if err := binary.Write(&b, o, x); err != nil {
			t.Fatal(err)
		}
	}
	return b.Bytes()
}

func writeTemp(t testing.TB, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func seq(n int) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = float64(i)*1.25 - 3
	}
	return v
}

func TestNPYRoundTrip(t *testing.T) {
	shapes := [][]int{{}, {1}, {3, 4}, {2, 3, 5}, {0}, {2, 0, 3}}
	for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
		for _, shape := range shapes {
			name := dt.String() + tensor.ShapeString(shape)
			t.Run(name, func(t *testing.T) {
				in := tensor.FromF64(seq(tensor.NumElements(shape)), shape...).As(dt)
				if dt == tensor.F32 && len(in.F32) > 0 {
					in.F32[0] = float32(math.Inf(-1))
				}
				p := filepath.Join(t.TempDir(), "x.npy")
				if err := WriteNPY(p, in); err != nil {
					t.Fatal(err)
				}
				raw, _ := os.ReadFile(p)
				if string(raw[:8]) != "\x93NUMPY\x01\x00" {
					t.Fatalf("preamble %q, want version 1.0", raw[:8])
				}
				off := 10 + int(binary.LittleEndian.Uint16(raw[8:10]))
				if off%64 != 0 || raw[off-1] != '\n' {
					t.Errorf("data starts at %d (want a multiple of 64 after a newline)", off)
				}
				if want := off + in.Bytes(); len(raw) != want {
					t.Errorf("file is %d bytes, want %d", len(raw), want)
				}
				out, err := ReadNPY(p)
				if err != nil {
					t.Fatal(err)
				}
				if out.DType != dt || !tensor.SameShape(out.Shape, shape) || out.Len() != len(in.Float64s()) {
					t.Fatalf("read %v %v, want %v %v", out.DType, out.Shape, dt, shape)
				}
				if !reflect.DeepEqual(out.Float64s(), in.Float64s()) && out.Len() > 0 {
					t.Errorf("read %v, want %v", out.Float64s(), in.Float64s())
				}
			})
		}
	}
}

func TestReadNPYBigEndianFortran(t *testing.T) {
	// The 2x3 matrix [[0, 1, 2], [3, 4, 5]] stored column by column.
	data := encode(t, binary.BigEndian, 'f', 8, []float64{0, 3, 1, 4, 2, 5})
	p := writeTemp(t, "be.npy", npyFile(npyDict(">f8", true, "(2, 3)"), data))
	got, err := ReadNPY(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.DType != tensor.F64 || !tensor.SameShape(got.Shape, []int{2, 3}) ||
		!reflect.DeepEqual(got.F64, []float64{0, 1, 2, 3, 4, 5}) {
		t.Errorf("got %v %v %v", got.DType, got.Shape, got.F64)
	}
}

func TestReadNPYFortran3D(t *testing.T) {
	shape := []int{2, 3, 4}
	// Fortran order: element (i, j, k) at i + 2j + 6k; value 100i + 10j + k.
	f := make([]float64, 24)
	want := make([]float64, 24)
	for i := 0; i < 2; i++ {
		for j := 0; j < 3; j++ {
			for k := 0; k < 4; k++ {
				v := float64(100*i + 10*j + k)
				f[i+2*j+6*k] = v
				want[(i*3+j)*4+k] = v
			}
		}
	}
	p := writeTemp(t, "f.npy", npyFile(npyDict("<f4", true, "(2, 3, 4)"), encode(t, binary.LittleEndian, 'f', 4, f)))
	got, err := ReadNPY(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.DType != tensor.F32 || !tensor.SameShape(got.Shape, shape) || !reflect.DeepEqual(got.Float64s(), want) {
		t.Errorf("got %v %v %v\nwant %v", got.DType, got.Shape, got.Float64s(), want)
	}
	// 1-d Fortran order is the same as C order.
	p = writeTemp(t, "f1.npy", npyFile(npyDict("<f8", true, "(3,)"), encode(t, binary.LittleEndian, 'f', 8, []float64{1, 2, 3})))
	if got, err := ReadNPY(p); err != nil || !reflect.DeepEqual(got.F64, []float64{1, 2, 3}) {
		t.Errorf("1-d Fortran: %v %v", got, err)
	}
}

func TestReadNPYIntegers(t *testing.T) {
	vals := []float64{0, 1, -1, 100, -128, 127}
	uvals := []float64{0, 1, 255, 100, 7, 42}
	cases := []struct {
		descr string
		o     binary.ByteOrder
		kind  byte
		size  int
		vals  []float64
	}{
		{"|i1", binary.LittleEndian, 'i', 1, vals},
		{"<i2", binary.LittleEndian, 'i', 2, vals},
		{">i2", binary.BigEndian, 'i', 2, vals},
		{"<i4", binary.LittleEndian, 'i', 4, vals},
		{">i8", binary.BigEndian, 'i', 8, []float64{-1 << 40, 1 << 52, -3, 0, 5, 6}},
		{"|u1", binary.LittleEndian, 'u', 1, uvals},
		{">u2", binary.BigEndian, 'u', 2, []float64{65535, 1, 2, 3, 4, 5}},
		{"<u4", binary.LittleEndian, 'u', 4, []float64{4294967295, 1, 2, 3, 4, 5}},
		{"<u8", binary.LittleEndian, 'u', 8, []float64{1 << 53, 1, 2, 3, 4, 5}},
		{"|b1", binary.LittleEndian, 'b', 1, []float64{1, 0, 1, 1, 0, 0}},
	}
	for _, c := range cases {
		t.Run(c.descr, func(t *testing.T) {
			p := writeTemp(t, "i.npy", npyFile(npyDict(c.descr, false, "(2, 3)"), encode(t, c.o, c.kind, c.size, c.vals)))
			got, err := ReadNPY(p)
			if err != nil {
				t.Fatal(err)
			}
			if got.DType != tensor.F64 || !tensor.SameShape(got.Shape, []int{2, 3}) || !reflect.DeepEqual(got.F64, c.vals) {
				t.Errorf("got %v %v %v, want float64 (2, 3) %v", got.DType, got.Shape, got.F64, c.vals)
			}
		})
	}
}

func TestHalfToFloat32(t *testing.T) {
	cases := map[uint16]float32{
		0x0000: 0, 0x3c00: 1, 0xb800: -0.5, 0x7bff: 65504, 0x0001: 1.0 / (1 << 24),
		0x8001: -1.0 / (1 << 24), 0x03ff: 1023.0 / (1 << 24), 0x0400: 1.0 / (1 << 14),
		0x7c00: float32(math.Inf(1)), 0xfc00: float32(math.Inf(-1)), 0x3555: 0.333251953125,
	}
	for h, want := range cases {
		if got := halfToFloat32(h); got != want {
			t.Errorf("halfToFloat32(%#04x) = %v, want %v", h, got, want)
		}
	}
	if got := halfToFloat32(0x7e00); !math.IsNaN(float64(got)) {
		t.Errorf("halfToFloat32(NaN) = %v", got)
	}
	if got := halfToFloat32(0x8000); got != 0 || !math.Signbit(float64(got)) {
		t.Errorf("halfToFloat32(-0) = %v", got)
	}
}

// TestReadNPYNumPyFiles reads files written by NumPy itself.
func TestReadNPYNumPyFiles(t *testing.T) {
	dir := filepath.Join("..", "testdata", "npy")
	f8 := make([]float64, 24)
	for i := range f8 {
		f8[i] = float64(i)*0.5 - 1
	}
	cases := []struct {
		file  string
		dt    tensor.DType
		shape []int
		want  []float64
	}{
		{"f32_c_2x3.npy", tensor.F32, []int{2, 3}, []float64{1.5, -2, 3.25, 4, 0, -0.125}},
		{"f8_be_fortran_2x3x4.npy", tensor.F64, []int{2, 3, 4}, f8},
		{"i2_3x2.npy", tensor.F64, []int{3, 2}, []float64{-32768, 32767, 0, -1, 7, 1000}},
		{"f2_4.npy", tensor.F32, []int{4}, []float64{1, -0.5, 65504, 1.0 / (1 << 24)}},
		{"b1_3.npy", tensor.F64, []int{3}, []float64{1, 0, 1}},
		{"u1_scalar.npy", tensor.F64, []int{}, []float64{200}},
	}
	for _, c := range cases {
		got, err := ReadNPY(filepath.Join(dir, c.file))
		if err != nil {
			t.Errorf("%s: %v", c.file, err)
			continue
		}
		if got.DType != c.dt || !tensor.SameShape(got.Shape, c.shape) || !reflect.DeepEqual(got.Float64s(), c.want) {
			t.Errorf("%s: got %v %v %v, want %v %v %v", c.file, got.DType, got.Shape, got.Float64s(), c.dt, c.shape, c.want)
		}
	}
	_, err := ReadNPY(filepath.Join(dir, "c16_2.npy"))
	if err == nil || !strings.Contains(err.Error(), "'<c16'") || !strings.Contains(err.Error(), "complex") {
		t.Errorf("c16_2.npy: got error %v, want unsupported complex dtype", err)
	}
}

// TestNumPyReadsWriteNPY checks, where Python and NumPy are installed, that
// NumPy reads what WriteNPY writes.
func TestNumPyReadsWriteNPY(t *testing.T) {
	py := ""
	for _, c := range []string{"python3", "/usr/bin/python3"} {
		if p, err := exec.LookPath(c); err == nil && exec.Command(p, "-c", "import numpy").Run() == nil {
			py = p
			break
		}
	}
	if py == "" {
		t.Skip("no python3 with numpy")
	}
	dir := t.TempDir()
	a := tensor.FromF64(seq(30), 2, 3, 5)
	b := tensor.FromF32([]float32{2.5}).As(tensor.F32)
	if err := WriteNPY(filepath.Join(dir, "a.npy"), a); err != nil {
		t.Fatal(err)
	}
	if err := WriteNPY(filepath.Join(dir, "b.npy"), b); err != nil {
		t.Fatal(err)
	}
	script := `
import numpy as np, sys
a = np.load(sys.argv[1] + "/a.npy"); b = np.load(sys.argv[1] + "/b.npy")
assert a.dtype == np.float64 and a.shape == (2, 3, 5) and a.flags.c_contiguous, (a.dtype, a.shape)
assert (a.ravel() == np.arange(30) * 1.25 - 3).all()
assert b.dtype == np.float32 and b.shape == () and b == 2.5, (b.dtype, b.shape)
`
	out, err := exec.Command(py, "-c", script, dir).CombinedOutput()
	if err != nil {
		t.Fatalf("numpy could not read WriteNPY's files: %v\n%s", err, out)
	}
}

func TestReadNPYErrors(t *testing.T) {
	good := npyFile(npyDict("<f8", false, "(2, 3)"), make([]byte, 48))
	v2 := append([]byte("\x93NUMPY\x02\x00"), binary.LittleEndian.AppendUint32(nil, 1<<31)...)
	cases := []struct {
		name string
		data []byte
		want []string // substrings of the error
	}{
		{"empty", nil, []string{"not an NPY file", "bad magic"}},
		{"bad magic", []byte("PK\x03\x04 this is a zip file, not an array"), []string{"not an NPY file", "bad magic"}},
		{"text", []byte("1 2 3\n4 5 6\n"), []string{"not an NPY file"}},
		{"magic only", []byte("\x93NUMPY\x01"), []string{"truncated NPY header"}},
		{"bad version", append([]byte("\x93NUMPY\x09\x00"), good[8:]...), []string{"unsupported NPY format version 9.0"}},
		{"header longer than file", good[:40], []string{"truncated NPY header"}},
		{"v2 huge header length", v2, []string{"truncated NPY header", "2147483648"}},
		{"truncated data", good[:len(good)-5], []string{"truncated data", "(2, 3)", "6 elements", "48 bytes", "only 43 bytes"}},
		{"no data", good[:len(good)-48], []string{"truncated data", "only 0 bytes"}},
		{"unsupported complex", npyFile(npyDict("<c16", false, "(2,)"), make([]byte, 32)),
			[]string{"unsupported dtype", "'<c16'", "complex", "supported: float32, float64"}},
		{"unsupported object", npyFile(npyDict("|O", false, "(2,)"), make([]byte, 16)), []string{"unsupported dtype", "'|O'", "object"}},
		{"unsupported unicode", npyFile(npyDict("<U5", false, "(2,)"), make([]byte, 40)), []string{"unsupported dtype", "'<U5'", "unicode"}},
		{"unsupported f16", npyFile(npyDict("<f16", false, "(2,)"), make([]byte, 32)), []string{"unsupported dtype", "'<f16'"}},
		{"structured", npyFile("{'descr': [('x', '<f4'), ('y', '<f4')], 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)),
			[]string{"unsupported dtype", "structured"}},
		{"huge shape", npyFile(npyDict("<f8", false, "(1000000, 1000000, 1000000)"), make([]byte, 8)), []string{"truncated data"}},
		{"overflowing shape", npyFile(npyDict("<f8", false, "(4611686018427387904, 4611686018427387904)"), nil), []string{"truncated data"}},
		{"shape not a number", npyFile(npyDict("<f8", false, "(99999999999999999999999,)"), nil), []string{"malformed NPY header"}},
		{"negative shape", npyFile(npyDict("<f8", false, "(-1, 2)"), nil), []string{"negative dimension"}},
		{"no newline", []byte("\x93NUMPY\x01\x00\x05\x00{    "), []string{"malformed NPY header", "newline"}},
		{"garbage header", npyFile("hello world", nil), []string{"malformed NPY header"}},
		{"keys out of order", npyFile("{'shape': (2,), 'fortran_order': False, 'descr': '<f8', }", make([]byte, 16)), []string{"NPY header"}},
		{"bad fortran_order", npyFile(npyDict("<f8", false, "(2,)")[:0]+"{'descr': '<f8', 'fortran_order': 1, 'shape': (2,), }", make([]byte, 16)), []string{"malformed NPY header"}},
		// Issue 34: messages in the header's words, not Go's ("slice bounds
		// out of range [:-3]", `strconv.Atoi: parsing "4)"`).
		{"shape a number", npyFile(npyDict("<f8", false, "(4)"), make([]byte, 32)),
			[]string{`'shape' (4) is a number, not a tuple: a 1-d shape is written (4,)`}},
		{"shape without (", npyFile(npyDict("<f8", false, "4)"), make([]byte, 32)), []string{`'shape' is not a tuple of integers such as (3, 4): "4), }"`}},
		{"shape unclosed", npyFile(npyDict("<f8", false, "(4,"), make([]byte, 32)), []string{`'shape' is not a tuple of integers such as (3, 4): "(4,, }"`}},
		{"shape empty", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': }", nil), []string{`'shape' is not a tuple of integers`}},
		{"dimension too large", npyFile(npyDict("<f8", false, "(99999999999999999999,)"), nil), []string{"'shape' has a dimension too large, 99999999999999999999"}},
		{"no shape", npyFile("{'descr': '<f8', 'fortran_order': False}", nil), []string{"want 'shape' after 'fortran_order'", "NumPy writes {'descr': '<f8'"}},
		{"fortran_order Maybe", npyFile("{'descr': '<f8', 'fortran_order': Maybe, 'shape': (2,), }", make([]byte, 16)), []string{`'fortran_order' is "Maybe"; want True or False`}},
		{"descr unquoted", npyFile("{'descr': f8, 'fortran_order': False, 'shape': (2,), }", make([]byte, 16)), []string{"'descr' is not a quoted type such as '<f8'"}},
		{"after shape", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2,), 'x': 1}", make([]byte, 16)), []string{`want } after 'shape', got "'x': 1}"`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := writeTemp(t, "bad.npy", c.data)
			got, err := ReadNPY(p)
			if err == nil {
				t.Fatalf("no error; read %v %v", got.Shape, got.Float64s())
			}
			msg := err.Error()
			t.Log(msg)
			if !strings.HasPrefix(msg, p+": ") {
				t.Errorf("error %q does not start with the file name", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}

	// np.load reads a header without the comma after the last entry.
	if a, err := ReadNPY(writeTemp(t, "comma.npy", npyFile("{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3)}", make([]byte, 48)))); err != nil || tensor.ShapeString(a.Shape) != "(2, 3)" {
		t.Errorf("header without the trailing comma: %v %v", a, err)
	}

	t.Run("missing file", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "nope.npy")
		_, err := ReadNPY(p)
		if !errors.Is(err, fs.ErrNotExist) || !strings.Contains(err.Error(), "open "+p) {
			t.Errorf("got %v, want a not-exist error naming %s", err, p)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if _, err := ReadNPY(t.TempDir()); err == nil {
			t.Error("reading a directory: no error")
		}
	})
}

func TestReadNPYTrailingBytesIgnored(t *testing.T) {
	// np.save twice to one file appends a second array; numpy.load reads
	// the first.
	f := npyFile(npyDict("<f8", false, "(2,)"), encode(t, binary.LittleEndian, 'f', 8, []float64{1, 2}))
	f = append(f, npyFile(npyDict("<f4", false, "(1,)"), make([]byte, 4))...)
	got, err := ReadNPY(writeTemp(t, "two.npy", f))
	if err != nil || !reflect.DeepEqual(got.F64, []float64{1, 2}) {
		t.Errorf("got %v, %v", got, err)
	}
}

func TestReadNPYVersion2And3(t *testing.T) {
	for _, major := range []byte{2, 3} {
		dict := npyDict("<f4", false, "(2,)")
		hlen := len(dict) + 1
		pad := (64 - (12+hlen)%64) % 64
		b := append([]byte("\x93NUMPY"), major, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(hlen+pad))
		b = append(b, dict+strings.Repeat(" ", pad)+"\n"...)
		b = append(b, encode(t, binary.LittleEndian, 'f', 4, []float64{1, -1})...)
		got, err := ReadNPY(writeTemp(t, "v.npy", b))
		if err != nil || !reflect.DeepEqual(got.F32, []float32{1, -1}) {
			t.Errorf("version %d.0: got %v, %v", major, got, err)
		}
	}
}

func TestWriteNPYErrors(t *testing.T) {
	dir := t.TempDir()
	// Target directory missing: an error, nothing created.
	p := filepath.Join(dir, "missing", "x.npy")
	err := WriteNPY(p, tensor.New(tensor.F32, 2))
	if err == nil || !strings.Contains(err.Error(), "does not exist") || !strings.Contains(err.Error(), p) {
		t.Errorf("missing directory: got %v", err)
	}
	// A tensor whose data does not match its shape: error, no file, no temp.
	p = filepath.Join(dir, "bad.npy")
	bad := &tensor.Tensor{Shape: []int{3, 3}, DType: tensor.F64, F64: make([]float64, 8)}
	if err := WriteNPY(p, bad); err == nil {
		t.Error("mismatched tensor: no error")
	}
	if err := WriteNPY(p, nil); err == nil {
		t.Error("nil tensor: no error")
	}
	assertDir(t, dir, nil)
}

// FuzzReadNPY feeds arbitrary bytes to ReadNPY: it must never panic, and what
// it accepts must be a consistent tensor that survives a write/read round trip.
func FuzzReadNPY(f *testing.F) {
	le := binary.LittleEndian
	f.Add(npyFile(npyDict("<f8", false, "(2, 3)"), make([]byte, 48)))
	f.Add(npyFile(npyDict(">f4", true, "(2, 2)"), make([]byte, 16)))
	f.Add(npyFile(npyDict("<i2", false, "(3,)"), make([]byte, 6)))
	f.Add(npyFile(npyDict("|b1", false, "()"), []byte{1}))
	f.Add(npyFile(npyDict("<f2", true, "(1, 2, 1)"), []byte{0, 0x3c, 0, 0xfc}))
	f.Add(npyFile(npyDict("<c16", false, "(1,)"), make([]byte, 16)))
	f.Add(npyFile(npyDict("<V2", false, "(2,)"), []byte{0xc0, 0x3f, 0x80, 0x7f}))
	f.Add(npyFile(npyDict("bfloat16", true, "(1, 1)"), []byte{0x80, 0xbf}))
	f.Add(npyFile(npyDict("<f8", false, "(1000000, 1000000)"), make([]byte, 8)))
	f.Add(npyFile(npyDict("<f8", false, "(-3,)"), nil))
	f.Add(npyFile("{'shape': (2,), 'fortran_order': False, 'descr': '<f8', }", make([]byte, 16)))
	f.Add(npyFile("{'descr': '', 'fortran_order': False, 'shape': (), }", nil))
	f.Add(append([]byte("\x93NUMPY\x02\x00"), le.AppendUint32(nil, 0xffffffff)...))
	f.Add([]byte("\x93NUMPY\x01\x00\x05\x00{    "))
	f.Add([]byte("\x93NUMPY"))
	f.Add([]byte{})
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "fuzz.npy")
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := ReadNPY(p)
		if err != nil {
			if !strings.HasPrefix(err.Error(), p+": ") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		n := 1
		for _, s := range got.Shape {
			if s < 0 {
				t.Fatalf("negative shape %v", got.Shape)
			}
			n *= s
		}
		if n > len(data) {
			t.Fatalf("%d elements from %d bytes", n, len(data))
		}
		if (got.DType == tensor.F32 && (len(got.F32) != n || got.F64 != nil)) ||
			(got.DType == tensor.F64 && (len(got.F64) != n || got.F32 != nil)) {
			t.Fatalf("inconsistent tensor: %v %v %d/%d values", got.DType, got.Shape, len(got.F32), len(got.F64))
		}
		var buf bytes.Buffer
		if err := EncodeNPY(&buf, got); err != nil {
			t.Fatal(err)
		}
		again, err := decodeNPY(bytesSource(buf.Bytes()))
		if err != nil {
			t.Fatal(err)
		}
		if again.DType != got.DType || !tensor.SameShape(again.Shape, got.Shape) {
			t.Fatalf("round trip: %v %v, want %v %v", again.DType, again.Shape, got.DType, got.Shape)
		}
		a, b := again.Float64s(), got.Float64s()
		for i := range a {
			if math.Float64bits(a[i]) != math.Float64bits(b[i]) {
				t.Fatalf("round trip: element %d is %v, want %v", i, a[i], b[i])
			}
		}
	})
}

// TestReadNPYLarge: data larger than one piece of the parallel read (4 MiB),
// not a multiple of it, read into the right places (each value is its own
// index), from a file built by hand; and EncodeNPY writes the same bytes
// back (it writes the tensor's memory as is).
func TestReadNPYLarge(t *testing.T) {
	const n = 9<<20/8 + 3 // float64: two whole pieces and a short third
	data := make([]byte, 8*n)
	for i := range n {
		binary.LittleEndian.PutUint64(data[8*i:], math.Float64bits(float64(i)))
	}
	file := npyFile(npyDict("<f8", false, "(3, "+strconv.Itoa(n/3)+")"), data)
	got, err := ReadNPY(writeTemp(t, "large.npy", file))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Shape, []int{3, n / 3}) || len(got.F64) != n {
		t.Fatalf("shape %v, %d values", got.Shape, len(got.F64))
	}
	for i, v := range got.F64 {
		if v != float64(i) {
			t.Fatalf("value %d is %v", i, v)
		}
	}
	var back bytes.Buffer
	if err := EncodeNPY(&back, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(back.Bytes(), file) {
		t.Error("EncodeNPY's bytes differ from the file read")
	}
}

// TestEncodeNPYToFile: written to a file (which EncodeNPY preallocates,
// from the file's offset, keeping its size), at its start and after other
// bytes, the file holds exactly what EncodeNPY writes to memory.
func TestEncodeNPYToFile(t *testing.T) {
	x := tensor.FromF32([]float32{1, -2.5, 3, 1e30, 0, 7}, 2, 3)
	var want bytes.Buffer
	if err := EncodeNPY(&want, x); err != nil {
		t.Fatal(err)
	}
	for _, lead := range []string{"", "some bytes before"} {
		p := filepath.Join(t.TempDir(), "x.npy")
		f, err := os.Create(p)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(lead)
		if err := EncodeNPY(f, x); err != nil {
			t.Fatal(err)
		}
		f.Close()
		got, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, append([]byte(lead), want.Bytes()...)) {
			t.Errorf("lead %q: the file holds %d bytes, want %d", lead, len(got), len(lead)+want.Len())
		}
	}
}
