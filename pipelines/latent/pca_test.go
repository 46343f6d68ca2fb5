package latent

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/device/testdev"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

type pcaRunner func(x *tensor.Tensor, policy NaNPolicy) (*PCA, error)

func pcaOn(dev *engine.Device) pcaRunner {
	return func(x *tensor.Tensor, policy NaNPolicy) (*PCA, error) {
		return runPCA(context.Background(), dev, x, policy)
	}
}

// pcaTol is the tolerance of eigenvalues relative to the sample's largest,
// of ratios (absolute) and of eigenvectors (times their relative gap, for
// gaps of at least 1e-2), by the dtype computed in: float32 covariances
// (float64 accumulation, or float32 on devices without float64) and a
// float32 Jacobi give about 1e-6 relative; the issue asks 1e-5.
func pcaTol(dt tensor.DType, acc32 bool) float64 {
	switch {
	case dt == tensor.F64:
		return 1e-10
	case acc32:
		return 3e-5
	}
	return 1e-5
}

// comparePCA holds got to want: NaN in the same places, values, ratios and
// vectors (up to sign, where the eigenvalue is separated) within tol.
func comparePCA(t *testing.T, got, want *PCA, c int, tol float64) {
	t.Helper()
	n := len(want.Values.F64) / c
	worst := 0.0
	for s := range n {
		wv := want.Values.F64[s*c : (s+1)*c]
		gv := got.Values.F64[s*c : (s+1)*c]
		if math.IsNaN(wv[0]) || math.IsNaN(gv[0]) {
			if math.IsNaN(wv[0]) != math.IsNaN(gv[0]) {
				t.Errorf("sample %d: λ1 %v, want %v", s, gv[0], wv[0])
			}
			continue
		}
		scale := math.Max(math.Abs(wv[0]), math.Abs(wv[c-1]))
		if scale == 0 {
			scale = 1
		}
		for k := range c {
			e := math.Abs(gv[k]-wv[k]) / scale
			worst = math.Max(worst, e)
			if !(e <= tol) {
				t.Errorf("sample %d: λ%d = %.9g, want %.9g (relative error %.3g > %.3g)", s, k+1, gv[k], wv[k], e, tol)
			}
			gr, wr := got.Ratio.F64[s*c+k], want.Ratio.F64[s*c+k]
			if !checks.Near(gr, wr, tol) {
				t.Errorf("sample %d: ratio %d = %.9g, want %.9g", s, k+1, gr, wr)
			}
			gap := math.Inf(1)
			for j := range c {
				if j != k {
					gap = math.Min(gap, math.Abs(wv[k]-wv[j])/scale)
				}
			}
			if gap < 1e-2 {
				continue
			}
			dot, d2 := 0.0, 0.0
			for i := range c {
				dot += got.Vectors.F64[(s*c+i)*c+k] * want.Vectors.F64[(s*c+i)*c+k]
			}
			sg := math.Copysign(1, dot)
			for i := range c {
				d := got.Vectors.F64[(s*c+i)*c+k] - sg*want.Vectors.F64[(s*c+i)*c+k]
				d2 += d * d
			}
			if e := math.Sqrt(d2) * math.Min(gap, 1); !(e <= 10*tol) {
				t.Errorf("sample %d: component %d off by %.3g (×gap; > %.3g)", s, k+1, e, 10*tol)
			}
		}
	}
	t.Logf("worst eigenvalue error %.2g of the largest", worst)
}

// runPCASuite holds run to PCAReference on the latent suite's shapes
// (C = 1 .. 65 channels, 65 over 18 pixels: a rank-deficient covariance),
// float16, bfloat16 (kept 16-bit, the reference on the values decoded
// independently by checks.Halves, float32's tolerance), float32 and
// float64, both NaN policies with NaN, +Inf and a constant channel planted.
func runPCASuite(t *testing.T, run pcaRunner, acc32 bool) {
	for si, shape := range suiteShapes {
		for _, st := range storages {
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				t.Run(fmt.Sprintf("%v/%s/%s", shape, st.name, policy), func(t *testing.T) {
					x := latentData(shape, uint64(100*si+7), st)
					d, _ := DimsOf(shape)
					plant(x, d, si)
					ref, dt := x, st.dt
					if h, ok := map[string]tensor.DType{"float16": tensor.F16, "bfloat16": tensor.BF16}[st.name]; ok {
						dt = h
						x = x.As(dt) // exact: the values are 16-bit ones
						ref = tensor.FromF64(checks.Halves(dt == tensor.BF16, x.U16), shape...)
					}
					got, err := run(x, policy)
					testdev.SkipNoFloat64(t, err)
					if err != nil {
						t.Fatal(err)
					}
					if x.DType != dt {
						t.Fatalf("the input became %s", x.DType)
					}
					want, err := PCAReference(ref, policy)
					if err != nil {
						t.Fatal(err)
					}
					if dt.Is16() {
						dt = tensor.F32
					}
					comparePCA(t, got, want, d.C, pcaTol(dt, acc32))
				})
			}
		}
	}
}

func TestPCACPU(t *testing.T) { runPCASuite(t, pcaOn(nil), false) }

func TestPCAVulkan(t *testing.T) {
	for _, dev := range testdev.Devices(t) {
		t.Run(dev.Info.Name, func(t *testing.T) { runPCASuite(t, pcaOn(dev), !dev.Info.Float64) })
	}
}

// TestPCALongSets: 65,536 samples (frames × pixels) per covariance, which
// package cov got wrong on lavapipe before it split long sets over
// dispatches (its loops over a set's samples passed 65,535 iterations),
// against the reference on every path.
func TestPCALongSets(t *testing.T) {
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 1, 4, 16, 64, 64
	x, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	x = x.As(tensor.F32)
	want, err := PCAReference(x, Propagate)
	if err != nil {
		t.Fatal(err)
	}
	runs := map[string]pcaRunner{"cpu": pcaOn(nil)}
	acc32 := map[string]bool{}
	for _, dev := range testdev.Devices(t) {
		runs[dev.Info.Name] = pcaOn(dev)
		acc32[dev.Info.Name] = !dev.Info.Float64
	}
	for name, run := range runs {
		t.Run(name, func(t *testing.T) {
			got, err := run(x, Propagate)
			if err != nil {
				t.Fatal(err)
			}
			comparePCA(t, got, want, cfg.C, pcaTol(tensor.F32, acc32[name]))
		})
	}
}

// TestPCASynth: Synth's channels are exactly orthonormal fields mixed by
// the Cholesky factor of R_ij = ρ^|i−j| (the AR(1) Toeplitz matrix) and
// scaled by σ_c = ChannelScale(c), so each sample's covariance (ddof 1) is
// T/(T−1)·D·R·D, D = diag(σ), to rounding; its eigenvalues, computed here
// with gonum from R's closed form, must come out within pcaTol. With all
// σ_c equal they would be the Toeplitz eigenvalues themselves.
func TestPCASynth(t *testing.T) {
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 2, 33, 3, 16, 12
	x, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	c, tt := cfg.C, cfg.F*cfg.H*cfg.W
	r := cfg.ChannelCorr()
	s := mat.NewSymDense(c, nil)
	for i := range c {
		for j := 0; j <= i; j++ {
			s.SetSym(i, j, float64(tt)/float64(tt-1)*ChannelScale(i)*ChannelScale(j)*r[i*c+j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		t.Fatal("gonum EigenSym failed")
	}
	want := es.Values(nil) // ascending
	sum := 0.0
	for _, v := range want {
		sum += v
	}
	runs := []struct {
		name  string
		run   pcaRunner
		acc32 bool
	}{{"cpu", pcaOn(nil), false}}
	for _, dev := range testdev.Devices(t) {
		runs = append(runs, struct {
			name  string
			run   pcaRunner
			acc32 bool
		}{dev.Info.Name, pcaOn(dev), !dev.Info.Float64})
	}
	for _, rn := range runs {
		for _, dt := range []tensor.DType{tensor.F64, tensor.F32} {
			t.Run(rn.name+"/"+dt.String(), func(t *testing.T) {
				got, err := rn.run(x.As(dt), Propagate)
				testdev.SkipNoFloat64(t, err)
				if err != nil {
					t.Fatal(err)
				}
				tol := pcaTol(dt, rn.acc32)
				worst := 0.0
				for n := range cfg.N {
					for k := range c {
						w := want[c-1-k]
						e := math.Abs(got.Values.F64[n*c+k]-w) / want[c-1]
						worst = math.Max(worst, e)
						if !(e <= tol) {
							t.Errorf("sample %d: λ%d = %.9g, want %.9g", n, k+1, got.Values.F64[n*c+k], w)
						}
						if e := math.Abs(got.Ratio.F64[n*c+k] - w/sum); !(e <= tol) {
							t.Errorf("sample %d: ratio %d = %.9g, want %.9g", n, k+1, got.Ratio.F64[n*c+k], w/sum)
						}
					}
				}
				t.Logf("largest eigenvalue error %.2g of λ1 = %.4g (tolerance %.1g)", worst, want[c-1], tol)
			})
		}
	}
}
