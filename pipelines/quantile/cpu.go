package quantile

import (
	"context"
	"math"
	"math/bits"
	"slices"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// cpu writes the quantiles of in (viewed as g) into out, slices spread
// over every core: each slice is copied into a float64 scratch and only
// the order statistics the quantiles need are put in place (select, O(n)
// per slice), never the whole slice sorted. Along an axis with a stride
// (an image stack's axis 0), a block of up to cpuBlock adjacent slices is
// gathered at once, row by row, so that each cache line read serves them
// all.
func cpu(ctx context.Context, in *tensor.Tensor, g reduce.Geometry, opt Options, out *tensor.Tensor) error {
	total := g.Outputs()
	blocksPerOuter := (g.Inner + cpuBlock - 1) / cpuBlock
	blockLen := min(g.Inner, cpuBlock)
	batch := max(1, 4096/(g.N*blockLen))
	return par.EachContext(ctx, g.Outer*blocksPerOuter, batch, func() *scratch { return newScratch(g.N, blockLen, len(opt.Q)) }, func(s *scratch, b int) {
		o, j0 := b/blocksPerOuter, b%blocksPerOuter*cpuBlock
		w := min(cpuBlock, g.Inner-j0)
		base := o*g.N*g.Inner + j0
		if in.DType == tensor.F64 {
			gather(s, in.F64, base, g.Inner, w)
		} else {
			gather(s, in.F32, base, g.Inner, w)
		}
		for c := range w {
			s.quantiles(c, opt.Q, opt.SkipNaN)
			i := o*g.Inner + j0 + c
			for k, v := range s.out {
				if out.DType == tensor.F64 {
					out.F64[k*total+i] = v
				} else {
					out.F32[k*total+i] = float32(v)
				}
			}
		}
	})
}

// cpuBlock is the most adjacent slices cpu gathers at once: 16 float32
// values fill a 64-byte cache line.
const cpuBlock = 16

// scratch is one goroutine's working memory: a block of slices' values
// (NaNs left out) and NaN counts, the order statistics to select, and one
// slice's quantiles.
type scratch struct {
	n    int // a slice's length
	x    [][]float64
	nans []int
	want []int
	out  []float64
}

func newScratch(n, block, nq int) *scratch {
	s := &scratch{n: n, x: make([][]float64, block), nans: make([]int, block), want: make([]int, 0, 2*nq), out: make([]float64, nq)}
	for c := range s.x {
		s.x[c] = make([]float64, 0, n)
	}
	return s
}

// gather copies w adjacent slices of src, starting at base, their values
// stride apart, into s, leaving NaNs out and counting them.
func gather[T float32 | float64](s *scratch, src []T, base, stride, w int) {
	for c := range w {
		s.x[c], s.nans[c] = s.x[c][:0], 0
	}
	for i := range s.n {
		row := src[base+i*stride : base+i*stride+w]
		for c, r := range row {
			v := float64(r)
			if math.IsNaN(v) {
				s.nans[c]++
				continue
			}
			s.x[c] = append(s.x[c], v)
		}
	}
}

// quantiles sets s.out to the quantiles q of gathered slice c.
func (s *scratch) quantiles(c int, q []float64, skipNaN bool) {
	x := s.x[c]
	m := len(x)
	if m == 0 || (s.nans[c] > 0 && !skipNaN) {
		for k := range s.out {
			s.out[k] = math.NaN()
		}
		return
	}
	s.want = s.want[:0]
	for _, qk := range q {
		lo, g := position(qk, m)
		s.want = append(s.want, lo)
		if g != 0 {
			s.want = append(s.want, lo+1)
		}
	}
	slices.Sort(s.want)
	s.want = slices.Compact(s.want)
	multiSelect(x, s.want, 0)
	for k, qk := range q {
		lo, g := position(qk, m)
		if g == 0 {
			s.out[k] = x[lo]
		} else {
			s.out[k] = lerp(x[lo], x[lo+1], g)
		}
	}
}

// multiSelect puts the values at the sorted indices want (into the whole
// slice, x being the part from offset off) in their sorted places: the
// middle one (the lower of two) first, then each side's within its part. An index right
// after a placed one (an interpolation's upper neighbour) is the minimum
// of what follows, found in one scan.
func multiSelect(x []float64, want []int, off int) {
	if len(want) == 0 {
		return
	}
	mid := (len(want) - 1) / 2
	k := want[mid] - off
	selectK(x, k)
	multiSelect(x[:k], want[:mid], off)
	rest := want[mid+1:]
	if len(rest) > 0 && rest[0] == k+off+1 {
		r := x[k+1:]
		m := 0
		for i, v := range r {
			if v < r[m] {
				m = i
			}
		}
		r[0], r[m] = r[m], r[0]
		k, rest = k+1, rest[1:]
	}
	multiSelect(x[k+1:], rest, off+k+1)
}

// selectK reorders x, which holds no NaN, so that x[k] is the value it
// has sorted, nothing after it smaller and nothing before it larger:
// quickselect with a median-of-three pivot and a three-way partition (a
// run of ties takes one pass), sorting what is left once the parts stop
// shrinking as they should (introselect's guard).
func selectK(x []float64, k int) {
	lo, hi := 0, len(x)
	budget := 2 * bits.Len(uint(len(x)))
	for hi-lo > 16 {
		if budget == 0 {
			slices.Sort(x[lo:hi])
			return
		}
		budget--
		p := median3(x[lo], x[lo+(hi-lo)/2], x[hi-1])
		lt, gt := partition3(x[lo:hi], p)
		switch {
		case k < lo+lt:
			hi = lo + lt
		case k >= lo+gt:
			lo += gt
		default:
			return
		}
	}
	slices.Sort(x[lo:hi])
}

func median3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return max(a, b)
}

// partition3 reorders x into values below p, equal to p, above p, and
// returns where the equal run starts and ends.
func partition3(x []float64, p float64) (lt, gt int) {
	lt, i, gt := 0, 0, len(x)
	for i < gt {
		switch v := x[i]; {
		case v < p:
			x[lt], x[i] = v, x[lt]
			lt++
			i++
		case v > p:
			gt--
			x[gt], x[i] = v, x[gt]
		default:
			i++
		}
	}
	return lt, gt
}
