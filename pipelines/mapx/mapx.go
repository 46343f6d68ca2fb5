// Package mapx evaluates the elementwise map z = a·x² + b·y + c, the
// copy-versus-compute benchmark of the project's seed documents.
package mapx

import (
	"context"
	"fmt"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Options are the scalar coefficients of z = a·x² + b·y + c, named by
// their `param` tags.
type Options struct {
	A float64 `param:"a" help:"coefficient a"`
	B float64 `param:"b" help:"coefficient b"`
	C float64 `param:"c" help:"coefficient c"`
}

// DefaultOptions are the coefficients the front ends take unless told:
// z = x² + y.
func DefaultOptions() Options { return Options{A: 1, B: 1, C: 0} }

// Defaults are DefaultOptions by parameter name (engine.Defaults).
func Defaults() map[string]any { return engine.Defaults(DefaultOptions()) }

// Params describe the options every front end takes (engine.Describe),
// with DefaultOptions' defaults.
func Params() []engine.Param { return engine.Describe(DefaultOptions()) }

// Input holds x and y, of one dtype and shape, and where z goes.
type Input struct {
	X, Y *tensor.Tensor
	// Z, when set, takes the result: it must have x's dtype and shape. The
	// caller's memory (a NumPy array's, through the C ABI) takes it without
	// a copy on the CPU path, and the download writes straight into it on a
	// device. nil: a new array.
	Z *tensor.Tensor
	// Over says the caller is done with X: with no Z, the CPU path writes
	// z over X's memory, which saves allocating (and, for a large array,
	// faulting in) an output of the input's size. A device leaves X as it
	// was.
	Over bool
}

// Result is z with what it cost.
type Result struct {
	Z      *tensor.Tensor
	Timing engine.Timing
}

// Run evaluates z = a·x² + b·y + c on dev, or on the CPU when dev is nil.
// On the CPU path it looks at ctx between pieces of a million elements or
// so.
func Run(ctx context.Context, dev *engine.Device, in Input, opt Options) (*Result, error) {
	if in.X == nil || in.Y == nil {
		return nil, fmt.Errorf("mapx: nil input tensor")
	}
	m := engine.Begin(dev)
	t0 := time.Now()
	z, made := in.Z, time.Duration(0)
	if z == nil && in.Over && dev == nil {
		z = in.X
	}
	if z == nil {
		z = tensor.New(in.X.DType, in.X.Shape...)
		made = time.Since(t0)
	}
	var tm engine.Timing
	var err error
	if dev == nil {
		err = cpuInto(ctx, z, in.X, in.Y, opt)
		// The CPU path's time includes allocating z.
		el := time.Since(t0)
		tm.Kernel, tm.Phases = el, []engine.PhaseTime{{Name: engine.TimeCompute, Time: el}}
	} else {
		tm, err = vulkanInto(ctx, dev, z, in.X, in.Y, opt)
		if in.Z == nil {
			tm.AddPhase(engine.TimeResults, made)
		}
	}
	m.End(&tm)
	if err != nil {
		return nil, err
	}
	return &Result{Z: z, Timing: tm}, nil
}
