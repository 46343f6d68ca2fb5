package synth

import (
	"context"
	"math/rand/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Random is an array of random numbers (vkstat synth random): uniform on
// [Loc, Loc+Scale), or normal with mean Loc and standard deviation Scale.
type Random struct {
	Normal     bool
	Loc, Scale float64
	Seed       uint64
	// Progress, when set, hears how many values are drawn, of how many.
	Progress func(done, total int)
}

// SetDist sets the distribution by name: uniform or normal; another is
// a *engine.FieldError.
func (r *Random) SetDist(name string) error {
	if name != "uniform" && name != "normal" {
		return engine.Fieldf("dist", ": want uniform or normal, got %q", name)
	}
	r.Normal = name == "normal"
	return nil
}

// Check refuses a negative Scale, as a *engine.FieldError.
func (r Random) Check() error {
	if r.Scale < 0 {
		return engine.Fieldf("scale", ": want a width (uniform) or a standard deviation (normal) of 0 or more, got %g", r.Scale)
	}
	return nil
}

// Draw returns an array of shape and dtype dt (tensor.F32 or F64) of r's
// numbers, drawn in order from one stream: the same r gives the same
// array on every machine.
func (r Random) Draw(ctx context.Context, dt tensor.DType, shape ...int) (*tensor.Tensor, error) {
	if err := r.Check(); err != nil {
		return nil, err
	}
	rng := rand.New(rand.NewPCG(r.Seed, 0x766b73746174))
	draw := func() float64 { return r.Loc + r.Scale*rng.Float64() }
	if r.Normal {
		draw = func() float64 { return r.Loc + r.Scale*rng.NormFloat64() }
	}
	t := tensor.New(dt, shape...)
	n := t.Len()
	const block = 1 << 20
	for i0 := 0; i0 < n; i0 += block {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if r.Progress != nil {
			r.Progress(i0, n)
		}
		for i := i0; i < min(i0+block, n); i++ {
			if dt == tensor.F64 {
				t.F64[i] = draw()
			} else {
				t.F32[i] = float32(draw())
			}
		}
	}
	if r.Progress != nil {
		r.Progress(n, n)
	}
	return t, nil
}
