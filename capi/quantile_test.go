package capi

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// TestQuantile: the quantile operation on NumPy's x (make_quantile.py)
// gives np.quantile(x, q, axis=1) and np.nanquantile(x, q, axis=-1) on the
// CPU path and a Vulkan device, shaped (len(q),) + the other axes; a q
// outside [0, 1] is bad input worded with Python's parameter, an axis out
// of range NumPy's AxisError.
func TestQuantile(t *testing.T) {
	fixture := func(name string) *tensor.Tensor {
		x, err := formats.ReadNPY(filepath.Join("..", "testdata", "quantile", name))
		if err != nil {
			t.Fatal(err)
		}
		return x
	}
	x, q := fixture("x.npy"), fixture("q.npy").F64
	arr := map[string]ArraySpec{"a": lendF64(x.F64, x.Shape, 0)}
	for _, s := range []*Session{openCPU(t), openVulkan(t)} {
		if !s.Device.Float64 {
			t.Logf("%s has no float64: NumPy's float64 quantiles are held on the other sessions", s.Device.Name)
			continue
		}
		for _, c := range []struct {
			axis int
			skip bool
			want string
		}{{1, false, "quantile_axis1.npy"}, {-1, true, "nanquantile_axis2.npy"}} {
			r, err := call(t, s, context.Background(), "quantile", map[string]any{"q": q, "axis": c.axis, "skip_nan": c.skip}, arr, ptrOf(x.F64))
			if err != nil {
				t.Fatalf("%s: %s: %v", s.Device.Name, c.want, err)
			}
			want := fixture(c.want)
			if o := r.Outputs[0]; o.Name != "q" || !tensor.SameShape(o.Shape, want.Shape) {
				t.Fatalf("%s: output %s of shape %v, want q of shape %v", s.Device.Name, o.Name, o.Shape, want.Shape)
			}
			checks.Close(t, s.Device.Name+" "+c.want, f64s(r, r.Outputs[0]), want.F64, 1e-12, 1e-12)
		}
		_, err := call(t, s, context.Background(), "quantile", map[string]any{"q": []float64{0.5, 1.5}}, arr, ptrOf(x.F64))
		if Status(err, false) != StatusValue || !strings.Contains(err.Error(), "q must be in [0, 1], got 1.5 (quantile 2 of 2)") {
			t.Errorf("q 1.5: %v (status %d), want bad input naming q", err, Status(err, false))
		}
		_, err = call(t, s, context.Background(), "quantile", map[string]any{"axis": 3}, arr, ptrOf(x.F64))
		if Status(err, true) != StatusAxis || !strings.Contains(err.Error(), "axis must be in -3..2") {
			t.Errorf("axis 3: %v (status %d), want StatusAxis", err, Status(err, true))
		}
	}
}
