package stack

import (
	"context"
	"math"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// welford is the per-pixel state of the temporal statistics, and 1/n for
// the counts a pixel can reach (a multiplication instead of a division per
// update).
// Mean and M2 are float64; the count and the extremes, exact in
// less, are kept narrow to spare memory traffic.
type welford struct {
	n        []uint32
	mean, m2 []float64
	mn, mx   []float32
	inv      []float64
}

func newWelford(n, dates int) *welford {
	w := &welford{n: tensor.Make[uint32](n), mean: tensor.Make[float64](n), m2: tensor.Make[float64](n), mn: tensor.Make[float32](n), mx: tensor.Make[float32](n),
		inv: make([]float64, dates+2)}
	for i := 1; i < len(w.inv); i++ {
		w.inv[i] = 1 / float64(i)
	}
	return w
}

// add adds sample x of pixel i (NaN is skipped).
func (w *welford) add(i int, x float64) {
	if math.IsNaN(x) {
		return
	}
	n := w.n[i] + 1
	d := x - w.mean[i]
	w.mean[i] += d * w.inv[n]
	w.m2[i] += d * (x - w.mean[i])
	xf := float32(x)
	if n == 1 {
		w.mn[i], w.mx[i] = xf, xf
	} else {
		w.mn[i], w.mx[i] = min(w.mn[i], xf), max(w.mx[i], xf)
	}
	w.n[i] = n
}

// look multilooks output rows [0, s.rows) of a strip, as intensity, or
// amplitude when amp, and hands each finished row (p.W values) to emit, from
// the goroutine that made it. It runs along the input lines (memory order),
// goroutines over output rows.
func look(p *Plan, s *strip, amp bool, emit func(oy int, row []float64)) {
	a, r, per := p.LooksAz, p.LooksRg, p.Per
	line := p.InW * per
	nd, hasND := s.nodata, s.hasNodata
	par.Range(s.rows, 4, func(lo, hi int) {
		sums := make([]float64, p.W)
		ns := make([]int, p.W)
		out := make([]float64, p.W)
		for oy := lo; oy < hi; oy++ {
			clear(sums)
			clear(ns)
			for dy := 0; dy < a; dy++ {
				in := s.buf[(oy*a+dy)*line : (oy*a+dy+1)*line]
				for ox := range sums {
					seg := in[ox*r*per : (ox+1)*r*per]
					var sum float64
					n := 0
					if !hasND {
						// Common case: no nodata value; NaNs are rare, so sum
						// without branches and look again only when the sum
						// is NaN.
						var f float32
						if per == 2 {
							for k := 0; k+1 < len(seg); k += 2 {
								f += seg[k]*seg[k] + seg[k+1]*seg[k+1]
							}
						} else {
							for _, x := range seg {
								f += x
							}
						}
						if f == f {
							sums[ox] += float64(f)
							ns[ox] += r
							continue
						}
					}
					if per == 2 {
						for k := 0; k+1 < len(seg); k += 2 {
							re, im := seg[k], seg[k+1]
							v := float64(re)*float64(re) + float64(im)*float64(im)
							if v != v || hasND && re == nd && im == nd {
								continue
							}
							sum += v
							n++
						}
					} else {
						for _, x := range seg {
							if x != x || hasND && x == nd {
								continue
							}
							sum += float64(x)
							n++
						}
					}
					sums[ox] += sum
					ns[ox] += n
				}
			}
			for ox, sum := range sums {
				x := math.NaN()
				if ns[ox] > 0 {
					x = sum / float64(ns[ox])
				}
				if amp {
					x = math.Sqrt(x)
				}
				out[ox] = x
			}
			emit(oy, out)
		}
	})
}

// filterImage applies p's speckle filter to img (p.H×p.W) into dst.
func filterImage(p *Plan, img, dst []float64) {
	h, w, k := p.H, p.W, p.Filter.Size/2
	cu2 := 1 / p.ENL
	par.Range(h, 4, func(lo, hi int) {
		for y := lo; y < hi; y++ {
			for x := 0; x < w; x++ {
				c := img[y*w+x]
				if math.IsNaN(c) {
					dst[y*w+x] = c
					continue
				}
				y0, y1, x0, x1 := max(y-k, 0), min(y+k, h-1), max(x-k, 0), min(x+k, w-1)
				var sum, n float64
				for yy := y0; yy <= y1; yy++ {
					for _, v := range img[yy*w+x0 : yy*w+x1+1] {
						if !math.IsNaN(v) {
							sum += v
							n++
						}
					}
				}
				m := sum / n
				if p.Filter.Kind == Boxcar {
					dst[y*w+x] = m
					continue
				}
				dir, side := -1, 0
				if p.Filter.Kind == RefinedLee {
					dir, side = edgeHalf(img, h, w, y, x, k, n)
					if dir >= 0 {
						sum, n = 0, 0
						for yy := y0; yy <= y1; yy++ {
							for xx := x0; xx <= x1; xx++ {
								if inHalf(yy-y, xx-x, dir, side) {
									sum += img[yy*w+xx]
									n++
								}
							}
						}
						m = sum / n
					}
				}
				var ss float64
				for yy := y0; yy <= y1; yy++ {
					for xx := x0; xx <= x1; xx++ {
						if v := img[yy*w+xx]; !math.IsNaN(v) && inHalf(yy-y, xx-x, dir, side) {
							ss += (v - m) * (v - m)
						}
					}
				}
				v := ss / n
				wgt := 0.0
				if m > 0 && v > 0 {
					wgt = min(max((1-cu2/(v/(m*m)))/(1+cu2), 0), 1)
				}
				dst[y*w+x] = m + wgt*(c-m)
			}
		}
	})
}

// CPU computes the statistics on the host: goroutines over rows, float64
// arithmetic throughout.
func CPU(ctx context.Context, p *Plan, dates []Date) (*Result, error) {
	return cpuRun(ctx, p, dates, false)
}

// cpuRun is CPU, keeping the state (Result.state) when keep.
func cpuRun(ctx context.Context, p *Plan, dates []Date, keep bool) (*Result, error) {
	t0 := time.Now()
	N := p.H * p.W
	st := newWelford(N, len(dates))
	filter := p.Filter.Kind != NoFilter
	amp := p.Quantity == Amplitude
	var img, filtered []float64
	if filter {
		img, filtered = tensor.Make[float64](N), tensor.Make[float64](N)
	}
	tm, err := run(ctx, p, dates, p.StripRows(p.stripBytes()), func(s *strip) error {
		if !filter {
			look(p, s, amp, func(oy int, row []float64) {
				off := (s.row0 + oy) * p.W
				for i, v := range row {
					st.add(off+i, v)
				}
			})
			return nil
		}
		look(p, s, false, func(oy int, row []float64) { copy(img[(s.row0+oy)*p.W:], row) })
		if s.last {
			filterImage(p, img, filtered)
			if amp {
				for i, v := range filtered {
					filtered[i] = math.Sqrt(v)
				}
			}
			addRows(st, filtered, 0)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	res := finish(p, st.n, st.mean, st.m2, st.mn, st.mx, len(dates), tm.samples)
	if keep {
		res.state = st.partial(p, len(dates))
		res.state.Samples = samplesOf(tm.samples)
	}
	res.Read, res.Timing.Kernel = tm.read, tm.compute
	res.Timing.AddPhase("read-buffers", tm.buffers)
	res.Timing.AddPhase("read-wait", tm.wait)
	res.Timing.AddPhase(engine.TimeCompute, max(time.Since(t0)-tm.wait-tm.buffers, 0))
	return res, nil
}

// addRows adds values v (pixels off, off+1, ...) to the state.
func addRows(st *welford, v []float64, off int) {
	par.Range(len(v), 1<<14, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			st.add(off+i, v[i])
		}
	})
}

// inHalf reports whether offset (di, dj) from the centre lies in the half
// window dir, side (see edgeHalf); dir < 0 is the whole window.
func inHalf(di, dj, dir, side int) bool {
	if dir < 0 {
		return true
	}
	var s int
	switch dir {
	case 0:
		s = dj
	case 1:
		s = di
	case 2:
		s = di + dj
	default:
		s = dj - di
	}
	if side == 0 {
		return s <= 0
	}
	return s >= 0
}

// edgeHalf picks refined Lee's half window around (y, x) for a window of
// half-size k holding n valid samples: the sums M of nine 3×3 sub-windows
// k−1 apart, the strongest of four gradients across them (0: vertical
// edge, 1: horizontal, 2 and 3: the diagonals), and the side whose mean is
// closer to the centre's. A clipped window, or one with a NaN, gives -1.
func edgeHalf(img []float64, h, w, y, x, k int, n float64) (dir, side int) {
	if y-k < 0 || y+k >= h || x-k < 0 || x+k >= w || n != float64((2*k+1)*(2*k+1)) {
		return -1, 0
	}
	d := k - 1
	var M [3][3]float64
	for a := 0; a < 3; a++ {
		for b := 0; b < 3; b++ {
			cy, cx := y+(a-1)*d, x+(b-1)*d
			var s float64
			for i := -1; i <= 1; i++ {
				for j := -1; j <= 1; j++ {
					s += img[(cy+i)*w+cx+j]
				}
			}
			M[a][b] = s // sums, not means: integer intensities decide exactly
		}
	}
	g := [4]float64{
		math.Abs((M[0][2] + M[1][2] + M[2][2]) - (M[0][0] + M[1][0] + M[2][0])),
		math.Abs((M[2][0] + M[2][1] + M[2][2]) - (M[0][0] + M[0][1] + M[0][2])),
		math.Abs((M[1][2] + M[2][1] + M[2][2]) - (M[0][1] + M[1][0] + M[0][0])),
		math.Abs((M[0][1] + M[0][2] + M[1][2]) - (M[1][0] + M[2][0] + M[2][1])),
	}
	dir = 0
	for i := 1; i < 4; i++ {
		if g[i] > g[dir] {
			dir = i
		}
	}
	neg := [4]float64{M[1][0], M[0][1], M[0][0], M[2][0]}[dir]
	pos := [4]float64{M[1][2], M[2][1], M[2][2], M[0][2]}[dir]
	c := M[1][1]
	if math.Abs(neg-c) < math.Abs(pos-c) {
		return dir, 0
	}
	return dir, 1
}
