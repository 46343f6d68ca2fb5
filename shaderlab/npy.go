package shaderlab

// NPY files as the shader lab's raw arrays (package formats reads and
// writes them).

import (
	"context"
	"fmt"
	"io"

	"github.com/vkstat/vkstat/formats"
)

// The shader lab's element types by NPY dtype (kind and size).
var npyElem = map[string]string{
	"f2": "float16", "f4": "float32", "f8": "float64",
	"i1": "int8", "i2": "int16", "i4": "int32", "i8": "int64",
	"u1": "uint8", "u2": "uint16", "u4": "uint32", "u8": "uint64",
}

// NPYDescr is the NPY dtype of element type elem ("" for none).
func NPYDescr(elem string) string {
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

// ReadNPY reads an NPY file of any numeric dtype as raw little-endian
// C-order bytes (formats.ReadRawNPY, bounded as every reader is).
func ReadNPY(path string) (*Array, error) {
	a, err := formats.ReadRawNPY(path)
	if err != nil {
		return nil, err
	}
	elem := npyElem[fmt.Sprintf("%c%d", a.DType.Kind, a.DType.Size)]
	if elem == "" {
		return nil, fmt.Errorf("%s: dtype %s cannot be bound to a shader buffer", path, a.DType.Descr)
	}
	return &Array{Elem: elem, Shape: a.Shape, Data: a.Data}, nil
}

// EncodeNPY writes a as a little-endian C-order NPY file.
func (a *Array) EncodeNPY(w io.Writer) error {
	descr := NPYDescr(a.Elem)
	if descr == "" {
		return fmt.Errorf("no NPY dtype for %s", a.Elem)
	}
	return formats.EncodeRawNPY(w, descr, a.Shape, a.Data)
}

// WriteOutputs writes run r's arrays of t to the files files names (per
// array, its file or "": none), all or none (formats.Outputs: ctx's
// checks apply); dir, where not "", is the output folder vkstat shader
// owns. Once written, it lists them on w: NAME → FILE.
func WriteOutputs(ctx context.Context, w io.Writer, t Target, r *Result, files []string, dir string) error {
	out := formats.Outputs{Ctx: ctx}
	defer out.Abort()
	if dir != "" {
		out.OwnDir(dir, "shader")
	}
	n := 0
	for i, path := range files {
		if path == "" {
			continue
		}
		arr := r.Outputs[i]
		if err := out.Add(path, func(w io.Writer) error { return arr.EncodeNPY(w) }); err != nil {
			return err
		}
		n++
	}
	if n == 0 {
		return nil
	}
	if err := out.Commit(); err != nil {
		return err
	}
	for i, path := range files {
		if path != "" {
			fmt.Fprintf(w, "  %s → %s\n", t.Name(i), path)
		}
	}
	return nil
}
