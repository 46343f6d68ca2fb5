package latent

import (
	"fmt"
	"math"

	"github.com/vkstat/vkstat/pipelines/eig"
	"github.com/vkstat/vkstat/tensor"
)

// PCAReference computes runPCA's outputs in plain float64 loops over x's
// own (N, C, F, H, W) layout — two-pass means and covariances, listwise
// deletion under Skip — and decomposes the covariances with eig.Reference
// (gonum's EigenSym), sharing no code with runPCA's paths.
func PCAReference(x *tensor.Tensor, policy NaNPolicy) (*PCA, error) {
	d, err := DimsOf(x.Shape)
	if err != nil {
		return nil, err
	}
	n, c, t := d.N, d.C, d.F*d.H*d.W
	xv := x.Float64s()
	at := func(s, ch, r int) float64 { return xv[(s*c+ch)*t+r] }
	covs := tensor.New(tensor.F64, n, c, c)
	ok := make([]bool, n)
	for s := range n {
		var rows []int
		bad := false
		for r := range t {
			fin := true
			for ch := range c {
				if v := at(s, ch, r); math.IsNaN(v) || math.IsInf(v, 0) {
					fin = false
				}
			}
			if fin {
				rows = append(rows, r)
			} else {
				bad = true
			}
		}
		if (bad && policy == Propagate) || len(rows) < 2 {
			for i := range c * c {
				covs.F64[s*c*c+i] = math.NaN()
			}
			continue
		}
		ok[s] = true
		mean := make([]float64, c)
		for ch := range c {
			for _, r := range rows {
				mean[ch] += at(s, ch, r)
			}
			mean[ch] /= float64(len(rows))
		}
		for i := range c {
			for j := range c {
				sum := 0.0
				for _, r := range rows {
					sum += (at(s, i, r) - mean[i]) * (at(s, j, r) - mean[j])
				}
				covs.F64[(s*c+i)*c+j] = sum / float64(len(rows)-1)
			}
		}
	}
	er, err := eig.Reference(covs)
	if err != nil {
		return nil, fmt.Errorf("latent: pca reference: %w", err)
	}
	out := &PCA{Values: er.Values, Vectors: er.Vectors, Ratio: tensor.New(tensor.F64, n, c)}
	for s := range n {
		sum := 0.0
		for _, l := range er.Values.F64[s*c : (s+1)*c] {
			sum += math.Max(l, 0)
		}
		for i, l := range er.Values.F64[s*c : (s+1)*c] {
			out.Ratio.F64[s*c+i] = math.NaN()
			if ok[s] && sum > 0 {
				out.Ratio.F64[s*c+i] = math.Max(l, 0) / sum
			}
		}
	}
	return out, nil
}
