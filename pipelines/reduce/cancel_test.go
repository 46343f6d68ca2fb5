package reduce

import (
	"context"
	"errors"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// A cancelled CPU-path reduction returns the context's error and writes
// nothing into the caller's outputs (issue 41, defect 1: on 68d6905 it
// ran to the end, into out=, after Python had raised KeyboardInterrupt):
// every geometry's way of dividing the work (columns, runs, runs split
// into row ranges, 16-bit blocks), each output's memory given by Out and
// filled with a sentinel that must survive.
func TestCPUCancelledWritesNothing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	const sentinel = -7.0
	for _, c := range []struct {
		name  string
		dt    tensor.DType
		shape []int
		axis  int
	}{
		{"columns", tensor.F32, []int{64, 300, 2048}, 1},
		{"runs", tensor.F64, []int{4096, 512}, 1},
		{"one long run", tensor.F32, []int{1 << 21}, 0},
		{"float16", tensor.F16, []int{300, 4096}, 0},
	} {
		in := tensor.New(c.dt, c.shape...)
		var outs []*tensor.Tensor
		opt := Options{Axes: Axes{c.axis}, Stats: []Stat{Mean, Var, Min}, Out: &tensor.Outputs{Alloc: func(_ string, dt tensor.DType, shape []int) *tensor.Tensor {
			o := tensor.New(dt, shape...)
			for i := range o.F32 {
				o.F32[i] = sentinel
			}
			for i := range o.F64 {
				o.F64[i] = sentinel
			}
			outs = append(outs, o)
			return o
		}}}
		res, err := Run(ctx, nil, in, opt)
		if !errors.Is(err, context.Canceled) || res != nil {
			t.Errorf("%s: got %v, %v; want context.Canceled", c.name, res, err)
		}
		for _, o := range outs {
			for i, v := range o.F32 {
				if v != sentinel {
					t.Fatalf("%s: output %d written (%g) by a cancelled call", c.name, i, v)
				}
			}
			for i, v := range o.F64 {
				if v != sentinel {
					t.Fatalf("%s: output %d written (%g) by a cancelled call", c.name, i, v)
				}
			}
		}
		if len(outs) != 3 {
			t.Errorf("%s: %d outputs asked for, want 3", c.name, len(outs))
		}
		// Not cancelled, the same call runs.
		opt.Out = nil
		res, err = Run(context.Background(), nil, in, opt)
		if err != nil {
			t.Fatalf("%s: uncancelled: %v", c.name, err)
		}
		if m := res.Stats[Mean].Float64s(); m[0] != 0 || m[len(m)-1] != 0 {
			t.Errorf("%s: uncancelled: the mean of zeros is %g … %g", c.name, m[0], m[len(m)-1])
		}
	}
}
