package inputs

import (
	"math/rand/v2"

	"github.com/vkstat/vkstat/tensor"
)

// The generators above, written into tensors of a case's precision
// (float32 storage for every precision but float64, as tensor.New keeps
// it): the inputs of the workloads' verify and bench cases.

// FillTensor is a new tensor of dt filled by Fill with gen.
func FillTensor(dt tensor.DType, shape []int, seed uint64, gen func(r *rand.Rand) float64) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	if dt == tensor.F64 {
		Fill(t.F64, seed, gen)
	} else {
		Fill(t.F32, seed, gen)
	}
	return t
}

// UniformTensor is U[lo, hi).
func UniformTensor(dt tensor.DType, shape []int, seed uint64, lo, hi float64) *tensor.Tensor {
	return FillTensor(dt, shape, seed, Uniform(lo, hi))
}

// NormalTensor is off + scale·N(0, 1).
func NormalTensor(dt tensor.DType, shape []int, seed uint64, off, scale float64) *tensor.Tensor {
	return FillTensor(dt, shape, seed, Normal(off, scale))
}

// PlantNaNTensor is PlantNaN on t.
func PlantNaNTensor(t *tensor.Tensor, seed uint64) {
	if t.DType == tensor.F64 {
		PlantNaN(t.F64, seed)
	} else {
		PlantNaN(t.F32, seed)
	}
}

// PlantNaNSlicesTensor is PlantNaNSlices on t seen as (outer, nAxis, inner).
func PlantNaNSlicesTensor(t *tensor.Tensor, outer, nAxis, inner int, seed uint64) {
	if t.DType == tensor.F64 {
		PlantNaNSlices(t.F64, outer, nAxis, inner, seed)
	} else {
		PlantNaNSlices(t.F32, outer, nAxis, inner, seed)
	}
}

// Set writes v at t's flat index i.
func Set(t *tensor.Tensor, i int, v float64) {
	if t.DType == tensor.F64 {
		t.F64[i] = v
	} else {
		t.F32[i] = float32(v)
	}
}
