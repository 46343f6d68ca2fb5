package suite

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"

	"github.com/vkstat/vkstat/tensor"
)

// fill sets every element of a new tensor to gen(rng), generating in float64
// and rounding to dt, so float32 inputs are the float64 ones rounded. Large
// tensors are filled by several goroutines, each with its own stream: the
// result depends on the seed and the size only.
func fill(dt tensor.DType, shape []int, seed uint64, gen func(r *rand.Rand) float64) *tensor.Tensor {
	t := tensor.New(dt, shape...)
	n := t.Len()
	const piece = 1 << 20
	pieces := (n + piece - 1) / piece
	work := func(p int) {
		r := rand.New(rand.NewPCG(seed, uint64(p)))
		lo, hi := p*piece, min((p+1)*piece, n)
		if dt == tensor.F64 {
			for i := lo; i < hi; i++ {
				t.F64[i] = gen(r)
			}
		} else {
			for i := lo; i < hi; i++ {
				t.F32[i] = float32(gen(r))
			}
		}
	}
	if pieces <= 1 {
		if n > 0 {
			work(0)
		}
		return t
	}
	var wg sync.WaitGroup
	next := make(chan int)
	for w := 0; w < min(runtime.GOMAXPROCS(0), pieces); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p := range next {
				work(p)
			}
		}()
	}
	for p := 0; p < pieces; p++ {
		next <- p
	}
	close(next)
	wg.Wait()
	return t
}

// uniform is U[lo, hi).
func uniform(dt tensor.DType, shape []int, seed uint64, lo, hi float64) *tensor.Tensor {
	return fill(dt, shape, seed, func(r *rand.Rand) float64 { return lo + (hi-lo)*r.Float64() })
}

// normal is off + scale·N(0, 1).
func normal(dt tensor.DType, shape []int, seed uint64, off, scale float64) *tensor.Tensor {
	return fill(dt, shape, seed, func(r *rand.Rand) float64 { return off + scale*r.NormFloat64() })
}

// set writes v at flat index i.
func set(t *tensor.Tensor, i int, v float64) {
	if t.DType == tensor.F64 {
		t.F64[i] = v
	} else {
		t.F32[i] = float32(v)
	}
}

// plantNaN sets about one element in every hundred (at least one) to NaN.
func plantNaN(t *tensor.Tensor, seed uint64) {
	n := t.Len()
	if n == 0 {
		return
	}
	r := rand.New(rand.NewPCG(seed, 0x6e616e))
	for k := max(n/100, 1); k > 0; k-- {
		set(t, r.IntN(n), math.NaN())
	}
}

// plantNaNSlices plants NaNs in the slices of a (outer, nAxis, inner) view:
// the first slice is all NaN, the second keeps one value, and about one in
// eight of the others gets one to three NaNs. A single slice gets three.
func plantNaNSlices(t *tensor.Tensor, outer, nAxis, inner int, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 0x736c63))
	at := func(out, i int) int {
		o, j := out/inner, out%inner
		return (o*nAxis+i)*inner + j
	}
	outs := outer * inner
	nan := math.NaN()
	if outs == 1 {
		for k := 0; k < 3; k++ {
			set(t, at(0, r.IntN(nAxis)), nan)
		}
		return
	}
	for i := 0; i < nAxis; i++ {
		set(t, at(0, i), nan)
	}
	keep := r.IntN(nAxis)
	for i := 0; i < nAxis; i++ {
		if i != keep {
			set(t, at(1, i), nan)
		}
	}
	for out := 2; out < outs; out++ {
		if r.IntN(8) == 0 {
			for k := r.IntN(3); k >= 0; k-- {
				set(t, at(out, r.IntN(nAxis)), nan)
			}
		}
	}
}
