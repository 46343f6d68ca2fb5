package cli

import (
	"fmt"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
	"github.com/vkstat/vkstat/workloads"
)

// synthLatentCommand writes a synthetic latent tensor with known structure.
func synthLatentCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "latent",
		Usage:     "a synthetic video latent (N, C, F, H, W) with a known channel correlation, frame correlation and spectral slope",
		UsageText: "vkstat synth latent [--shape 2,16,8,32,32] [--rho 0.6] [--time-rho 0.8] [--slope -2] [--dtype f32|f16|bf16|f64] [--seed 1] [--truth T.json] --out X.npy|X.safetensors",
		Description: `x[n, c, f] = μ_c + σ_c · Σ_k L[c, k] · z[n, k, f], with z[n, k, 0] = g[n, k, 0] and
z[n, k, f] = a·z[n, k, f−1] + √(1−a²)·g[n, k, f]: the g are independent
Gaussian random fields of H×W pixels with power spectrum ∝ |k|^slope, L is
the Cholesky factor of R_ij = rho^|i−j|, a = --time-rho, μ_c = 0.1·(c mod 8)
− 0.35 and σ_c = 0.5 + 0.125·(c mod 5). The fields of each sample are made
orthonormal over its F·H·W values before mixing, so the channel correlation
of every sample is R up to rounding (and the storage dtype's rounding: about
1e-5 for f16, 2e-4 for bf16); between frames l apart a channel correlates as
a^l in expectation (the sampling noise of H·W pixels; steep spectra, few
independent pixels: at slope −3 and 32×32, 0.05-0.08 low). Deterministic for
--seed.

--slope is the log-log slope of the spatial power spectrum, as vkstat latent
reports it (spatial_slope): negative for a red spectrum, −2 for P ∝ |k|^−2,
0 for white noise.

The output is an NPY file (f16: '<f2'; bf16: '<V2', as np.save writes an
ml_dtypes bfloat16 array; f32, f64) or, for a .safetensors name, a
safetensors file holding the tensor --tensor (F16, BF16, F32, F64) with the
configuration in its metadata. --truth writes the configuration, R, a^l
and the spatial slope (spatial_slope, the same sign as vkstat latent's) as
JSON.

Examples:
   vkstat synth latent --out latents.npy
   vkstat synth latent --shape 8,16,16,64,64 --dtype bf16 --rho 0.8 --slope -2.5 --out lat.safetensors --truth truth.json
   vkstat latent --in lat.safetensors --tensor latent --stat all --out-dir out/`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "shape", Value: "2,16,8,32,32", Usage: "N,C,F,H,W"},
			&ucli.Float64Flag{Name: "rho", Value: 0.6, Usage: "channel correlation ρ: R_ij = ρ^|i−j|"},
			&ucli.Float64Flag{Name: "time-rho", Value: 0.8, Usage: "frame AR(1) coefficient a: frames l apart correlate as a^l"},
			&ucli.Float64Flag{Name: "slope", Value: -2, Usage: "log-log slope of the spatial power spectrum, P ∝ |k|^slope, from −8 to 0 (0: white; vkstat latent reports it as spatial_slope)"},
			&ucli.StringFlag{Name: "dtype", Value: "f32", Usage: "stored type: f16, bf16, f32 or f64"},
			&ucli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed"},
			&ucli.StringFlag{Name: "tensor", Value: "latent", Usage: "the tensor's name in a safetensors file"},
			&ucli.StringFlag{Name: "truth", Usage: "also write the known structure as JSON here"},
			&ucli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "output: .npy or .safetensors"},
		},
		Action: runSynthLatent,
	}
}

func runSynthLatent(c *ucli.Context) error {
	if err := requireFlag(c, "out"); err != nil {
		return err
	}
	out := c.String("out")
	if _, ok := formats.TensorEncoder(out, c.String("tensor")); !ok {
		return usagef("--out %q: want a .npy or .safetensors file", out)
	}
	shape, err := tensor.ParseShape(c.String("shape"))
	if err != nil || len(shape) != 5 {
		return usagef("--shape %q: want N,C,F,H,W (five positive integers)", c.String("shape"))
	}
	dt := strings.ToLower(c.String("dtype"))
	if !slices.Contains([]string{"f16", "bf16", "f32", "f64"}, dt) {
		return usagef("--dtype %q: want f16, bf16, f32 or f64", c.String("dtype"))
	}
	beta, err := latent.SynthSlope(c.Float64("slope"))
	if err != nil {
		return fieldError(err)
	}
	cfg := latent.SynthConfig{N: shape[0], C: shape[1], F: shape[2], H: shape[3], W: shape[4],
		Rho: c.Float64("rho"), TimeRho: c.Float64("time-rho"), Slope: beta, Seed: c.Uint64("seed")}
	if err := cfg.Check(); err != nil {
		return usageError{err}
	}
	if err := workloads.WriteSynthLatent(c.Context, cfg, dt, c.String("shape"), out, c.String("tensor"), c.String("truth")); err != nil {
		return err
	}
	fmt.Fprintf(c.App.Writer, "%s\t%s %s\n", out, dt, tensor.ShapeString(shape))
	return nil
}
