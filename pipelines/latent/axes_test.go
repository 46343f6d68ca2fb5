package latent

import (
	"fmt"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// TestMomentsRunOfAxes checks that the CPU path and every device take the
// moments over one run of axes that is not last ({1}, {2}, {1, 2}, {2, 3},
// {0, 1}, {0, 1, 2}) where they lie, without a permuted copy (permutedHook
// counts them), in every storage, with a NaN, an Inf (a plain copy then,
// to make it NaN), a constant channel and a constant frame planted,
// against Reference; and that sets that are no run ({1, 3}, {0, 2, 3, 4})
// still take the permute. The shapes put more than 512 values after the
// run (several column blocks of shape34Strided) and fewer.
func TestMomentsRunOfAxes(t *testing.T) {
	t.Run("cpu", func(t *testing.T) { runOfAxes(t, cpuRunner, false) })
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runOfAxes(t, deviceRunner(dev), !dev.Info.Float64) })
	}
}

func runOfAxes(t *testing.T, run runner, acc32 bool) {
	count := 0
	permutedHook = func() { count++ }
	defer func() { permutedHook = nil }()
	shapes := [][]int{{2, 5, 4, 3, 7}, {1, 3, 3, 17, 40}, {2, 6, 7, 8}}
	sets := []struct {
		axes    []int
		permute bool
	}{
		{[]int{1}, false}, {[]int{2}, false}, {[]int{1, 2}, false}, {[]int{2, 3}, false},
		{[]int{0, 1}, false}, {[]int{0, 1, 2}, false}, {[]int{1, 3}, true}, {[]int{0, 2, 3, 4}, true},
	}
	for si, shape := range shapes {
		for _, st := range storages {
			dts := []tensor.DType{st.dt}
			switch st.name {
			case "float16":
				dts = append(dts, tensor.F16)
			case "bfloat16":
				dts = append(dts, tensor.BF16)
			}
			for _, dt := range dts {
				for _, set := range sets {
					if set.axes[len(set.axes)-1] >= len(shape) {
						continue
					}
					for _, policy := range []NaNPolicy{Propagate, Skip} {
						for _, inf := range []bool{false, true} {
							name := fmt.Sprintf("%v/%s/%s/%v/%s/inf=%v", shape, st.name, dt, set.axes, policy, inf)
							t.Run(name, func(t *testing.T) {
								x := latentData(shape, uint64(31*si+5), st)
								d, _ := DimsOf(shape)
								plant(x, d, si)
								if !inf {
									for i, v := range x.Float64s() {
										if math.IsInf(v, 0) {
											setAt(x, i, 2.5)
										}
									}
								}
								ref := x
								if dt.Is16() {
									x = x.As(dt) // exact: the values are 16-bit ones
									ref = tensor.FromF64(checks.Halves(dt == tensor.BF16, x.U16), shape...)
								}
								req := Options{Moments: true, Axes: set.axes, DDof: si % 2, NaN: policy}
								count = 0
								got, err := run(x, req)
								testdev.SkipNoFloat64(t, err)
								if err != nil {
									t.Fatal(err)
								}
								if want := map[bool]int{false: 0, true: 1}[set.permute]; count != want {
									t.Errorf("%d permuted copies, want %d", count, want)
								}
								want, err := Reference(ref, req)
								if err != nil {
									t.Fatal(err)
								}
								tdt := dt
								if dt.Is16() {
									tdt = tensor.F32
								}
								compare(t, got, want, tolFor(tdt, acc32))
							})
						}
					}
				}
			}
		}
	}
}
