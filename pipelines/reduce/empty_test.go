package reduce

import (
	"context"
	"errors"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// TestEmptyAxis (issue 40, item 12): an axis of length 0 gives NumPy's
// answers, the same on the CPU path and every Vulkan device, through Run
// and RunSource: np.sum(np.ones((3, 0, 2)), 1) is zeros((3, 2)), np.mean and
// np.var are NaN, and np.min raises (ErrEmptyAxis here, which the front
// ends call bad input); an output of size 0 has nothing to raise for.
func TestEmptyAxis(t *testing.T) {
	devs := []*engine.Device{nil}
	devs = append(devs, testdev.Devices(t)...)
	for _, dev := range devs {
		name := "cpu"
		if dev != nil {
			name = dev.Info.Name
		}
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
			in := tensor.New(dt, 3, 0, 2)
			for _, run := range []func(Options) (*Result, error){
				func(o Options) (*Result, error) { return Run(context.Background(), dev, in, o) },
				func(o Options) (*Result, error) { return RunSource(context.Background(), dev, tensor.SourceOf(in), o) },
			} {
				r, err := run(Options{Axes: Axes{1}, DDof: 1, Stats: []Stat{Sum, Mean, Var, Std}})
				if err != nil {
					t.Fatalf("%s %s: %v", name, dt, err)
				}
				for s, v := range r.Stats {
					if tensor.ShapeString(v.Shape) != "(3, 2)" || v.DType != dt {
						t.Errorf("%s %s: %s has shape %v, %s; want (3, 2) %s", name, dt, s, v.Shape, v.DType, dt)
					}
					for _, x := range v.Float64s() {
						if (s == Sum && x != 0) || (s != Sum && !math.IsNaN(x)) {
							t.Errorf("%s %s: %s = %g, want %s", name, dt, s, x, map[bool]string{true: "0", false: "NaN"}[s == Sum])
						}
					}
				}
				for _, s := range []Stat{Min, Max} {
					if _, err := run(Options{Axes: Axes{1}, Stats: []Stat{Mean, s}}); !errors.Is(err, ErrEmptyAxis) {
						t.Errorf("%s %s: %s of an empty axis: %v, want ErrEmptyAxis", name, dt, s, err)
					}
				}
				if r, err := run(Options{Axes: Axes{0}, Stats: []Stat{Min}}); err != nil || len(r.Stats[Min].Float64s()) != 0 {
					t.Errorf("%s %s: min over axis 0 of (3, 0, 2): %v, want an empty (0, 2)", name, dt, err)
				}
			}
		}
	}
}
