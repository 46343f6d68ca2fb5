package reduce

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// centralRef is the plain float64 two-pass: the mean of each row's non-NaN
// values, then the means of the powers of the deviations from it.
// a3 is the mean of |d|³, the scale of m3's rounding errors.
func centralRef(v []float64, rows, n int) (cnt, nans []int, m2, m3, m4, a3 []float64) {
	cnt, nans = make([]int, rows), make([]int, rows)
	m2, m3, m4, a3 = make([]float64, rows), make([]float64, rows), make([]float64, rows), make([]float64, rows)
	for r := range rows {
		row := v[r*n : (r+1)*n]
		s := 0.0
		for _, x := range row {
			if math.IsNaN(x) {
				nans[r]++
			} else {
				s += x
				cnt[r]++
			}
		}
		if cnt[r] == 0 {
			m2[r], m3[r], m4[r] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		mean := s / float64(cnt[r])
		for _, x := range row {
			if !math.IsNaN(x) {
				d := x - mean
				m2[r] += d * d
				m3[r] += d * d * d
				m4[r] += d * d * d * d
				a3[r] += math.Abs(d * d * d)
			}
		}
		k := float64(cnt[r])
		m2[r], m3[r], m4[r], a3[r] = m2[r]/k, m3[r]/k, m4[r]/k, a3[r]/k
	}
	return
}

// centralData is rows×n values off + N(0,1)³/3 (skewed, heavy-tailed) in
// dt's precision, a NaN in row 0 and, with nan, row 1 all NaN; it returns
// the tensor, its values as float64 and the rows' means as Run gives them
// (rounded to float32 but for a float64 input)
func centralData(dt tensor.DType, rows, n int, off float64, seed uint64, nan bool) (*tensor.Tensor, []float64, []float64) {
	rng := rand.New(rand.NewPCG(seed, 3))
	v := make([]float64, rows*n)
	for i := range v {
		z := rng.NormFloat64()
		v[i] = off + z*z*z/3
	}
	if nan {
		v[min(n/2, n-1)] = math.NaN()
		if rows > 1 {
			for i := n; i < 2*n; i++ {
				v[i] = math.NaN()
			}
		}
	}
	t := tensor.FromF64(v, rows, n).As(dt)
	vals := t.As(tensor.F64).F64 // the stored values (16-bit widened exactly)
	mean := make([]float64, rows)
	for r := range rows {
		s, k := 0.0, 0
		for _, x := range vals[r*n : (r+1)*n] {
			if !math.IsNaN(x) {
				s, k = s+x, k+1
			}
		}
		mean[r] = s / float64(max(k, 1))
		if dt != tensor.F64 {
			mean[r] = float64(float32(mean[r]))
		}
		if k == 0 {
			mean[r] = math.NaN()
		}
	}
	return t, vals, mean
}

// TestVulkanCentral holds Central against centralRef on every device, for
// every storage type, both kernels (an invocation per record, and a
// workgroup of 64 per record), rows that straddle the workgroup and chunk
// edges, NaNs and an all-NaN row, rows past lavapipe's 65,535-iteration
// loop limit (with one lane a workgroup and reduce's first pass asked for
// one record a row), and many small tiles (16-bit windows starting
// mid-word).
func TestVulkanCentral(t *testing.T) {
	type tc struct {
		name string
		set  map[string]any
		rows []int
		ns   []int
		win  int64
	}
	cases := []tc{
		{"invocation", map[string]any{"rows_kernel": "none"}, []int{1, 3, 65}, []int{1, 2, 63, 64, 65, 255, 256, 257, 4095, 4097}, 0},
		{"workgroup", map[string]any{"rows_kernel": "workgroup", "rows_wg": 64, "rows_min": 1}, []int{1, 3, 65}, []int{1, 2, 63, 64, 65, 255, 256, 257, 4097}, 0},
		{"long rows", map[string]any{"rows_kernel": "workgroup", "rows_wg": 1, "rows_records": 1, "rows_min": 1}, []int{2}, []int{200_003}, 0},
		{"tiles", map[string]any{"rows_kernel": "none"}, []int{7, 2}, []int{3001, 10_001}, 1<<12 + 64},
	}
	for _, dev := range testdev.Devices(t) {
		for _, c := range cases {
			for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
				t.Run(fmt.Sprintf("%s/%s/%s", dev.Info.Name, c.name, dt), func(t *testing.T) {
					ctx := tune.WithOverride(context.Background(), "reduce", c.set)
					test := &testOptions{window: c.win}
					for _, rows := range c.rows {
						for _, n := range c.ns {
							in, vals, mean := centralData(dt, rows, n, 10, uint64(rows*n), n > 2)
							got, _, err := central(ctx, dev, tensor.SourceOf(in), mean, test)
							testdev.SkipNoFloat64(t, err)
							if err != nil {
								t.Fatal(err)
							}
							cnt, nans, m2, m3, m4, a3 := centralRef(vals, rows, n)
							// Bounds (×10 below), relative to the scales:
							// float64 sums 1e-13; compensated float32 sums of
							// float32 powers, each power rounded, 1e-7.
							const eps = 0x1p-52
							tol := 1e-13
							if !dev.Info.Float64 {
								tol = 1e-7
							}
							for r := range rows {
								if got.N[r] != cnt[r] || got.NaNs[r] != nans[r] {
									t.Errorf("%d×%d row %d: n %d, NaNs %d, want %d, %d", rows, n, r, got.N[r], got.NaNs[r], cnt[r], nans[r])
								}
								// The scales: the variance, the mean |d|³ and
								// m4, or for a row of one value the centre's
								// rounding (the moments about it are then
								// tiny, not 0).
								s := max(m2[r], math.Pow(math.Abs(mean[r])*1e-7, 2))
								for _, q := range []struct {
									what      string
									got, want float64
									scale     float64
									ref       float64 // the reference's own error: its mean's rounding δ ≤ ε|mean| moves m3 by 3δ·m2, m4 by 4δ·a3
								}{{"m2", got.M2[r], m2[r], s, 0}, {"m3", got.M3[r], m3[r], max(a3[r], math.Pow(s, 1.5)), 3 * eps * math.Abs(mean[r]) * m2[r]},
									{"m4", got.M4[r], m4[r], max(m4[r], s*s), 4 * eps * math.Abs(mean[r]) * a3[r]}} {
									if math.IsNaN(q.want) {
										if !math.IsNaN(q.got) {
											t.Errorf("%d×%d row %d: %s = %v, want NaN", rows, n, r, q.what, q.got)
										}
										continue
									}
									if e := (math.Abs(q.got-q.want) - q.ref) / q.scale; !(e <= tol*10) {
										t.Errorf("%d×%d row %d: %s = %v, want %v (error %.3g of the scale, tolerance %.3g)", rows, n, r, q.what, q.got, q.want, e, tol*10)
									}
								}
							}
						}
					}
				})
			}
		}
	}
}

// withCentral is Run with Options.Central, giving the statistics and the
// central moments.
func withCentral(ctx context.Context, dev *engine.Device, in *tensor.Tensor, opt Options, stats []Stat) (map[Stat]*tensor.Tensor, *CentralMoments, error) {
	opt.Stats, opt.Central = stats, true
	r, err := Run(ctx, dev, in, opt)
	if err != nil {
		return nil, nil, err
	}
	return r.Stats, r.Central, nil
}

// TestVulkanRunCentral holds Run with Options.Central against centralRef and its
// statistics against Vulkan's, on every device and storage type, both ways
// it runs: fused with the reduction (one tile), and as a second upload
// (many tiles), both NaN policies.
func TestVulkanRunCentral(t *testing.T) {
	var fused []bool
	for _, dev := range testdev.Devices(t) {
		for _, win := range []int64{0, 1<<12 + 64} {
			for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
				t.Run(fmt.Sprintf("%s/window %d/%s", dev.Info.Name, win, dt), func(t *testing.T) {
					test := &testOptions{window: win, central: func(f bool) { fused = append(fused, f) }}
					rows, n := 9, 3001
					in, vals, _ := centralData(dt, rows, n, -5, 17, true)
					for _, skip := range []bool{false, true} {
						opt := Options{Axes: Axes{1}, DDof: 1, SkipNaN: skip, test: test}
						stats := []Stat{Mean, Std, Min, Max}
						fused = nil
						out, cm, err := withCentral(context.Background(), dev, in, opt, stats)
						testdev.SkipNoFloat64(t, err)
						if err != nil {
							t.Fatal(err)
						}
						if len(fused) != 1 || fused[0] != (win == 0) {
							t.Errorf("fused %v, want %v", fused, win == 0)
						}
						want, _, err := Vulkan(context.Background(), dev, in, opt, stats)
						if err != nil {
							t.Fatal(err)
						}
						for _, s := range stats {
							g, w := out[s].As(tensor.F64).F64, want[s].As(tensor.F64).F64
							for i := range w {
								if !(g[i] == w[i] || math.IsNaN(g[i]) && math.IsNaN(w[i])) {
									t.Errorf("%s[%d] = %v, Vulkan gives %v", s, i, g[i], w[i])
								}
							}
						}
						cnt, nans, m2, m3, m4, a3 := centralRef(vals, rows, n)
						// Without float64, d = x − c is rounded to float32,
						// and where |d| is large against |c| those roundings
						// share a sign (c's low bits): on these heavy-tailed
						// values m3 came within 1.1e-6 of Σ|d|³/n.
						tol := 1e-12
						if !dev.Info.Float64 {
							tol = 1e-5
						}
						for r := range rows {
							if cm.N[r] != cnt[r] || cm.NaNs[r] != nans[r] {
								t.Errorf("row %d: n %d, NaNs %d, want %d, %d", r, cm.N[r], cm.NaNs[r], cnt[r], nans[r])
							}
							for _, q := range []struct {
								what             string
								got, want, scale float64
							}{{"m2", cm.M2[r], m2[r], m2[r]}, {"m3", cm.M3[r], m3[r], a3[r]}, {"m4", cm.M4[r], m4[r], m4[r]}} {
								if math.IsNaN(q.want) != math.IsNaN(q.got) || !math.IsNaN(q.want) && !(math.Abs(q.got-q.want) <= tol*q.scale) {
									t.Errorf("row %d: %s = %v, want %v (tolerance %.3g of %v)", r, q.what, q.got, q.want, tol, q.scale)
								}
							}
						}
					}
				})
			}
		}
	}
}
