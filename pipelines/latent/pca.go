package latent

import (
	"context"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
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
	// Notes name the samples whose outputs are NaN and why.
	Notes []string
	// Timing adds up the device runs (or the CPU's time).
	Timing engine.Timing
}

// RunPCA computes the PCA of every sample of x, (N, C, F, H, W) or
// (N, C, H, W), on dev or the CPU when dev is nil: the tensor is permuted
// on the host to (N, F·H·W, C), package cov forms the covariances and
// package eig decomposes them, both on the same path. Outputs are float64.
//
// Under Propagate a sample holding a NaN or ±Inf has NaN outputs; under
// Skip its pixels (rows across channels) holding one are left out, as
// listwise deletion (a sample left with fewer than 2 is NaN). A sample
// whose channels are all constant has eigenvalues 0 and a NaN ratio.
func RunPCA(ctx context.Context, dev *engine.Device, x *tensor.Tensor, policy NaNPolicy) (*PCA, error) {
	if x == nil {
		return nil, fmt.Errorf("latent: nil tensor")
	}
	if x.DType.Is16() {
		x = x.As(tensor.F32) // exact; the PCA works on float32
	}
	d, err := DimsOf(x.Shape)
	if err != nil {
		return nil, err
	}
	if d.N*d.C*d.F*d.H*d.W == 0 {
		return nil, fmt.Errorf("latent: empty tensor of shape %s", tensor.ShapeString(x.Shape))
	}
	perm := []int{0, 2, 3, 4, 1} // (N, F, H, W, C)
	if len(x.Shape) == 4 {
		perm = []int{0, 2, 3, 1}
	}
	data := permuted(x, perm)
	if data.DType == tensor.F64 {
		return runPCA(ctx, dev, data, data.F64, d, policy)
	}
	return runPCA(ctx, dev, data, data.F32, d, policy)
}

func runPCA[T float](ctx context.Context, dev *engine.Device, data *tensor.Tensor, v []T, d Dims, policy NaNPolicy) (*PCA, error) {
	n, c, t := d.N, d.C, d.F*d.H*d.W
	out := &PCA{Values: tensor.New(tensor.F64, n, c), Ratio: tensor.New(tensor.F64, n, c), Vectors: tensor.New(tensor.F64, n, c, c)}
	nan := math.NaN()
	for _, a := range [][]float64{out.Values.F64, out.Ratio.F64, out.Vectors.F64} {
		for i := range a {
			a[i] = nan
		}
	}
	// Rows used per sample: all t, none (Propagate with a non-finite
	// value), or the finite rows moved to the front (Skip).
	count := make([]int, n)
	par.Range(n, 1, func(lo, hi int) {
		for s := lo; s < hi; s++ {
			set := v[s*t*c : (s+1)*t*c]
			used := 0
			for r := 0; r < t; r++ {
				row := set[r*c : (r+1)*c]
				ok := true
				for _, x := range row {
					if !finite(x) {
						ok = false
						break
					}
				}
				if !ok {
					if policy == Propagate {
						used = 0
						break
					}
					continue
				}
				if used != r {
					copy(set[used*c:(used+1)*c], row)
				}
				used++
			}
			count[s] = used
		}
	})
	var short []string
	groups := map[int][]int{}
	for s := range n {
		if count[s] >= 2 {
			groups[count[s]] = append(groups[count[s]], s)
		} else {
			short = append(short, fmt.Sprintf("sample %d (%d usable)", s, count[s]))
		}
	}
	var failed []string
	for tc, sets := range groups {
		in := &tensor.Tensor{Shape: []int{len(sets), tc, c}, DType: data.DType}
		if tc == t && len(sets) == n {
			in.F32, in.F64 = data.F32, data.F64
		} else {
			g := make([]T, len(sets)*tc*c)
			for k, s := range sets {
				copy(g[k*tc*c:(k+1)*tc*c], v[s*t*c:s*t*c+tc*c])
			}
			if data.DType == tensor.F64 {
				in.F64 = any(g).([]float64)
			} else {
				in.F32 = any(g).([]float32)
			}
		}
		cv, err := pcaCov(ctx, dev, in, &out.Timing)
		if err != nil {
			return nil, fmt.Errorf("latent: pca covariance: %w", err)
		}
		er, st, err := eig.Run(ctx, dev, cv, eig.Options{})
		out.Timing.Add(st)
		if err != nil {
			return nil, fmt.Errorf("latent: pca eigendecomposition: %w", err)
		}
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
		what := "samples with a NaN/Inf (--nan propagate), PCA NaN"
		if policy == Skip {
			what = "samples with fewer than 2 pixels free of NaN/Inf, PCA NaN"
		}
		out.Notes = append(out.Notes, noteList(fmt.Sprintf("%d %s", len(short), what), short))
	}
	if len(failed) > 0 {
		out.Notes = append(out.Notes, noteList(fmt.Sprintf("%d sample(s) without a full PCA", len(failed)), failed))
	}
	return out, nil
}

// pcaCov returns the covariances (ddof 1) of in's sets, (g, t, c), in in's
// dtype. Package cov handles sets of any length on every path (on a device
// it splits long ones over dispatches: lavapipe ends a shader's loops after
// 65,535 iterations, TestPCALongSets).
func pcaCov(ctx context.Context, dev *engine.Device, in *tensor.Tensor, tm *engine.Timing) (*tensor.Tensor, error) {
	r, st, err := cov.Run(ctx, dev, in, cov.Options{DDof: 1})
	tm.Add(st)
	if err != nil {
		return nil, err
	}
	return r.Cov, nil
}
