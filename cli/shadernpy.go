package cli

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// rawArray is an array of any numeric element type as the bytes a shader
// sees: little-endian, C order.
type rawArray struct {
	elem  string // float32, float64, float16, int32, uint32, ...
	shape []int
	data  []byte
}

func (a *rawArray) describe() string {
	return a.elem + tensor.ShapeString(a.shape)
}

// elemSize is the byte size of a scalar type name (float32 → 4).
func elemSize(elem string) int {
	i := strings.IndexAny(elem, "0123456789")
	if i < 0 {
		return 0
	}
	n, _ := strconv.Atoi(elem[i:])
	return n / 8
}

var npyElem = map[string]string{
	"f2": "float16", "f4": "float32", "f8": "float64",
	"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
	"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
}

func npyDescr(elem string) string {
	for k, v := range npyElem {
		if v == elem {
			if k[1] == '1' {
				return "|" + k
			}
			return "<" + k
		}
	}
	return ""
}

// readRawNPY reads an NPY file of any numeric dtype as raw little-endian
// C-order bytes (formats.ReadRawNPY, bounded as every reader is).
func readRawNPY(path string) (*rawArray, error) {
	a, err := formats.ReadRawNPY(path)
	if err != nil {
		return nil, err
	}
	elem := npyElem[fmt.Sprintf("%c%d", a.DType.Kind, a.DType.Size)]
	if elem == "" {
		return nil, fmt.Errorf("%s: dtype %s cannot be bound to a shader buffer", path, a.DType.Descr)
	}
	return &rawArray{elem: elem, shape: a.Shape, data: a.Data}, nil
}

// encodeRawNPY writes a as a little-endian C-order NPY file.
func encodeRawNPY(w io.Writer, a *rawArray) error {
	descr := npyDescr(a.elem)
	if descr == "" {
		return fmt.Errorf("no NPY dtype for %s", a.elem)
	}
	return formats.EncodeRawNPY(w, descr, a.shape, a.data)
}

// values returns the elements of a as float64 (for comparisons).
func (a *rawArray) values() []float64 {
	size := elemSize(a.elem)
	if size == 0 {
		return nil
	}
	n := len(a.data) / size
	out := make([]float64, n)
	for i := range out {
		p := a.data[i*size:]
		switch a.elem {
		case "float32":
			out[i] = float64(math.Float32frombits(binary.LittleEndian.Uint32(p)))
		case "float64":
			out[i] = math.Float64frombits(binary.LittleEndian.Uint64(p))
		case "float16":
			out[i] = float64(halfToFloat32(binary.LittleEndian.Uint16(p)))
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
