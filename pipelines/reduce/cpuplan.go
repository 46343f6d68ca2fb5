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
// planning again; an inline run allocates nothing. Divided work runs on
// every core or on the caller alone, whichever the plan's recent runs
// found faster (pace), with the same bits either way. A plan runs one call
// at a time (capi's under its session's lock).
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
	// pace decides, run by run, whether divided work runs on every core.
	pace pace
}

// The ways a plan runs divided work: on the calling goroutine alone, or
// split over every core.
const (
	wayAlone = iota
	waySplit
)

// pace chooses, for a plan whose work is divided into tasks, which way
// runs it. A second core pays for a reduction only where it is free: on a
// machine whose cores other processes keep busy, the thread woken to help
// takes the caller's own core, and the split costs more than it gains (a
// 10⁶-element mean: 275 µs alone, 345 µs split, at a load of 10 on two
// cores; docs/benchmarks/callcost.md). Both ways run the same tasks merged
// in the same order, so they give the same bits, and the choice may follow
// the plan's own walls: the first runs alternate until each way has
// paceWindow of them, then the way whose last paceWindow walls have the
// lower median runs, and the other runs once every paceProbe runs (times
// how many times slower it was, so that the probes cost at most a
// paceProbe-th of the runs' time: a machine of many free cores), so that
// a change of load is seen.
type pace struct {
	walls [2][paceWindow]time.Duration // the last walls of each way, a ring
	seen  [2]int                       // runs of each way so far
	runs  int
}

const (
	paceWindow = 5
	paceProbe  = 16
)

// next is the way of the next run.
func (p *pace) next() int {
	if p.seen[wayAlone] < paceWindow || p.seen[waySplit] < paceWindow {
		return p.runs % 2
	}
	alone, split := median(p.walls[wayAlone]), median(p.walls[waySplit])
	best, fast, slow := wayAlone, alone, split
	if split < alone {
		best, fast, slow = waySplit, split, alone
	}
	every := paceProbe * max(1, int(slow/max(fast, 1)))
	if p.runs%every == every-1 {
		return 1 - best
	}
	return best
}

// record keeps the wall of a run the way way.
func (p *pace) record(way int, wall time.Duration) {
	p.walls[way][p.seen[way]%paceWindow] = wall
	p.seen[way]++
	p.runs++
}

// median is the middle value of w.
func median(w [paceWindow]time.Duration) time.Duration {
	for _, v := range w {
		below, above := 0, 0
		for _, u := range w {
			if u < v {
				below++
			} else if u > v {
				above++
			}
		}
		if below <= paceWindow/2 && above <= paceWindow/2 {
			return v
		}
	}
	return w[0] // not reached: some value has at most half on each side
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
	way, divided := p.pace.next(), false
	t0 := time.Now()
	if p.dt == tensor.F64 {
		p.r64 = planned(p.r64, in.F64, p, out, func(t *tensor.Tensor) []float64 { return t.F64 }, ctx.Done())
		p.r64.alone, divided = way == wayAlone, p.r64.divided()
		p.r64.run()
	} else {
		p.r32 = planned(p.r32, in.F32, p, out, func(t *tensor.Tensor) []float32 { return t.F32 }, ctx.Done())
		p.r32.alone, divided = way == wayAlone, p.r32.divided()
		p.r32.run()
	}
	el := time.Since(t0)
	if err := ctx.Err(); err != nil {
		return engine.Timing{}, err
	}
	if divided {
		p.pace.record(way, el)
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
