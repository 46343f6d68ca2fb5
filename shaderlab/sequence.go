package shaderlab

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/spirv"
)

// Buffer is one named buffer of a sequence and its data before the first
// step.
type Buffer struct {
	Name string
	Data *Array
}

// Step is one step of a sequence: a shader and its options, whose Bind
// entries name the sequence's buffers (Bind.Buffer) or give the step data
// of its own, dispatched Times times in a row (0: once). The options' run
// settings (Timeout, Repeat, Warmup, Progress) are the sequence's.
type Step struct {
	Shader  *Shader
	Options Options
	Times   int
}

// Sequence is dispatches of one or more shaders, in order, over buffers
// that stay on the device between them: the passes of a two-pass
// reduction, an iterative method's step repeated N times. The buffers are
// uploaded before the first step and downloaded after the last; between
// steps each dispatch's writes are visible to the next.
type Sequence struct {
	Names   []string // the buffers' names ("" for a step's own data)
	Buffers []*Array // the buffers' data before the first step
	Steps   []SequenceStep
	// Times runs the steps, in order, so many times in a row (0: once):
	// an iteration of more than one dispatch.
	Times int
	// File names the sequence in messages: the case file it comes from.
	File string
	opt  Options
}

// SequenceStep is a step's plan (Plan.Inputs are the buffers it binds)
// and how many times it is dispatched.
type SequenceStep struct {
	Plan    *Plan
	Times   int
	buffers []int // per binding of Plan, its buffer
}

// NewSequence checks every step against its shader and the buffers, as
// NewPlan does, before any device work. opt gives the run settings
// (Timeout, Repeat, Warmup, Progress); Result.Outputs are the buffers in
// the order given, then the data steps gave of their own.
func NewSequence(buffers []Buffer, steps []Step, opt Options) (*Sequence, error) {
	if len(steps) == 0 {
		return nil, fmt.Errorf("a sequence needs at least one step")
	}
	s := &Sequence{opt: opt}
	for _, b := range buffers {
		switch {
		case b.Name == "":
			return nil, fmt.Errorf("a sequence's buffer needs a name")
		case slices.Contains(s.Names, b.Name):
			return nil, fmt.Errorf("buffer %s is given twice", b.Name)
		case b.Data == nil:
			return nil, fmt.Errorf("buffer %s has no data", b.Name)
		}
		s.Names, s.Buffers = append(s.Names, b.Name), append(s.Buffers, b.Data)
	}
	for i, st := range steps {
		what := fmt.Sprintf("step %d (%s)", i+1, filepath.Base(st.Shader.Path))
		if st.Times < 0 {
			return nil, fmt.Errorf("%s: %d times", what, st.Times)
		}
		o := st.Options
		o.Bind = slices.Clone(o.Bind)
		for j, bd := range o.Bind {
			if bd.Buffer == "" {
				continue
			}
			if bd.Data != nil {
				return nil, fmt.Errorf("%s: %w", what, &SettingError{"Bind", j, fmt.Errorf("%s is given both data and buffer %s", bd.Name, bd.Buffer)})
			}
			k, err := s.Find(bd.Buffer)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", what, &SettingError{"Bind", j, err})
			}
			o.Bind[j].Data = s.Buffers[k]
		}
		p, err := NewPlan(st.Shader, o)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", what, err)
		}
		ss := SequenceStep{Plan: p, Times: max(st.Times, 1), buffers: make([]int, len(p.Inputs))}
		for j, a := range p.Inputs {
			k := slices.Index(s.Buffers, a)
			if k < 0 || s.Names[k] == "" { // the step's own data
				k = len(s.Buffers)
				s.Names, s.Buffers = append(s.Names, ""), append(s.Buffers, a)
			}
			ss.buffers[j] = k
		}
		s.Steps = append(s.Steps, ss)
	}
	return s, nil
}

// Warnings are the steps' plans' warnings, each naming its step.
func (s *Sequence) Warnings() []string {
	var out []string
	for i, st := range s.Steps {
		for _, w := range st.Plan.Warnings {
			out = append(out, fmt.Sprintf("step %d: %s", i+1, w))
		}
	}
	return out
}

// BytesMoved counts the bytes the dispatches of one run read and write
// (Plan.BytesMoved of each, times its dispatches).
func (s *Sequence) BytesMoved() int64 {
	var n int64
	for _, st := range s.Steps {
		n += int64(st.Times) * st.Plan.BytesMoved()
	}
	return int64(max(s.Times, 1)) * n
}

// WriteRun writes the sequence's steps and dispatches on r's device and
// r's times (WriteTimes).
func (s *Sequence) WriteRun(w io.Writer, r *Result) {
	fmt.Fprintf(w, "%s on %s: %d steps, %d dispatches\n", s.File, r.Device, len(s.Steps), s.Dispatches())
	r.WriteTimes(w, s.BytesMoved(), s.opt.Warmup)
}

// Dispatches counts the dispatches of one run.
func (s *Sequence) Dispatches() int {
	n := 0
	for _, st := range s.Steps {
		n += st.Times
	}
	return max(s.Times, 1) * n
}

// describe names buffer k in messages: by the first binding that takes
// it, and its name in the sequence where it has one.
func (s *Sequence) describe(k int) (string, Binding) {
	for i, st := range s.Steps {
		if j := slices.Index(st.buffers, k); j >= 0 {
			b := st.Plan.Shader.Module.Bindings[j]
			what := Describe(b)
			if len(s.Steps) > 1 {
				what += fmt.Sprintf(" of step %d", i+1)
			}
			if s.Names[k] != "" && len(s.Steps) > 1 {
				what = "buffer " + s.Names[k] + " (" + what + ")"
			}
			return what, b
		}
	}
	return "buffer " + s.Names[k], Binding{}
}

// Run runs the sequence Options.Warmup times untimed, then Options.Repeat
// times (0: once), uploading the buffers each time, and returns their
// contents after the last run. Each step's needs are checked against the
// device first.
func (s *Sequence) Run(ctx context.Context, dev *engine.Device) (*Result, error) {
	if dev == nil {
		return nil, ErrNoDevice
	}
	for i, st := range s.Steps {
		if err := st.Plan.checkDevice(dev); err != nil {
			if len(s.Steps) > 1 {
				return nil, fmt.Errorf("step %d (%s): %w", i+1, filepath.Base(st.Plan.Shader.Path), err)
			}
			return nil, err
		}
	}
	// Before any memory is taken: a binding past the device's range was
	// refused only when dispatched, after seconds of allocating and
	// uploading zeros (3.2 GB for float32:20000x20000 on lavapipe).
	for k, a := range s.Buffers {
		if lim := int64(dev.Info.MaxStorageBufferRange); lim > 0 && int64(len(a.Data)) > lim {
			what, _ := s.describe(k)
			return nil, fmt.Errorf("%s holds %d bytes, more than the device binds (maxStorageBufferRange %d)", what, len(a.Data), lim)
		}
	}
	r := &Result{Device: dev.Info.Name, Subgroup: dev.Info.SubgroupSize}
	t0 := time.Now()
	kernels := make([]*engine.Kernel, len(s.Steps))
	// Each binding sits between guard bytes, guard before and after (a
	// multiple of the offset alignment), filled with a pattern and read
	// back after each run: a write outside the binding is an error. The
	// range bound takes in the guard after where the shader does not read
	// an array's length (which follows the range), so that drivers that
	// drop writes past the range (lavapipe) let them land in the guard.
	reach := make([]int64, len(s.Steps))
	align := max(int64(dev.Info.MinStorageAlignment), 1)
	guard := (guardBytes + align - 1) / align * align
	for i, st := range s.Steps {
		code := st.Plan.Shader.SPIRV
		if slices.ContainsFunc(st.Plan.Shader.Module.Bindings, func(b Binding) bool { return b.Kind == "uniform" }) {
			// The engine binds storage buffers; a uniform block read as
			// one reads the same bytes the same way.
			var err error
			if code, err = spirv.UniformsAsStorage(code); err != nil {
				return nil, err
			}
		}
		sum := sha256.Sum256(code)
		k, err := dev.Kernel(engine.KernelSpec{
			Name: filepath.Base(st.Plan.Shader.Path) + "@" + hex.EncodeToString(sum[:6]), Code: code, Spec: st.Plan.Spec,
		})
		if err != nil {
			return nil, err
		}
		kernels[i] = k
		if !spirv.UsesArrayLength(code) {
			reach[i] = guard
		}
	}
	r.Build = time.Since(t0)
	pattern := make([]byte, guard)
	for i := range pattern {
		pattern[i] = byte(0xA5 ^ i*29)
	}
	sizes := make([]int64, len(s.Buffers))
	data := make([]int64, len(s.Buffers))
	for i, a := range s.Buffers {
		data[i] = max((int64(len(a.Data))+3)/4*4, 4)
		sizes[i] = data[i] + 2*guard
	}
	bufs, err := dev.Buffers(sizes...)
	if err != nil {
		return nil, err
	}
	defer engine.ReleaseAll(bufs)
	timeout := s.opt.Timeout
	if timeout <= 0 {
		timeout = 10 * time.Second
	}
	dev.SetTimeout(timeout)
	defer dev.SetTimeout(0)
	warmup, repeat := max(s.opt.Warmup, 0), max(s.opt.Repeat, 1)
	for it := 0; it < warmup+repeat; it++ {
		r.Outputs = make([]*Array, len(s.Buffers))
		before := make([][]byte, len(s.Buffers))
		after := make([][]byte, len(s.Buffers))
		tm, err := dev.Run(ctx, func(q *engine.Sequence) {
			for i, a := range s.Buffers {
				q.Upload(bufs[i], 0, pattern)
				q.Upload(bufs[i], guard, a.Data) // zeros too: outputs never show stale memory
				q.Upload(bufs[i], guard+data[i], pattern)
			}
			binds := make([][]engine.Binding, len(s.Steps))
			for si, st := range s.Steps {
				binds[si] = make([]engine.Binding, len(st.buffers))
				for j, k := range st.buffers {
					bound := data[k] + reach[si]
					if lim := int64(dev.Info.MaxStorageBufferRange); lim > 0 && bound > lim {
						bound = data[k]
					}
					binds[si][j] = engine.Binding{Buf: bufs[k], Offset: guard, Size: bound}
				}
			}
			for range max(s.Times, 1) {
				for si, st := range s.Steps {
					for range st.Times {
						q.Dispatch(kernels[si], st.Plan.Groups, st.Plan.Push, binds[si]...)
					}
				}
			}
			for i, a := range s.Buffers {
				out := &Array{Elem: a.Elem, Shape: a.Shape, Data: make([]byte, len(a.Data))}
				r.Outputs[i] = out
				before[i], after[i] = make([]byte, guard), make([]byte, guard)
				q.Download(bufs[i], 0, before[i])
				q.Download(bufs[i], guard, out.Data)
				q.Download(bufs[i], guard+data[i], after[i])
			}
		})
		if err != nil {
			return nil, err
		}
		if it == 0 {
			r.First = time.Since(t0)
		}
		for k := range s.Buffers {
			what, b := s.describe(k)
			if err := checkGuards(what, b, len(s.Buffers[k].Data), pattern, before[k], after[k], data[k]); err != nil {
				return nil, err
			}
		}
		if it < warmup {
			continue
		}
		r.Kernel = append(r.Kernel, tm.Kernel)
		// The engine takes a timestamp after each of a run's first 511
		// commands (each dispatch, and three uploads and three downloads
		// per buffer): a run of more has no GPU time for all of it.
		r.Timed = tm.GPUTimed && s.Dispatches()+6*len(s.Buffers) < 511
		if s.opt.Progress != nil {
			s.opt.Progress(it-warmup+1, repeat)
		}
	}
	r.Wall = time.Since(t0)
	return r, nil
}

// checkDevice refuses a plan the device cannot run: a feature it lacks,
// workgroups beyond its limits.
func (p *Plan) checkDevice(dev *engine.Device) error {
	if err := CheckFeatures(p.Shader.Module, dev.Info, p.Shared); err != nil {
		return err
	}
	for d, g := range p.Groups {
		if lim := dev.Info.MaxWorkgroupCount[d]; lim > 0 && g > lim {
			return fmt.Errorf("%d workgroups in dimension %d exceed the device limit of %d", g, d, lim)
		}
		if lim := dev.Info.MaxWorkgroupSize[d]; lim > 0 && p.Local[d] > lim {
			return fmt.Errorf("local size %d in dimension %d exceeds the device limit of %d", p.Local[d], d, lim)
		}
	}
	if n := p.Local[0] * p.Local[1] * p.Local[2]; dev.Info.MaxWorkgroupInvocation > 0 && n > dev.Info.MaxWorkgroupInvocation {
		return fmt.Errorf("local size %d×%d×%d = %d invocations exceeds the device limit of %d", p.Local[0], p.Local[1], p.Local[2], n, dev.Info.MaxWorkgroupInvocation)
	}
	return nil
}
