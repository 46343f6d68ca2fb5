package latent

import (
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// TestWarnings: the ddof at least the values each moment reduces (2×3 over
// axes -2,-1 of (4, 2, 3): 6) and a batch over the samples that fit are
// warnings with their figures, said in the library's words and in a
// caller's; one value more, or an automatic batch, is none.
func TestWarnings(t *testing.T) {
	opt := Options{Moments: true, Axes: []int{-2, -1}, DDof: 6}
	ws := opt.Warnings([]int{4, 2, 3})
	if len(ws) != 1 || ws[0].Code != WarnDDof || ws[0].Data["n"] != 6 || ws[0].Data["ddof"] != 6 {
		t.Fatalf("ddof 6 over 6 values: %+v", ws)
	}
	if got, want := ws[0].Message, "ddof 6 with 6 value(s) over axes -2,-1: var and std are NaN (they divide by n − ddof)"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	flag := func(field, value string) string { return "--" + field + "=" + value }
	if got, want := ws[0].Words(flag), "--ddof=6 with 6 value(s) over --axes=-2,-1: var and std are NaN (they divide by n − ddof)"; got != want {
		t.Errorf("words %q, want %q", got, want)
	}
	opt.DDof = 5
	if ws := opt.Warnings([]int{4, 2, 3}); len(ws) != 0 {
		t.Errorf("ddof 5 over 6 values: %+v", ws)
	}
	p := Plan{Batch: 64, Fit: 12, Budget: engine.MemoryBudget{Bytes: 1 << 30, Source: "a test"}}
	ws = p.Warnings()
	if len(ws) != 1 || ws[0].Code != WarnBatch || ws[0].Data["batch"] != 64 || ws[0].Data["fit"] != 12 {
		t.Fatalf("batch 64 over 12: %+v", ws)
	}
	if got, want := ws[0].Message, "batch 64 is more than the 12 samples estimated to fit (1.0 GiB (a test)); it may run out of memory"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	p.Auto = true
	if ws := p.Warnings(); len(ws) != 0 {
		t.Errorf("an automatic batch: %+v", ws)
	}
}

// TestEmptyMoments: moments over an axis of length 0 are NaN, as NumPy's
// mean and var of an empty slice, with a warning, on the CPU path and
// every device (a DeviceError on lavapipe before, an input error on the
// CPU path): the same input gives the same answer everywhere.
func TestEmptyMoments(t *testing.T) {
	opt := Options{Moments: true, Axes: []int{-2, -1}}
	ws := opt.Warnings([]int{2, 3, 0, 5})
	if len(ws) != 1 || ws[0].Code != WarnEmpty {
		t.Fatalf("warnings %+v, want one %s", ws, WarnEmpty)
	}
	if got, want := ws[0].Message, "no values over axes -2,-1 (an axis of length 0): every moment is NaN, as NumPy's mean of an empty slice"; got != want {
		t.Errorf("message %q, want %q", got, want)
	}
	runners := map[string]runner{"cpu": cpuRunner}
	for _, dev := range testdev.Devices(t) {
		runners[dev.Info.Name] = deviceRunner(dev)
	}
	x := tensor.New(tensor.F32, 2, 3, 0, 5)
	for name, run := range runners {
		t.Run(name, func(t *testing.T) {
			r, err := run(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			m := r.Moments
			for _, s := range []*tensor.Tensor{m.Mean, m.Var, m.Std, m.Min, m.Max, m.Skew, m.Kurt} {
				if len(s.Shape) != 2 || s.Shape[0] != 2 || s.Shape[1] != 3 || len(s.F64) != 6 {
					t.Fatalf("shape %v (%d values), want (2, 3)", s.Shape, len(s.F64))
				}
				for _, v := range s.F64 {
					if !math.IsNaN(v) {
						t.Fatalf("a moment of an empty slice is %v, want NaN", v)
					}
				}
			}
		})
	}
}
