// Package outputs makes the output files of vkstat's workloads, whoever
// runs them (the command line, a Go program): stack's statistics and
// quicklooks, latent's arrays, pictures and summary, reduce's statistics.
// A workload's outputs are Files, written all or none by Write. It sits
// above the pipelines and formats, beside survey (PACO's outputs) and
// partials (the shards' state).
package outputs

import (
	"context"
	"fmt"
	"io"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// File is one output file: its path, how it is written, and what a
// summary says of it: its type and shape (a nil shape: not an array) and
// its line of text (empty: Text makes it).
type File struct {
	Path, DType, Line string
	Shape             []int
	Write             func(io.Writer) error
}

// Array is t written to path by enc (NPY when nil).
func Array(path string, t *tensor.Tensor, enc func(io.Writer, *tensor.Tensor) error) File {
	if enc == nil {
		enc = formats.EncodeNPY
	}
	return File{Path: path, DType: t.DType.String(), Shape: append([]int{}, t.Shape...), Write: func(w io.Writer) error { return enc(w, t) }}
}

// Text is f's line in a summary: Line, else its path, type and shape.
func (f File) Text() string {
	if f.Line != "" {
		return f.Line
	}
	return fmt.Sprintf("%s\t%s %s", f.Path, f.DType, tensor.ShapeString(f.Shape))
}

// Write writes files, all or none (formats.Outputs), into dir, which
// workload by then owns (Outputs.OwnDir), unless dir is "".
func Write(ctx context.Context, dir, workload string, files []File) error {
	outs := formats.Outputs{Ctx: ctx}
	defer outs.Abort()
	if dir != "" {
		outs.OwnDir(dir, workload)
	}
	for _, f := range files {
		outs.Add(f.Path, f.Write)
	}
	return outs.Commit()
}
