package spectra

import (
	"context"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// cases are spectra's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{spectraOp()} }

// ---- spectra: radially averaged 2-D power spectra ----------------------------

// spectraCase is B frames of h×w (Shape (B, h, w)).
func spectraCase(b, h, w int, note string) engine.Case {
	return engine.Case{Shape: []int{b, h, w}, Note: note}
}

func spectraOp() engine.Op {
	return engine.Op{
		Name:  "spectra",
		Suite: "spectra",
		Doc:   "radially averaged power spectra |FFT2(x − mean)|² of a batch of frames, centroid, energy above half Nyquist (pipelines/spectra; VkFFT on a device)",
		Verify: []engine.Case{
			spectraCase(6, 16, 16, ""),
			spectraCase(5, 12, 15, "mixed radix"),
			spectraCase(4, 17, 16, "prime (Bluestein)"),
			spectraCase(3, 64, 64, ""),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			engine.BenchSmall: {{Case: spectraCase(512, 64, 64, ""), DType: tensor.F32}},
			// A (8, 16, 16, 64, 64) latent's frames.
			engine.BenchPaper: {{Case: spectraCase(2048, 64, 64, ""), DType: tensor.F32}},
		},
		Build: func(c engine.Case, dt tensor.DType) []*tensor.Tensor {
			return []*tensor.Tensor{inputs.NormalTensor(dt, c.Shape, c.Seed, 0.5, 2)}
		},
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			b, h, w := c.Shape[0], c.Shape[1], c.Shape[2]
			s, tm, err := SpatialSpectra(ctx, in[0].Float64s(), b, h, w, Options{Device: dev, Double: in[0].DType == tensor.F64})
			if err != nil {
				return nil, tm, err
			}
			// Outputs in the input's precision, as the registry expects.
			dt := in[0].DType
			return []engine.Output{
				{Name: "radial", T: tensor.FromF64(s.Radial, b, s.K).As(dt)},
				{Name: "centroid", T: tensor.FromF64(Centroid(s.NuSum, s.Total), b).As(dt)},
				{Name: "highfrac", T: tensor.FromF64(HighFraction(s.HighSum, s.Total), b).As(dt)},
			}, tm, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			b, h, w := c.Shape[0], c.Shape[1], c.Shape[2]
			r := Reference(in[0].Float64s(), b, h, w)
			return []engine.RefOutput{
				{Name: "radial", V: r.Radial},
				{Name: "centroid", V: Centroid(r.NuSum, r.Total)},
				{Name: "highfrac", V: HighFraction(r.HighSum, r.Total)},
			}, nil
		},
		// float32 FFTs (VkFFT): relative 1e-5 of the spectrum's peak, as
		// pipelines/spectra's tests hold; float64 (VkFFT or gonum) 1e-12.
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 1e-5, NMSE: 1e-10}, tensor.F64: {MaxErr: 1e-12, NMSE: 1e-22}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			b, h, w := int64(c.Shape[0]), int64(c.Shape[1]), int64(c.Shape[2])
			n := h * w
			// 5·n·log2(n) per complex transform of n points.
			return engine.Work{Bytes: b * n * int64(dt.Size()), Flops: int64(5 * float64(b*n) * math.Log2(float64(n))), Items: b}
		},
		Unit: engine.GFlops,
	}
}
