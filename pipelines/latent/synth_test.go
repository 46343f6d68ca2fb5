package latent

import (
	"context"
	"math"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// quantise rounds x's values to a storage precision, as a file would hold
// them (float16 and bfloat16 read back as float32).
func quantise(x *tensor.Tensor, st storage) *tensor.Tensor {
	q := tensor.New(tensor.F64, x.Shape...)
	for i, v := range x.F64 {
		q.F64[i] = st.round(v)
	}
	if st.dt == tensor.F32 {
		return q.As(tensor.F32)
	}
	return q
}

// Recovery tolerances of the synthetic channel correlation (max |r − R|
// over every sample's matrix), by storage precision: the construction
// makes it exact up to rounding, so what is left is the storage's rounding
// of each value, relative 2^-11 (float16), 2^-8 (bfloat16), 2^-24, 2^-53.
var recoverTol = map[string]float64{"float16": 2e-3, "bfloat16": 1.5e-2, "float32": 1e-6, "float64": 1e-12}

func TestSynthRecoversChannelCorrelation(t *testing.T) {
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 3, 16, 6, 24, 20
	x, err := Synth(cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := cfg.ChannelCorr()
	for _, st := range storages {
		r, err := Run(context.Background(), nil, quantise(x, st), Options{Corr: true})
		if err != nil {
			t.Fatal(err)
		}
		worst := 0.0
		for n := 0; n < cfg.N; n++ {
			for i, w := range want {
				worst = math.Max(worst, math.Abs(r.Corr.F64[n*cfg.C*cfg.C+i]-w))
			}
		}
		t.Logf("%s: max |corr − R| = %.3g (tolerance %.3g)", st.name, worst, recoverTol[st.name])
		if !(worst <= recoverTol[st.name]) {
			t.Errorf("%s: max |corr − R| = %.3g, more than %.3g", st.name, worst, recoverTol[st.name])
		}
	}
}

// TestSynthLagAndSlope: the lagged frame correlation, averaged over
// samples and channels, is a^l within 0.05 for β ≤ 2 (the sampling noise
// and bias of 32×32 pixels over 4×16 channels: a field with a steeper
// spectrum has fewer independent pixels, and at β = 3 the mean falls
// 0.05-0.08 short), and the periodogram of the frames falls as k^−β within
// 0.1 in slope.
func TestSynthLagAndSlope(t *testing.T) {
	for _, beta := range []float64{0, 2, 3} {
		cfg := DefaultSynth()
		cfg.N, cfg.F, cfg.Slope, cfg.Seed = 4, 6, beta, 9
		x, err := Synth(cfg)
		if err != nil {
			t.Fatal(err)
		}
		r, err := Run(context.Background(), nil, x, Options{LagCorr: true, Lags: 3})
		if err != nil {
			t.Fatal(err)
		}
		for l := 1; l <= 3; l++ {
			s := 0.0
			for b := 0; b < cfg.N*cfg.C; b++ {
				s += r.LagCorr.F64[b*3+l-1]
			}
			got := s / float64(cfg.N*cfg.C)
			t.Logf("β %v lag %d: mean corr %.4f, a^l %.4f", beta, l, got, cfg.LagCorr(l))
			if beta <= 2 && math.Abs(got-cfg.LagCorr(l)) > 0.05 {
				t.Errorf("β %v lag %d: mean correlation %.4f, want %.4f ± 0.05", beta, l, got, cfg.LagCorr(l))
			}
		}
		slope := SpectralSlope(x.F64, cfg.H, cfg.W)
		t.Logf("β %v: fitted spectral slope %.3f", beta, slope)
		if math.Abs(slope+beta) > 0.1 {
			t.Errorf("β %v: fitted spectral slope %.3f, want %.1f ± 0.1", beta, slope, -beta)
		}
	}
}

func TestSynthDeterministic(t *testing.T) {
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 2, 3, 2, 8, 6
	a, _ := Synth(cfg)
	b, _ := Synth(cfg)
	cfg.Seed++
	c, _ := Synth(cfg)
	same, differ := true, false
	for i := range a.F64 {
		same = same && math.Float64bits(a.F64[i]) == math.Float64bits(b.F64[i])
		differ = differ || a.F64[i] != c.F64[i]
	}
	if !same || !differ {
		t.Errorf("same seed identical: %v; another seed differs: %v", same, differ)
	}
	for _, bad := range []SynthConfig{{N: 1, C: 1, F: 1, H: 1, W: 4}, {N: 1, C: 2, F: 1, H: 4, W: 4, Rho: 1}, {N: 1, C: 2, F: 1, H: 4, W: 4, Slope: -1}} {
		if _, err := Synth(bad); err == nil {
			t.Errorf("%+v accepted", bad)
		}
	}
}
