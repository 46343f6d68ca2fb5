package capi

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"time"
	"unsafe"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/shaderlab"
)

// shaderStep is one shader of a shader call (Python's vkstat.shader): a
// step of a case (shaderlab.Case: its file, what it binds, by the names of
// the call's arrays, and its constants), or its GLSL text as Source, named
// Name in messages.
type shaderStep struct {
	shaderlab.Case
	Source string `json:"source"`
}

type shaderParams struct {
	Steps []shaderStep `json:"steps"`
	// Times runs the steps in order so many times (0: once).
	Times  int `json:"times"`
	Repeat int `json:"repeat"`
	Warmup int `json:"warmup"`
	// Timeout in seconds gives up on a runaway dispatch; 0: 10 s.
	Timeout float64 `json:"timeout"`
}

// ShaderInfo is a shader call's Info: where it ran and its times.
type ShaderInfo struct {
	Device     string    `json:"device"`
	Timed      bool      `json:"timed"`
	GPUms      []float64 `json:"gpu_ms"`
	MedianMs   float64   `json:"median_ms"`
	BuildMs    float64   `json:"build_ms"`
	FirstMs    float64   `json:"first_ms"`
	Dispatches int       `json:"dispatches"`
}

func ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }

// runShader runs the call's shaders as a shaderlab.Sequence over its
// arrays, which stay on the device between the steps; every array comes
// back as an output of the same name, dtype and shape, as it is after the
// last step.
func runShader(ctx context.Context, dev *engine.Device, c *Call) (*Result, error) {
	var p shaderParams
	if err := c.Params(&p); err != nil {
		return nil, err
	}
	if dev == nil {
		return nil, InputError{shaderlab.ErrNoDevice}
	}
	if len(p.Steps) == 0 {
		return nil, inputf("no shader: give one, or steps")
	}
	if p.Repeat < 0 || p.Warmup < 0 || p.Times < 0 || p.Timeout < 0 {
		return nil, inputf("repeat, warmup, times and timeout cannot be negative")
	}
	names := slices.Sorted(maps.Keys(c.specs))
	var buffers []shaderlab.Buffer
	for _, n := range names {
		a := c.specs[n]
		size := shaderlab.ElemSize(a.DType)
		if shaderlab.NPYDescr(a.DType) == "" || size == 0 {
			return nil, inputf("%s has dtype %s; a shader binds float16, float32, float64 and 8- to 64-bit integers", n, a.DType)
		}
		ptr, k, err := c.data(n, size, 1)
		if err != nil {
			return nil, err
		}
		data := slices.Clone(unsafe.Slice((*byte)(ptr), k*size))
		buffers = append(buffers, shaderlab.Buffer{Name: n, Data: &shaderlab.Array{Elem: a.DType, Shape: slices.Clone(a.Shape), Data: data, Source: n}})
	}
	var steps []shaderlab.Step
	for i, st := range p.Steps {
		what := fmt.Sprintf("step %d", i+1)
		if err := st.CheckStep(); err != nil {
			return nil, inputf("%s: %v", what, err)
		}
		if (st.Shader == "") == (st.Source == "") {
			return nil, inputf("%s: give the shader as a file or as source, one of the two", what)
		}
		opt := st.CompileOptions("")
		// Python sends None as "": NAME= (empty), where a case file's
		// null or "" defines NAME (as 1).
		opt.Defines = nil
		for _, d := range shaderlab.Settings(st.Define) {
			opt.Defines = append(opt.Defines, d.Name+"="+d.Value)
		}
		step, err := st.Step(st.Source, opt)
		var ce *shaderlab.CaseError
		if errors.As(err, &ce) {
			return nil, inputf("%s: %v", what, err)
		}
		if err != nil {
			return nil, InputError{err}
		}
		steps = append(steps, step)
	}
	seq, err := shaderlab.NewSequence(buffers, steps, shaderlab.Options{
		Repeat: p.Repeat, Warmup: p.Warmup, Timeout: time.Duration(p.Timeout * float64(time.Second)),
	})
	if err != nil {
		return nil, InputError{err}
	}
	seq.Times = p.Times
	r, err := seq.Run(ctx, dev)
	if err != nil {
		return nil, err
	}
	res := c.Result()
	for _, w := range seq.Warnings() {
		res.warnf("%s", w)
	}
	for k, n := range names {
		out := r.Outputs[k]
		res.addRaw(n, out.Elem, out.Shape, int64(len(out.Data)), func(b []byte) { copy(b, out.Data) })
	}
	info := &ShaderInfo{Device: r.Device, Timed: r.Timed, MedianMs: ms(r.Median()), BuildMs: ms(r.Build), FirstMs: ms(r.First), Dispatches: seq.Dispatches()}
	for _, k := range r.Kernel {
		info.GPUms = append(info.GPUms, ms(k))
	}
	res.Info = info
	return res, nil
}
