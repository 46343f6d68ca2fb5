package latent

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/internal/testdev"
	"github.com/vkstat/vkstat/tensor"
)

// TestCorrLeavesInput: the correlations read the tensor where it lies
// (strided sets) and copy only the sets that hold a NaN or ±Inf, zeroing
// or compacting the copies: the caller's tensor is never written, in any
// dtype, under either policy, on the CPU and every device. Its results
// agree with Reference as in the suite.
func TestCorrLeavesInput(t *testing.T) {
	runners := map[string]runner{"cpu": cpuRunner}
	for _, dev := range testdev.Devices(t) {
		runners[dev.Info.Name] = deviceRunner(dev)
	}
	shape := []int{3, 4, 3, 5, 5}
	d, _ := DimsOf(shape)
	for name, run := range runners {
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				t.Run(fmt.Sprintf("%s/%s/%s", name, dt, policy), func(t *testing.T) {
					x := latentData(shape, 3, storages[3])
					plant(x, d, 0)
					x.F64[7] = math.Inf(-1)
					x = x.As(dt)
					before := x.Raw()
					before = slices.Clone(before)
					req := Request{Corr: true, CorrFrames: true, LagCorr: true, Lags: 2, NaN: policy}
					got, err := run(x, req)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					if !slices.Equal(before, x.Raw()) {
						t.Fatal("the input was modified")
					}
					want, err := Reference(x, req)
					if err != nil {
						t.Fatal(err)
					}
					for _, c := range []struct {
						what      string
						got, want *tensor.Tensor
					}{{"corr", got.Corr, want.Corr}, {"corr-frames", got.CorrFrames, want.CorrFrames}, {"frame corr", got.FrameCorr, want.FrameCorr}} {
						for i, w := range c.want.F64 {
							g := c.got.F64[i]
							if math.IsNaN(w) != math.IsNaN(g) || !math.IsNaN(w) && !(math.Abs(g-w) <= 1e-4) {
								t.Fatalf("%s[%d] = %v, want %v", c.what, i, g, w)
							}
						}
					}
				})
			}
		}
	}
}
