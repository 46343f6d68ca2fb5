package latent

import (
	"context"
	"fmt"
	"math"
	"slices"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/eig"
	"github.com/vkstat/vkstat/tensor"
)

// PCA is the principal component analysis of every sample of a latent
// tensor: the channels are the features and the sample's F·H·W values of
// each channel (every frame and pixel) are the observations, so each
// sample has a C×C covariance
//
//	S_n = 1/(T−1) Σ_t (x_t − m)(x_t − m)ᵀ,  T = F·H·W
//
// (ddof 1, as sklearn.decomposition.PCA's explained_variance_), and its
// eigenpairs S_n v_k = λ_k v_k, λ_1 >= ... >= λ_C.
type PCA struct {
	// Values (N, C): the eigenvalues λ_k, descending.
	Values *tensor.Tensor
	// Ratio (N, C): the explained-variance ratio λ_k⁺/Σ_j λ_j⁺, λ⁺ =
	// max(λ, 0) (rounding can leave the smallest eigenvalue of a singular
	// covariance slightly negative).
	Ratio *tensor.Tensor
	// Vectors (N, C, C): the components as columns, Vectors[n, :, k] for
	// Values[n, k], each signed so that its largest-magnitude loading is
	// positive.
	Vectors *tensor.Tensor
	// NaNs and Infs count x's NaN and ±Inf values.
	NaNs, Infs int
	// Notes name the samples whose outputs are NaN and why.
	Notes []string
	// Timing adds up the device runs (or the CPU's time).
	Timing engine.Timing
}

// runPCA computes the PCA of every sample of x, (N, C, F, H, W) or
// (N, C, H, W), on dev or the CPU when dev is nil: package cov forms the
// covariances from x where it lies (the channels as strided variables, no
// transposed copy; float16 and bfloat16 stay 16-bit up to the device, as
// for the correlations) and package eig decomposes them, both on the same
// path. Outputs are float64.
//
// Under Propagate a sample holding a NaN or ±Inf has NaN outputs; under
// Skip its pixels (rows across channels) holding one are left out, as
// listwise deletion (a sample left with fewer than 2 is NaN). A sample
// whose channels are all constant has eigenvalues 0 and a NaN ratio.
func runPCA(ctx context.Context, dev *engine.Device, x *tensor.Tensor, policy NaNPolicy) (*PCA, error) {
	if x == nil {
		return nil, fmt.Errorf("latent: nil tensor")
	}
	d, err := DimsOf(x.Shape)
	if err != nil {
		return nil, err
	}
	n, c, t := d.N, d.C, d.F*d.H*d.W
	if n*c*t == 0 {
		return nil, fmt.Errorf("latent: empty tensor of shape %s", tensor.ShapeString(x.Shape))
	}
	out := nanPCA(n, c)
	out.NaNs, out.Infs = countNonFinite(x)
	lay := cov.Strided{Bases: steps(n, c*t), Offsets: steps(c, t), T: t, TStride: 1}
	sc, err := covSets(ctx, dev, x, lay, cov.Options{DDof: 1}, policy, out.NaNs+out.Infs == 0, &out.Timing)
	if err != nil {
		return nil, fmt.Errorf("latent: pca covariance: %w", err)
	}
	if err := out.fromCovs(ctx, dev, sc, n, c, x.DType == tensor.F64, policy); err != nil {
		return nil, err
	}
	return out, nil
}

// nanPCA is the PCA of n samples of c channels, its outputs all NaN.
func nanPCA(n, c int) *PCA {
	out := &PCA{Values: tensor.New(tensor.F64, n, c), Ratio: tensor.New(tensor.F64, n, c), Vectors: tensor.New(tensor.F64, n, c, c)}
	for _, a := range [][]float64{out.Values.F64, out.Ratio.F64, out.Vectors.F64} {
		for i := range a {
			a[i] = math.NaN()
		}
	}
	return out
}

// fromCovs fills out's outputs (NaN on entry) and notes from sc, the ddof-1
// covariances of n samples of c channels, decomposed by package eig on dev
// or the CPU in float64 (f64) or float32.
func (out *PCA) fromCovs(ctx context.Context, dev *engine.Device, sc *setCovs, n, c int, f64 bool, policy NaNPolicy) error {
	// The samples with a full covariance go to eig in one batch, in
	// float64 for a float64 x and float32 otherwise (cov's outputs, exact).
	var sets []int
	var short []string
	for s := range n {
		used := sc.count[s]
		if slices.Contains(sc.bad[s*c:(s+1)*c], true) {
			used = 0
		}
		if used < 2 {
			short = append(short, fmt.Sprintf("sample %d (%d usable)", s, used))
			continue
		}
		sets = append(sets, s)
	}
	var failed []string
	if len(sets) > 0 {
		cv := tensor.New(tensor.F32, len(sets), c, c)
		if f64 {
			cv = tensor.New(tensor.F64, len(sets), c, c)
		}
		for k, s := range sets {
			m := sc.cov[s*c*c : (s+1)*c*c]
			if cv.DType == tensor.F64 {
				copy(cv.F64[k*c*c:], m)
				continue
			}
			for i, v := range m {
				cv.F32[k*c*c+i] = float32(v)
			}
		}
		er, err := eig.Run(ctx, dev, cv, eig.Options{})
		if err != nil {
			return fmt.Errorf("latent: pca eigendecomposition: %w", err)
		}
		out.Timing.Add(er.Timing)
		vals, vecs := er.Values.Float64s(), er.Vectors.Float64s()
		for k, s := range sets {
			if er.Info[k] != eig.OK {
				why := "NaN/Inf in its covariance"
				if er.Info[k] == eig.NotConverged {
					why = "Jacobi not converged"
				}
				failed = append(failed, fmt.Sprintf("sample %d (%s)", s, why))
				continue
			}
			copy(out.Values.F64[s*c:(s+1)*c], vals[k*c:(k+1)*c])
			copy(out.Vectors.F64[s*c*c:(s+1)*c*c], vecs[k*c*c:(k+1)*c*c])
			sum := 0.0
			for _, l := range vals[k*c : (k+1)*c] {
				sum += math.Max(l, 0)
			}
			if sum > 0 {
				for i, l := range vals[k*c : (k+1)*c] {
					out.Ratio.F64[s*c+i] = math.Max(l, 0) / sum
				}
			} else {
				failed = append(failed, fmt.Sprintf("sample %d (all channels constant: ratio NaN)", s))
			}
		}
	}
	if len(short) > 0 {
		what := "samples with a NaN/Inf (propagate), PCA NaN"
		if policy == Skip {
			what = "samples with fewer than 2 pixels free of NaN/Inf, PCA NaN"
		}
		out.Notes = append(out.Notes, noteList(fmt.Sprintf("%d %s", len(short), what), short))
	}
	if len(failed) > 0 {
		out.Notes = append(out.Notes, noteList(fmt.Sprintf("%d sample(s) without a full PCA", len(failed)), failed))
	}
	return nil
}
