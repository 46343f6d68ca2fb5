package latent

import (
	"context"
	"fmt"
	"slices"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

// cases are latent's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{latentMomentsOp(), latentCorrOp(), latentSpectraOp()} }

// ---- latent: statistics of (N, C, F, H, W) latent tensors --------------------
//
// vkstat latent's moments, correlations and spectra, on latents from
// Synth (correlated channels, frames in AR(1), a power-law spatial
// spectrum), in float32 and float64 and, as `vkstat latent` keeps them,
// float16 and bfloat16 storage: each 16-bit row's reference is computed
// from the stored values decoded independently (checks.Halves), so it
// holds the kernels' 16-bit reads and their float32 arithmetic, not the
// data's own rounding. The outputs are float64; they are handed back in
// the row's precision (float32 for 16-bit storage, which computes as
// float32).

func latentCase(n, c, f, h, w int, note string) engine.Case {
	return engine.Case{Shape: []int{n, c, f, h, w}, Note: note}
}

// latentInput is a synthetic latent of c's shape in dt (16-bit types
// rounded to nearest even from float32).
func latentInput(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	s := c.Shape
	cfg := DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W, cfg.Seed = s[0], s[1], s[2], s[3], s[4], c.Seed
	x, err := Synth(cfg)
	if err != nil {
		panic(fmt.Sprintf("suite: latent case %s: %v", c.Label(), err))
	}
	// Channel offsets, so that centring matters.
	per := s[2] * s[3] * s[4]
	for i := range x.F64 {
		x.F64[i] += float64(i/per%s[1]) * 0.75
	}
	if dt.Is16() {
		return []*tensor.Tensor{x.As(tensor.F32).As(dt)}
	}
	return []*tensor.Tensor{x.As(dt)}
}

// latentValues is what the reference reads: x's values, 16-bit ones
// decoded by checks.Halves (sharing no code with tensor or the shaders).
func latentValues(x *tensor.Tensor) *tensor.Tensor {
	if x.DType.Is16() {
		return tensor.FromF64(checks.Halves(x.DType == tensor.BF16, x.U16), x.Shape...)
	}
	return x.As(tensor.F64)
}

// outType is the precision a row's outputs come back in.
func outType(dt tensor.DType) tensor.DType {
	if dt.Is16() {
		return tensor.F32
	}
	return dt
}

// latentTol: float32's bounds hold float32 and 16-bit storage (computed
// in float32); the latent suite's (pipelines/latent) are absolute 2e-6
// for correlations (2e-5 without float64) and relative 2e-6 for moments
// (1e-5), normwise here.
func latentTol(t32 engine.Tol) map[tensor.DType]engine.Tol {
	return map[tensor.DType]engine.Tol{tensor.F32: t32, tensor.F16: t32, tensor.BF16: t32, tensor.F64: {MaxErr: 1e-10, NMSE: 1e-20}}
}

// latentWork is one read of the
func latentWork(c engine.Case, dt tensor.DType) engine.Work {
	n := int64(tensor.NumElements(c.Shape))
	return engine.Work{Bytes: n * int64(dt.Size()), Flops: 4 * n, Items: int64(c.Shape[0])}
}

// named names the outputs ts in the row's precision, leaving out those
// not computed (nil).
func named(names []string, ts []*tensor.Tensor, dt tensor.DType) []engine.Output {
	var out []engine.Output
	for i, t := range ts {
		if t != nil {
			out = append(out, engine.Output{Name: names[i], T: t.As(outType(dt))})
		}
	}
	return out
}

func refs(names []string, ts []*tensor.Tensor) []engine.RefOutput {
	var out []engine.RefOutput
	for i, t := range ts {
		if t != nil {
			out = append(out, engine.RefOutput{Name: names[i], V: t.F64})
		}
	}
	return out
}

var momentNames = []string{"mean", "var", "std", "min", "max", "skew", "kurt"}

func momentTensors(m *Moments) []*tensor.Tensor {
	return []*tensor.Tensor{m.Mean, m.Var, m.Std, m.Min, m.Max, m.Skew, m.Kurt}
}

func latentMomentsOp() engine.Op {
	axes := func(c engine.Case) []int {
		if c.Note == "frames" {
			return []int{2}
		}
		return []int{3, 4}
	}
	opt := func(c engine.Case) Options { return Options{Moments: true, Axes: axes(c)} }
	return engine.Op{
		Name:  "latent-moments",
		Suite: "latent",
		Doc:   "mean, variance, std, min, max, skewness and excess kurtosis of a latent over its pixels or its frames (vkstat latent --stat moments)",
		Verify: []engine.Case{
			latentCase(2, 5, 3, 9, 11, ""),
			latentCase(2, 4, 5, 16, 16, "frames"),
			latentCase(1, 3, 2, 33, 40, ""),
		},
		Bench: latentBench(""),
		Build: latentInput,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			r, err := Run(ctx, dev, in[0], opt(c))
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return named(momentNames, momentTensors(r.Moments), in[0].DType), r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			r, err := Reference(latentValues(in[0]), opt(c))
			if err != nil {
				return nil, err
			}
			return refs(momentNames, momentTensors(r.Moments)), nil
		},
		Tol:  latentTol(engine.Tol{MaxErr: 1e-5, NMSE: 1e-10}),
		Work: latentWork,
		Unit: engine.GBs,
	}
}

var corrNames = []string{"corr", "corr_frames", "frame_corr", "lagcorr", "pca_values", "pca_ratio"}

// latentBench are the bench cases of a latent statistic (note: the
// statistic, where an operation computes several): issue 32's latent of
// [16, 16, 64, 64] at N = 64 (paper), a small one (small).
func latentBench(note string) map[engine.BenchSize][]engine.BenchCase {
	return map[engine.BenchSize][]engine.BenchCase{
		engine.BenchSmall: {{Case: latentCase(8, 16, 8, 32, 32, note), DType: tensor.F32}},
		engine.BenchPaper: {{Case: latentCase(64, 16, 16, 64, 64, note), DType: tensor.F32}},
	}
}

func latentCorrOp() engine.Op {
	// Verify checks the correlations together; bench times corr, lagcorr
	// and pca (the eigenvalues of the same covariance) one at a time.
	opt := func(c engine.Case) Options {
		switch c.Note {
		case "corr":
			return Options{Corr: true}
		case "lagcorr":
			return Options{LagCorr: true, Lags: 2}
		case "pca":
			return Options{PCA: true}
		}
		return Options{Corr: true, CorrFrames: true, LagCorr: true, Lags: 2}
	}
	outs := func(r *Result) []*tensor.Tensor {
		ts := []*tensor.Tensor{r.Corr, r.CorrFrames, r.FrameCorr, r.LagCorr, nil, nil}
		if r.PCA != nil {
			ts[4], ts[5] = r.PCA.Values, r.PCA.Ratio
		}
		return ts
	}
	return engine.Op{
		Name:  "latent-corr",
		Suite: "latent",
		Doc:   "channel correlations per sample and per frame, frame correlations per channel and their lag means (vkstat latent --stat corr,corr-frames,lagcorr); bench times corr, lagcorr and pca alone",
		Verify: []engine.Case{
			latentCase(2, 6, 3, 5, 7, ""),
			latentCase(1, 17, 4, 8, 8, ""),
			latentCase(2, 5, 4, 32, 32, "split-K"), // sets of 4,096 and 1,024 samples
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			engine.BenchSmall: slices.Concat(latentBench("corr")[engine.BenchSmall], latentBench("lagcorr")[engine.BenchSmall], latentBench("pca")[engine.BenchSmall]),
			engine.BenchPaper: slices.Concat(latentBench("corr")[engine.BenchPaper], latentBench("lagcorr")[engine.BenchPaper], latentBench("pca")[engine.BenchPaper]),
		},
		Build: latentInput,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			r, err := Run(ctx, dev, in[0], opt(c))
			if err != nil {
				return nil, engine.Timing{}, err
			}
			return named(corrNames, outs(r), in[0].DType), r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			x := latentValues(in[0])
			o := opt(c)
			r := &Result{}
			var err error
			if o.PCA { // the covariance's eigenvalues: a reference of its own
				r.PCA, err = PCAReference(x, o.NaN)
			} else {
				r, err = Reference(x, o)
			}
			if err != nil {
				return nil, err
			}
			return refs(corrNames, outs(r)), nil
		},
		Tol:  latentTol(engine.Tol{MaxErr: 5e-5, NMSE: 1e-9}),
		Work: latentWork,
		Unit: engine.GBs,
	}
}

var latentSpectraNames = []string{"spatial_spectrum", "spatial_centroid", "spatial_highfrac", "temporal_spectrum", "temporal_centroid", "temporal_highfrac"}

func latentSpectraOp() engine.Op {
	return engine.Op{
		Name:  "latent-spectra",
		Suite: "latent",
		Doc:   "radial spatial and temporal power spectra of every (sample, channel), averaged over its frames and pixels, centroids, energy above half Nyquist (vkstat latent --stat spectra; VkFFT on a device)",
		Verify: []engine.Case{
			latentCase(2, 3, 6, 16, 16, ""),
			latentCase(1, 2, 5, 12, 15, "mixed radix"),
			latentCase(2, 2, 4, 17, 16, "prime (Bluestein)"),
		},
		Bench: latentBench(""),
		Build: latentInput,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			r, err := Run(ctx, dev, in[0], Options{Spectra: true})
			if err != nil {
				return nil, engine.Timing{}, err
			}
			s := r.Spectra
			return named(latentSpectraNames, []*tensor.Tensor{s.Spatial, s.SpatialCentroid, s.SpatialHighFrac,
				s.Temporal, s.TemporalCentroid, s.TemporalHighFrac}, in[0].DType), r.Timing, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			x := latentValues(in[0]).F64
			n, ch, f, h, w := c.Shape[0], c.Shape[1], c.Shape[2], c.Shape[3], c.Shape[4]
			hw := h * w
			k, kt := spectra.Bins(h, w), f/2+1
			out := make([][]float64, 6)
			for i := range n * ch {
				// Every frame's spectrum by a plain DFT, averaged over
				// the frames; every pixel's series', over the pixels.
				sp := spectra.Reference(x[i*f*hw:(i+1)*f*hw], f, h, w)
				series := make([]float64, 0, f*hw)
				for p := range hw {
					for ff := range f {
						series = append(series, x[(i*f+ff)*hw+p])
					}
				}
				tp := spectra.ReferenceTemporal(series, hw, f)
				out[0] = append(out[0], colMeans(sp.Radial, f, k)...)
				out[1] = append(out[1], sum(sp.NuSum)/sum(sp.Total))
				out[2] = append(out[2], sum(sp.HighSum)/sum(sp.Total))
				out[3] = append(out[3], colMeans(tp.Spectrum, hw, kt)...)
				out[4] = append(out[4], sum(tp.NuSum)/sum(tp.Total))
				out[5] = append(out[5], sum(tp.HighSum)/sum(tp.Total))
			}
			r := make([]engine.RefOutput, 6)
			for i := range r {
				r[i] = engine.RefOutput{Name: latentSpectraNames[i], V: out[i]}
			}
			return r, nil
		},
		// As the spectra op: VkFFT in float32 within 1e-5 of the peak.
		Tol:  latentTol(engine.Tol{MaxErr: 1e-5, NMSE: 1e-10}),
		Work: latentWork,
		Unit: engine.GBs,
	}
}

// colMeans is the mean of each of the cols columns of v's rows.
func colMeans(v []float64, rows, cols int) []float64 {
	out := make([]float64, cols)
	for r := range rows {
		for j := range cols {
			out[j] += v[r*cols+j]
		}
	}
	for j := range out {
		out[j] /= float64(rows)
	}
	return out
}

func sum(v []float64) float64 {
	s := 0.0
	for _, e := range v {
		s += e
	}
	return s
}
