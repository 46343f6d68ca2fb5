package formats

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestEncode16: float16 and bfloat16 tensors write as '<f2' and '<V2' NPY
// and as F16 and BF16 safetensors, and read back (widened exactly) as the
// values rounded to 16 bits: 1.5 and -2 exactly, 0.1 to the nearest.
func TestEncode16(t *testing.T) {
	dir := t.TempDir()
	x := tensor.FromF64([]float64{1.5, -2, 0.1}, 3)
	for _, c := range []struct {
		dt          tensor.DType
		descr, name string
		tenth       float32 // 0.1 rounded to the type
	}{{tensor.F16, "<f2", "F16", 0.099975586}, {tensor.BF16, "<V2", "BF16", 0.10009765625}} {
		h := x.As(c.dt)
		p := filepath.Join(dir, c.name+".npy")
		if err := WriteNPY(p, h); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		got, err := ReadNPY(p)
		if err != nil || !strings.Contains(string(b[:64]), "'descr': '"+c.descr+"'") || !slices.Equal(got.As(tensor.F32).F32, []float32{1.5, -2, c.tenth}) {
			t.Errorf("%s NPY: %v, %v", c.name, got, err)
		}
		sp := filepath.Join(dir, c.name+".safetensors")
		f, _ := os.Create(sp)
		if err := EncodeSafetensors(f, []SafetensorsTensor{SafetensorsOf("x", h)}, nil); err != nil {
			t.Fatal(err)
		}
		f.Close()
		st, e, err := ReadSafetensors(sp, "x")
		if err != nil || e.DType != c.name || !slices.Equal(st.As(tensor.F32).F32, []float32{1.5, -2, c.tenth}) {
			t.Errorf("%s safetensors: %v %v, %v", c.name, st, e, err)
		}
	}
}
