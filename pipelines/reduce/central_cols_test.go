package reduce

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/tensor"
)

// columnsData is centralData's rows laid out as the columns of an (outer,
// n, inner) array: column (o, j) holds row o·inner + j's n values. It
// returns the 3-d tensor, the rows' values (as centralRef takes them) and
// their means.
func columnsData(dt tensor.DType, outer, n, inner int, seed uint64) (*tensor.Tensor, []float64, []float64) {
	_, vals, mean := centralData(dt, outer*inner, n, 10, seed, n > 2)
	v3 := make([]float64, len(vals))
	for o := range outer {
		for i := range n {
			for j := range inner {
				v3[(o*n+i)*inner+j] = vals[(o*inner+j)*n+i]
			}
		}
	}
	return tensor.FromF64(v3, outer, n, inner).As(dt), vals, mean // exact: the values are dt's
}

// TestVulkanCentralColumns holds Central and Options.Central on (outer, n,
// inner) arrays reduced along their middle axis against centralRef on the
// same values taken as rows, on every device and storage type: columns
// that straddle the workgroups, records of more than one chunk (n > 1,024),
// a NaN and an all-NaN column, many tiles and tiles of gathered column
// blocks (a small window), with either rows kernel tuned (columns take an
// invocation per record either way), and Options.Central both fused and not.
func TestVulkanCentralColumns(t *testing.T) {
	var fused []bool
	shapes := [][3]int{{1, 5, 3}, {3, 64, 257}, {2, 1, 7}, {4, 1025, 5}, {2, 40, 1500}}
	for _, dev := range testdev.Devices(t) {
		for _, kernel := range []string{"none", "workgroup"} {
			for _, win := range []int64{0, 1<<12 + 64} {
				for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
					t.Run(fmt.Sprintf("%s/%s/window %d/%s", dev.Info.Name, kernel, win, dt), func(t *testing.T) {
						ctx := tune.WithOverride(context.Background(), "reduce", map[string]any{"rows_kernel": kernel, "rows_wg": 64, "rows_min": 1})
						test := &testOptions{window: win, central: func(f bool) { fused = append(fused, f) }}
						for _, sh := range shapes {
							outer, n, inner := sh[0], sh[1], sh[2]
							in, vals, mean := columnsData(dt, outer, n, inner, uint64(outer*n*inner))
							got, _, err := central(ctx, dev, tensor.SourceOf(in), mean, test)
							testdev.SkipNoFloat64(t, err)
							if err != nil {
								t.Fatal(err)
							}
							cnt, nans, m2, m3, m4, a3 := centralRef(vals, outer*inner, n)
							tol := 1e-12
							if !dev.Info.Float64 {
								tol = 1e-5
							}
							check := func(what string, cm *CentralMoments) {
								for q := range cnt {
									if cm.N[q] != cnt[q] || cm.NaNs[q] != nans[q] {
										t.Errorf("%v %s column %d: n %d, NaNs %d, want %d, %d", sh, what, q, cm.N[q], cm.NaNs[q], cnt[q], nans[q])
									}
									// Scales as TestVulkanCentral's: a column of one
									// value has moments of its centre's rounding.
									s := max(m2[q], math.Pow(math.Abs(mean[q])*1e-7, 2))
									for _, c := range []struct {
										name             string
										got, want, scale float64
									}{{"m2", cm.M2[q], m2[q], s}, {"m3", cm.M3[q], m3[q], max(a3[q], math.Pow(s, 1.5))}, {"m4", cm.M4[q], m4[q], max(m4[q], s*s)}} {
										if math.IsNaN(c.want) != math.IsNaN(c.got) || !math.IsNaN(c.want) && !(math.Abs(c.got-c.want) <= tol*c.scale) {
											t.Errorf("%v %s column %d: %s = %v, want %v (tolerance %.3g of %v)", sh, what, q, c.name, c.got, c.want, tol, c.scale)
										}
									}
								}
							}
							check("Central", got)
							fused = nil
							opt := Options{Axes: Axes{1}, SkipNaN: true, test: test}
							out, cm, err := withCentral(ctx, dev, in, opt, []Stat{Mean, Min, Max})
							if err != nil {
								t.Fatal(err)
							}
							// Whole arrays fit one tile: fused, unless the
							// window is small and the array is not.
							if want := win == 0 || in.Bytes() < 2048; len(fused) != 1 || fused[0] != want {
								t.Errorf("%v: fused %v, want %v (window %d)", sh, fused, want, win)
							}
							if !tensor.SameShape(out[Mean].Shape, []int{outer, inner}) {
								t.Errorf("%v: mean of shape %v", sh, out[Mean].Shape)
							}
							check("Options.Central", cm)
						}
					})
				}
			}
		}
	}
}
