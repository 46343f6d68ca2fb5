package cov

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// stridedImpl is the strided entry point of one implementation, beside its
// (N, T, P) one.
type stridedImpl struct {
	strided func(x *tensor.Tensor, s Strided, opt Options) (*Result, error)
	array   func(x *tensor.Tensor, opt Options) (*Result, error)
}

var cpuStrided = stridedImpl{strided: CPUStrided, array: CPU}

func vulkanStrided(dev *engine.Device) stridedImpl {
	return vulkanStridedCtx(context.Background(), dev)
}

// vulkanStridedCtx is vulkanStrided with ctx's tune override (the tiled
// kernel, say).
func vulkanStridedCtx(ctx context.Context, dev *engine.Device) stridedImpl {
	return stridedImpl{
		strided: func(x *tensor.Tensor, s Strided, opt Options) (*Result, error) {
			r, _, err := VulkanStrided(ctx, dev, x, s, opt)
			return r, err
		},
		array: func(x *tensor.Tensor, opt Options) (*Result, error) {
			r, _, err := Vulkan(ctx, dev, x, opt)
			return r, err
		},
	}
}

// latentLayout is one of the ways vkstat latent reads an (N, C, F, H, W)
// array as sample sets: its Strided, and the (sets, samples, variables)
// copy of it made here by plain loops over the five indices.
type latentLayout struct {
	name string
	s    Strided
	perm func(x []float64) *tensor.Tensor
}

func latentLayouts(n, c, f, h, w int) []latentLayout {
	hw := h * w
	at := func(ni, ci, fi, pix int) int { return ((ni*c+ci)*f+fi)*hw + pix }
	seq := func(k, step int) []int {
		o := make([]int, k)
		for i := range o {
			o[i] = i * step
		}
		return o
	}
	var corrB, framesB, lagB []int
	for ni := 0; ni < n; ni++ {
		corrB = append(corrB, at(ni, 0, 0, 0))
		for fi := 0; fi < f; fi++ {
			framesB = append(framesB, at(ni, 0, fi, 0))
		}
		for ci := 0; ci < c; ci++ {
			lagB = append(lagB, at(ni, ci, 0, 0))
		}
	}
	return []latentLayout{
		{"corr", Strided{Bases: corrB, Offsets: seq(c, f*hw), T: f * hw, TStride: 1}, func(x []float64) *tensor.Tensor {
			out := tensor.New(tensor.F64, n, f*hw, c)
			for ni := 0; ni < n; ni++ {
				for ci := 0; ci < c; ci++ {
					for fi := 0; fi < f; fi++ {
						for pix := 0; pix < hw; pix++ {
							out.F64[(ni*f*hw+fi*hw+pix)*c+ci] = x[at(ni, ci, fi, pix)]
						}
					}
				}
			}
			return out
		}},
		{"frames", Strided{Bases: framesB, Offsets: seq(c, f*hw), T: hw, TStride: 1}, func(x []float64) *tensor.Tensor {
			out := tensor.New(tensor.F64, n*f, hw, c)
			for ni := 0; ni < n; ni++ {
				for ci := 0; ci < c; ci++ {
					for fi := 0; fi < f; fi++ {
						for pix := 0; pix < hw; pix++ {
							out.F64[((ni*f+fi)*hw+pix)*c+ci] = x[at(ni, ci, fi, pix)]
						}
					}
				}
			}
			return out
		}},
		{"lag", Strided{Bases: lagB, Offsets: seq(f, hw), T: hw, TStride: 1}, func(x []float64) *tensor.Tensor {
			out := tensor.New(tensor.F64, n*c, hw, f)
			for ni := 0; ni < n; ni++ {
				for ci := 0; ci < c; ci++ {
					for fi := 0; fi < f; fi++ {
						for pix := 0; pix < hw; pix++ {
							out.F64[((ni*c+ci)*hw+pix)*f+fi] = x[at(ni, ci, fi, pix)]
						}
					}
				}
			}
			return out
		}},
	}
}

// latentData is a float32-representable (N, C, F, H, W) array with
// channel means around 100 (centring matters) and correlated channels.
func latentData(shape []int, seed uint64) *tensor.Tensor {
	rng := rand.New(rand.NewPCG(seed, 0x737472))
	x := tensor.New(tensor.F64, shape...)
	c := shape[1]
	inner := x.Len() / (shape[0] * c)
	for ni := 0; ni < shape[0]; ni++ {
		prev := make([]float64, inner)
		for ci := 0; ci < c; ci++ {
			m, sd := 100+10*rng.NormFloat64(), 0.5+rng.Float64()
			row := x.F64[(ni*c+ci)*inner : (ni*c+ci+1)*inner]
			for i := range row {
				z := rng.NormFloat64() + 0.6*prev[i]
				prev[i] = z
				row[i] = float64(float32(m + sd*z))
			}
		}
	}
	return x
}

// decoded is x's values in float64, 16-bit ones decoded by checks.Halves
// (independent of the kernels' and tensor's conversions).
func decoded(x *tensor.Tensor) []float64 {
	if x.DType.Is16() {
		return checks.Halves(x.DType == tensor.BF16, x.U16)
	}
	return x.Float64s()
}

// runStridedSuite holds impl's strided entry point against its own (N, T,
// P) entry point on the explicitly permuted copy and against
// ReferenceStrided, on the three latent layouts, every dtype, sizes around
// the 64-set and 4-variable block edges; then a gather layout (negative
// offsets, a sample stride) against ReferenceGather, and the refusals.
func runStridedSuite(t *testing.T, impl stridedImpl, float64OK bool) {
	shapes := [][]int{{1, 1, 2, 1, 1}, {2, 3, 4, 1, 3}, {3, 13, 5, 7, 9}, {13, 65, 5, 3, 3}, {1, 5, 2, 31, 33}}
	for si, shape := range shapes {
		base := latentData(shape, uint64(si+1))
		for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16} {
			if dt == tensor.F64 && !float64OK {
				continue
			}
			x := base.As(dt)
			vals := decoded(x)
			for _, l := range latentLayouts(shape[0], shape[1], shape[2], shape[3], shape[4]) {
				ests := []Estimator{None}
				if si == 2 {
					ests = allEstimators
				}
				for _, est := range ests {
					t.Run(fmt.Sprintf("%v/%s/%s/%s", shape, dt, l.name, est), func(t *testing.T) {
						opt := Options{Estimator: est}
						got, err := impl.strided(x, l.s, opt)
						testdev.SkipNoFloat64(t, err)
						if err != nil {
							t.Fatal(err)
						}
						want, err := ReferenceStrided(tensor.FromF64(vals, x.Shape...), l.s, opt)
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, outType(dt))
						p := l.perm(vals)
						perm, err := impl.array(p.As(dt), opt)
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, perm.asF64(), outType(dt))
						// The independent reference on the permuted copy agrees too
						// (the layout's Strided is what the copy holds).
						ref, err := Reference(p, opt)
						if err != nil {
							t.Fatal(err)
						}
						checkBlocks(t, "cov (reference on the copy)", want.Cov.F64, ref.Cov.F64, len(l.s.Bases), 1e-12, false)
					})
				}
			}
		}
	}
	t.Run("gather-layout", func(t *testing.T) {
		// PACO patches as strided sets: base y·W+x, offsets dy·W+dx (some
		// negative), sample stride H·W.
		cube := testCube(40, 11, 13, 3)
		offs := PatchOffsets(2)
		g := Gather{Locations: ValidLocations(11, 13, offs), Offsets: offs}
		s := Strided{T: 40, TStride: 11 * 13}
		for _, l := range g.Locations {
			s.Bases = append(s.Bases, l[0]*13+l[1])
		}
		for _, o := range offs {
			s.Offsets = append(s.Offsets, o[0]*13+o[1])
		}
		for _, est := range []Estimator{PACO, LedoitWolf} {
			want, err := ReferenceGather(cube, g, Options{Estimator: est})
			if err != nil {
				t.Fatal(err)
			}
			for _, dt := range []tensor.DType{tensor.F32, tensor.F64, tensor.BF16} {
				if dt == tensor.F64 && !float64OK {
					continue
				}
				x := cube.As(dt)
				if dt.Is16() {
					if want, err = ReferenceGather(tensor.FromF64(decoded(x), cube.Shape...), g, Options{Estimator: est}); err != nil {
						t.Fatal(err)
					}
				}
				got, err := impl.strided(x, s, Options{Estimator: est})
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, got, want, outType(dt))
			}
		}
	})
	t.Run("nan", func(t *testing.T) {
		// A NaN makes its set's outputs NaN, as on the (N, T, P) path.
		x := latentData([]int{3, 4, 2, 3, 3}, 9)
		x.F64[1*4*18+2*18+5] = math.NaN() // sample 1, channel 2
		l := latentLayouts(3, 4, 2, 3, 3)[0]
		want, err := ReferenceStrided(x, l.s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := impl.strided(x.As(tensor.F32), l.s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		checkResult(t, got, want, tensor.F32)
	})
	t.Run("refusals", func(t *testing.T) {
		x := tensor.New(tensor.F32, 2, 3, 10)
		for _, c := range []struct {
			name string
			s    Strided
			opt  Options
		}{
			{"past-end", Strided{Bases: []int{0, 31}, Offsets: []int{0, 10}, T: 20, TStride: 1}, Options{}},
			{"before-start", Strided{Bases: []int{0}, Offsets: []int{-1, 10}, T: 5, TStride: 1}, Options{}},
			{"T0", Strided{Bases: []int{0}, Offsets: []int{0}, T: 0, TStride: 1}, Options{}},
			{"P0", Strided{Bases: []int{0}, T: 5, TStride: 1}, Options{}},
			{"negative-stride", Strided{Bases: []int{50}, Offsets: []int{0}, T: 5, TStride: -1}, Options{}},
			{"ddof1-T1", Strided{Bases: []int{0}, Offsets: []int{0, 1}, T: 1, TStride: 1}, Options{DDof: 1}},
		} {
			if _, err := impl.strided(x, c.s, c.opt); err == nil {
				t.Errorf("%s: got no error", c.name)
			} else {
				t.Logf("%s: %v", c.name, err)
			}
		}
		if _, err := impl.strided(tensor.FromF64(make([]float64, 5), 2, 3), Strided{Bases: []int{0}, Offsets: []int{0}, T: 2, TStride: 1}, Options{}); err == nil {
			t.Errorf("short data: got no error")
		}
	})
}

func TestCPUStrided(t *testing.T) {
	runStridedSuite(t, cpuStrided, true)
}

// TestVulkanStrided runs the strided suite on every device; then with
// small chunks (chunks of sets that share their span, 16-bit spans that
// start on odd elements), and sets long enough to be split over dispatches
// (llvmpipe's loop limit).
func TestVulkanStrided(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		impl := vulkanStrided(dev)
		t.Run(dev.Info.Name, func(t *testing.T) {
			runStridedSuite(t, impl, dev.Info.Float64)
			t.Run("chunks", func(t *testing.T) {
				small := &testOptions{chunkBytes: 6000} // the whole array is 7,560 bytes in float32
				shape := []int{7, 6, 5, 3, 3}           // 9 pixels: odd bases for the frame sets
				base := latentData(shape, 21)
				for _, dt := range []tensor.DType{tensor.F32, tensor.F16, tensor.BF16} {
					x := base.As(dt)
					vals := decoded(x)
					for _, l := range latentLayouts(7, 6, 5, 3, 3) {
						got, err := impl.strided(x, l.s, Options{Estimator: LedoitWolf, test: small})
						if err != nil {
							t.Fatal(err)
						}
						want, err := ReferenceStrided(tensor.FromF64(vals, shape...), l.s, Options{Estimator: LedoitWolf})
						if err != nil {
							t.Fatal(err)
						}
						checkResult(t, got, want, tensor.F32)
					}
				}
			})
			t.Run("one-set-too-large", func(t *testing.T) {
				x := latentData([]int{3, 4, 2, 3, 3}, 5).As(tensor.F32)
				l := latentLayouts(3, 4, 2, 3, 3)[1]
				got, err := impl.strided(x, l.s, Options{test: &testOptions{chunkBytes: 100}}) // below one set: each chunk is one set
				if err != nil {
					t.Fatal(err)
				}
				want, err := ReferenceStrided(x.As(tensor.F64), l.s, Options{})
				if err != nil {
					t.Fatal(err)
				}
				checkResult(t, got, want, tensor.F32)
			})
			t.Run("long", func(t *testing.T) {
				// (N, C, T) data read as channel sets: T past one dispatch.
				const T = 30011
				x := latentData([]int{2, 3, 1, 1, T}, 8)
				l := latentLayouts(2, 3, 1, 1, T)[0]
				ests := []Estimator{None, LedoitWolf}
				if !dev.Info.IsLavapipe() {
					ests = ests[1:]
				}
				for _, est := range ests {
					want, err := ReferenceStrided(x, l.s, Options{Estimator: est})
					if err != nil {
						t.Fatal(err)
					}
					for _, dt := range []tensor.DType{tensor.F32, tensor.BF16} {
						xd := x.As(dt)
						if dt.Is16() {
							if want, err = ReferenceStrided(tensor.FromF64(decoded(xd), x.Shape...), l.s, Options{Estimator: est}); err != nil {
								t.Fatal(err)
							}
						}
						got, err := impl.strided(xd, l.s, Options{Estimator: est})
						if err != nil {
							t.Fatal(err)
						}
						if !dev.Info.Float64 {
							// float accumulation over 30,000 samples: held to the
							// (N, T, P) kernel on the same values instead.
							got32, err := impl.array(l.perm(decoded(xd)).As(tensor.F32), Options{Estimator: est})
							if err != nil {
								t.Fatal(err)
							}
							want = got32.asF64()
						}
						checkResult(t, got, want, tensor.F32)
					}
				}
			})
		})
	}
}
