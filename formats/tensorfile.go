package formats

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// TensorInfo says what a file held: its format (npy, safetensors, fits,
// raster), the stored element type (float16, bfloat16, float32, float64,
// int16, ...; for FITS and rasters, the type it was read as) and, for
// safetensors, the tensor's name.
type TensorInfo struct {
	Format string
	DType  string
	Name   string
}

// IsSafetensorsName reports whether path names a safetensors file.
func IsSafetensorsName(path string) bool {
	return strings.EqualFold(filepath.Ext(path), ".safetensors")
}

// TensorEncoder is how a tensor is written under the name path, for
// ReadTensor16 to read back: for a safetensors name, a safetensors file
// holding it as name with the metadata meta; NPY for .npy. ok is false
// for any other name.
func TensorEncoder(path, name string) (encode func(w io.Writer, t *tensor.Tensor, meta map[string]string) error, ok bool) {
	switch {
	case IsSafetensorsName(path):
		return func(w io.Writer, t *tensor.Tensor, meta map[string]string) error {
			return EncodeSafetensors(w, []SafetensorsTensor{SafetensorsOf(name, t)}, meta)
		}, true
	case strings.EqualFold(filepath.Ext(path), ".npy"):
		return func(w io.Writer, t *tensor.Tensor, _ map[string]string) error { return EncodeNPY(w, t) }, true
	}
	return nil, false
}

// ReadTensor reads an array as ReadArray does, or the tensor called name
// from a safetensors file (see ReadSafetensors), and says what the file
// stored. name is an error for other formats.
func ReadTensor(path, name string) (*tensor.Tensor, TensorInfo, error) {
	return readTensor(path, name, false)
}

// ReadTensor16 is ReadTensor, except that float16 and bfloat16 data (NPY
// '<f2', '<V2' or 'bfloat16'; safetensors F16, BF16) keep their 16-bit
// type, tensor.F16 or tensor.BF16, instead of being widened to float32:
// for pipelines that store them so on the device.
func ReadTensor16(path, name string) (*tensor.Tensor, TensorInfo, error) {
	return readTensor(path, name, true)
}

func readTensor(path, name string, keep16 bool) (*tensor.Tensor, TensorInfo, error) {
	if isRasterName(path) && !IsSafetensorsName(path) && name == "" {
		t, err := ReadRaster(path)
		if err != nil {
			return nil, TensorInfo{}, err
		}
		return t, TensorInfo{Format: "raster", DType: t.DType.String()}, nil
	}
	if err := checkTensorName(path, name); err != nil {
		return nil, TensorInfo{}, err
	}
	in, err := openInput(path)
	if err != nil {
		return nil, TensorInfo{}, err
	}
	defer in.Close()
	return readTensorInput(in, name, keep16)
}

// checkTensorName refuses a tensor name for a file that is not safetensors.
func checkTensorName(path, name string) error {
	if name != "" && !IsSafetensorsName(path) {
		return fmt.Errorf("%s: a tensor name (%q) is only for safetensors files (.safetensors)", path, name)
	}
	return nil
}

// readTensorInput is readTensor on an open input that is not a raster.
func readTensorInput(in *inputFile, name string, keep16 bool) (*tensor.Tensor, TensorInfo, error) {
	path := in.path
	if IsSafetensorsName(path) {
		t, e, err := decodeSafetensorsAs(in.source(), name, keep16)
		if err != nil {
			return nil, TensorInfo{}, fmt.Errorf("%s: %w", path, err)
		}
		dt := map[string]string{"F16": "float16", "BF16": "bfloat16", "F32": "float32", "F64": "float64"}[e.DType]
		return t, TensorInfo{Format: "safetensors", DType: dt, Name: e.Name}, nil
	}
	switch formatOf(in) {
	case formatNPY:
		t, h, err := decodeNPYHeaderAs(in.source(), keep16)
		if err != nil {
			return nil, TensorInfo{}, fmt.Errorf("%s: %w", path, err)
		}
		return t, TensorInfo{Format: "npy", DType: h.dt.name()}, nil
	case formatFITS:
		t, _, err := readFITSInput(in)
		if err != nil {
			return nil, TensorInfo{}, err
		}
		return t, TensorInfo{Format: "fits", DType: t.DType.String()}, nil
	}
	return nil, TensorInfo{}, fmt.Errorf("%s: unknown array format: want a NumPy (.npy), safetensors (.safetensors) or FITS file", path)
}
