package suite

import (
	"math/rand/v2"

	"github.com/vkstat/vkstat/internal/inputs"
	"github.com/vkstat/vkstat/tensor"
)

// The registry's inputs are internal/inputs' generators, written into
// tensors of the case's precision (float32 storage for every precision
// but float64, as tensor.New keeps it).

// fill is a new tensor of dt filled by inputs.Fill with gen.
func fill(dt tensor.DType, shape []int, seed uint64, gen func(r *rand.Rand) float64) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	if dt == tensor.F64 {
		inputs.Fill(t.F64, seed, gen)
	} else {
		inputs.Fill(t.F32, seed, gen)
	}
	return t
}

// uniform is U[lo, hi).
func uniform(dt tensor.DType, shape []int, seed uint64, lo, hi float64) *tensor.Tensor {
	return fill(dt, shape, seed, inputs.Uniform(lo, hi))
}

// normal is off + scale·N(0, 1).
func normal(dt tensor.DType, shape []int, seed uint64, off, scale float64) *tensor.Tensor {
	return fill(dt, shape, seed, inputs.Normal(off, scale))
}

// plantNaN is inputs.PlantNaN on t.
func plantNaN(t *tensor.Tensor, seed uint64) {
	if t.DType == tensor.F64 {
		inputs.PlantNaN(t.F64, seed)
	} else {
		inputs.PlantNaN(t.F32, seed)
	}
}

// plantNaNSlices is inputs.PlantNaNSlices on t seen as (outer, nAxis, inner).
func plantNaNSlices(t *tensor.Tensor, outer, nAxis, inner int, seed uint64) {
	if t.DType == tensor.F64 {
		inputs.PlantNaNSlices(t.F64, outer, nAxis, inner, seed)
	} else {
		inputs.PlantNaNSlices(t.F32, outer, nAxis, inner, seed)
	}
}

// set writes v at flat index i.
func set(t *tensor.Tensor, i int, v float64) {
	if t.DType == tensor.F64 {
		t.F64[i] = v
	} else {
		t.F32[i] = float32(v)
	}
}

// refOutputs is a float64 run's outputs as the reference's values.
func refOutputs(outs []Output) []RefOutput {
	ref := make([]RefOutput, len(outs))
	for i, o := range outs {
		ref[i] = RefOutput{o.Name, o.T.Float64s()}
	}
	return ref
}
