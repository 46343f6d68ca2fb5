package reduce

import (
	"context"
	"fmt"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// CPUPlan is a reduction on the CPU decided once for arrays of one shape
// and dtype (float32 or float64) and one set of options: the geometry,
// the accumulators the statistics need, the division of the work and, for
// an input small enough to run inline, the scratch memory. Run repeats it
// on new data into new outputs (a prepared call's repeat, capi) without
// planning again; an inline run allocates nothing. A plan runs one call at
// a time (capi's under its session's lock).
type CPUPlan struct {
	g   Geometry
	dt  tensor.DType
	nd  needs
	opt Options
	r64 *reducer[float64]
	r32 *reducer[float32]
	// phase is the one phase of Run's timing (its Phases, which the next
	// Run overwrites).
	phase [1]engine.PhaseTime
}

// Outs are a CPUPlan's outputs, indexed by Stat.
type Outs = [numStats]*tensor.Tensor

// NewCPUPlan plans the reduction of arrays of shape and dt by opt (its
// Out unused) on the CPU; it refuses what Run refuses, and an axis of
// length 0 or an empty output (Run answers those without reducing).
func NewCPUPlan(shape []int, dt tensor.DType, opt Options) (*CPUPlan, error) {
	if dt != tensor.F64 && dt != tensor.F32 {
		return nil, fmt.Errorf("reduce: a CPU plan takes float32 or float64, not %s", dt)
	}
	if len(opt.Stats) == 0 || opt.Central {
		return nil, fmt.Errorf("reduce: a CPU plan computes one or more of Stats, and no central moments")
	}
	nd, err := statNeeds(opt.Stats)
	if err != nil {
		return nil, err
	}
	g, err := opt.plan(shape)
	if err != nil {
		return nil, fmt.Errorf("reduce: %w", err)
	}
	if g.Outputs() == 0 {
		return nil, fmt.Errorf("reduce: an array of shape %s has nothing to reduce to", tensor.ShapeString(shape))
	}
	opt.Out = nil
	return &CPUPlan{g: g, dt: dt, nd: nd, opt: opt}, nil
}

// OutShape is the shape of each statistic Run writes.
func (p *CPUPlan) OutShape() []int { return p.g.OutShape }

// Run reduces in (the plan's shape and dtype, its data filling it) into
// out, indexed by Stat: each of the plan's statistics an array of the
// plan's dtype with OutShape's elements, the others nil. It stops with
// ctx's error as Run does. The timing's Phases are the plan's: the next
// Run overwrites them.
func (p *CPUPlan) Run(ctx context.Context, in *tensor.Tensor, out *Outs) (engine.Timing, error) {
	n, m := p.g.Outer*p.g.N*p.g.Inner, p.g.Outputs()
	if in == nil || in.DType != p.dt || in.Len() != n {
		return engine.Timing{}, fmt.Errorf("reduce: the input is not the planned %s of %d elements", p.dt, n)
	}
	for _, s := range p.opt.Stats {
		if t := out[s]; t == nil || t.DType != p.dt || len(t.F64)+len(t.F32) != m {
			return engine.Timing{}, fmt.Errorf("reduce: output %s is not the planned %s of %d elements", s, p.dt, m)
		}
	}
	t0 := time.Now()
	if p.dt == tensor.F64 {
		p.r64 = planned(p.r64, in.F64, p, out, func(t *tensor.Tensor) []float64 { return t.F64 }, ctx.Done())
		p.r64.run()
	} else {
		p.r32 = planned(p.r32, in.F32, p, out, func(t *tensor.Tensor) []float32 { return t.F32 }, ctx.Done())
		p.r32.run()
	}
	el := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return engine.Timing{}, err
	}
	p.phase[0] = engine.PhaseTime{Name: engine.TimeCompute, Time: el}
	return engine.Timing{Kernel: el, Wall: el, Phases: p.phase[:]}, nil
}

// planned is r (made on the first run) on new data and outputs.
func planned[T float](r *reducer[T], data []T, p *CPUPlan, out *Outs, of func(*tensor.Tensor) []T, done <-chan struct{}) *reducer[T] {
	var outs [numStats][]T
	for s, t := range out {
		if t != nil {
			outs[s] = of(t)
		}
	}
	if r == nil {
		return newReducer(data, p.g, p.opt, p.nd, outs, done)
	}
	r.data, r.outs, r.done = data, outs, done
	return r
}
