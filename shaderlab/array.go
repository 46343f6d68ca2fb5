package shaderlab

import (
	"encoding/binary"
	"math"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// Array is an array of a numeric element type as the bytes a shader sees:
// little-endian, C order.
type Array struct {
	Elem  string // float16, float32, float64, int8 ... int64, uint8 ... uint64
	Shape []int
	Data  []byte
	// Source names the data in messages (a file name, "zeros float32:16");
	// empty: "the data".
	Source string
}

// String is the element type and shape: float32[1000].
func (a *Array) String() string { return a.Elem + tensor.ShapeString(a.Shape) }

// Len is the number of elements of a.
func (a *Array) Len() int { return len(a.Data) / max(ElemSize(a.Elem), 1) }

func (a *Array) source() string {
	if a.Source == "" {
		return "the data"
	}
	return a.Source
}

// ElemSize is the byte size of a scalar type name: float32 → 4; 0 for a
// name without a size.
func ElemSize(elem string) int {
	i := strings.IndexAny(elem, "0123456789")
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(elem[i:])
	return n / 8
}

// Values returns the elements of a as float64 (for comparisons).
func (a *Array) Values() []float64 {
	size := ElemSize(a.Elem)
	if size == 0 {
		return nil
	}
	out := make([]float64, len(a.Data)/size)
	for i := range out {
		p := a.Data[i*size:]
		switch a.Elem {
		case "float32":
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
		case "float64":
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p))
		case "float16":
			out[i] = float64(tensor.HalfToFloat32(binary.LittleEndian.Uint16(p)))
		case "int8":
			out[i] = float64(int8(p[0]))
		case "uint8":
			out[i] = float64(p[0])
		case "int16":
			out[i] = float64(int16(binary.LittleEndian.Uint16(p)))
		case "uint16":
			out[i] = float64(binary.LittleEndian.Uint16(p))
		case "int32":
			out[i] = float64(int32(binary.LittleEndian.Uint32(p)))
		case "uint32":
			out[i] = float64(binary.LittleEndian.Uint32(p))
		case "int64":
			out[i] = float64(int64(binary.LittleEndian.Uint64(p)))
		case "uint64":
			out[i] = float64(binary.LittleEndian.Uint64(p))
		}
	}
	return out
}
