package stack

import "math"

// RefDate is one date in memory for Reference: the whole input grid,
// 2·W·H values (re, im) for a complex grid, W·H otherwise.
type RefDate struct {
	Data      []float64
	NoData    float64
	HasNoData bool
}

// RefResult holds Reference's statistics in float64, H×W each.
type RefResult struct {
	Mean, Std, CV, Min, Max, Count, Samples []float64
}

// Reference computes the statistics the plain way, in float64, with every
// date in memory: the whole grid's intensity, the multilooked window
// (counting each box's valid samples), the filter, and two-pass mean and variance over the
// valid samples. It is the check for CPU and Vulkan, independent of both.
func Reference(p *Plan, dates []RefDate) *RefResult {
	H, W := p.H, p.W
	per := make([][]float64, len(dates))
	samples := make([]float64, H*W)
	for t, d := range dates {
		// Intensity of every input sample; NaN where missing.
		n := p.Width * p.Height
		in := make([]float64, n)
		for k := 0; k < n; k++ {
			if p.Complex {
				re, im := d.Data[2*k], d.Data[2*k+1]
				if math.IsNaN(re) || math.IsNaN(im) || d.HasNoData && re == d.NoData && im == d.NoData {
					in[k] = math.NaN()
				} else {
					in[k] = re*re + im*im
				}
			} else {
				v := d.Data[k]
				if d.HasNoData && v == d.NoData {
					v = math.NaN()
				}
				in[k] = v
			}
		}
		// Multilook the window, its boxes from its corner (remainder dropped).
		img := make([]float64, H*W)
		for y := 0; y < H; y++ {
			for x := 0; x < W; x++ {
				var vals []float64
				for dy := 0; dy < p.LooksAz; dy++ {
					for dx := 0; dx < p.LooksRg; dx++ {
						v := in[(p.Window.Y+y*p.LooksAz+dy)*p.Width+p.Window.X+x*p.LooksRg+dx]
						if !math.IsNaN(v) {
							vals = append(vals, v)
						}
					}
				}
				img[y*W+x] = meanOf(vals)
				samples[y*W+x] += float64(len(vals))
			}
		}
		if p.Filter.Kind != NoFilter {
			img = refFilter(p, img)
		}
		if p.Quantity == Amplitude {
			for i, v := range img {
				img[i] = math.Sqrt(v)
			}
		}
		per[t] = img
	}
	r := &RefResult{Mean: make([]float64, H*W), Std: make([]float64, H*W), CV: make([]float64, H*W),
		Min: make([]float64, H*W), Max: make([]float64, H*W), Count: make([]float64, H*W), Samples: samples}
	for i := 0; i < H*W; i++ {
		var vals []float64
		for t := range per {
			if v := per[t][i]; !math.IsNaN(v) {
				vals = append(vals, v)
			}
		}
		n := float64(len(vals))
		r.Count[i] = n
		m := meanOf(vals)
		r.Mean[i] = m
		r.Min[i], r.Max[i] = math.NaN(), math.NaN()
		for j, v := range vals {
			if j == 0 || v < r.Min[i] {
				r.Min[i] = v
			}
			if j == 0 || v > r.Max[i] {
				r.Max[i] = v
			}
		}
		var ss float64
		for _, v := range vals {
			ss += (v - m) * (v - m)
		}
		r.Std[i] = math.NaN()
		if n-float64(p.Ddof) > 0 {
			r.Std[i] = math.Sqrt(ss / (n - float64(p.Ddof)))
		}
		r.CV[i] = r.Std[i] / m
	}
	return r
}

func meanOf(v []float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// refFilter is the speckle filter written from its definition.
func refFilter(p *Plan, img []float64) []float64 {
	H, W, k := p.H, p.W, p.Filter.Size/2
	out := make([]float64, len(img))
	for y := 0; y < H; y++ {
		for x := 0; x < W; x++ {
			c := img[y*W+x]
			if math.IsNaN(c) {
				out[y*W+x] = c
				continue
			}
			var win []float64
			for yy := y - k; yy <= y+k; yy++ {
				for xx := x - k; xx <= x+k; xx++ {
					if yy >= 0 && yy < H && xx >= 0 && xx < W && !math.IsNaN(img[yy*W+xx]) {
						win = append(win, img[yy*W+xx])
					}
				}
			}
			m := meanOf(win)
			if p.Filter.Kind == Boxcar {
				out[y*W+x] = m
				continue
			}
			if p.Filter.Kind == RefinedLee && len(win) == (2*k+1)*(2*k+1) && y >= k && y+k < H && x >= k && x+k < W {
				win = refinedHalf(img, W, y, x, k)
				m = meanOf(win)
			}
			var v float64
			for _, s := range win {
				v += (s - m) * (s - m)
			}
			v /= float64(len(win))
			cu2 := 1 / p.ENL
			w := 0.0
			if m > 0 && v > 0 {
				w = (1 - cu2/(v/(m*m))) / (1 + cu2)
				w = math.Max(0, math.Min(1, w))
			}
			out[y*W+x] = m + w*(c-m)
		}
	}
	return out
}

// refinedHalf returns the samples of refined Lee's half window at (y, x),
// written from the definition: nine 3×3 sub-window means, the edge with the
// largest difference of the sums on its two sides, the side whose mean is
// nearer the centre's, and every window pixel on that side (dividing line
// included).
func refinedHalf(img []float64, W, y, x, k int) []float64 {
	d := k - 1
	// The sum (9× the mean; sums decide exactly on integer intensities) of
	// the sub-window at row offset p·d, column offset q·d.
	mean := func(p, q int) float64 {
		var s float64
		for i := -1; i <= 1; i++ {
			for j := -1; j <= 1; j++ {
				s += img[(y+p*d+i)*W+x+q*d+j]
			}
		}
		return s
	}
	type cell struct{ p, q int }
	// Each edge: the sub-windows on its negative and positive sides, the
	// side means compared with the centre, and the signed distance of a
	// pixel offset (di, dj) from the edge.
	edges := []struct {
		negCells, posCells []cell
		neg, pos           cell
		dist               func(di, dj int) int
	}{
		{[]cell{{-1, -1}, {0, -1}, {1, -1}}, []cell{{-1, 1}, {0, 1}, {1, 1}}, cell{0, -1}, cell{0, 1}, func(di, dj int) int { return dj }},
		{[]cell{{-1, -1}, {-1, 0}, {-1, 1}}, []cell{{1, -1}, {1, 0}, {1, 1}}, cell{-1, 0}, cell{1, 0}, func(di, dj int) int { return di }},
		{[]cell{{-1, 0}, {0, -1}, {-1, -1}}, []cell{{0, 1}, {1, 0}, {1, 1}}, cell{-1, -1}, cell{1, 1}, func(di, dj int) int { return di + dj }},
		{[]cell{{0, -1}, {1, -1}, {1, 0}}, []cell{{-1, 0}, {-1, 1}, {0, 1}}, cell{1, -1}, cell{-1, 1}, func(di, dj int) int { return dj - di }},
	}
	best, bestG := 0, -1.0
	for e, ed := range edges {
		var sn, sp float64
		for _, c := range ed.negCells {
			sn += mean(c.p, c.q)
		}
		for _, c := range ed.posCells {
			sp += mean(c.p, c.q)
		}
		if g := math.Abs(sp - sn); g > bestG {
			best, bestG = e, g
		}
	}
	ed := edges[best]
	c := mean(0, 0)
	negSide := math.Abs(mean(ed.neg.p, ed.neg.q)-c) < math.Abs(mean(ed.pos.p, ed.pos.q)-c)
	var half []float64
	for di := -k; di <= k; di++ {
		for dj := -k; dj <= k; dj++ {
			s := ed.dist(di, dj)
			if negSide && s <= 0 || !negSide && s >= 0 {
				half = append(half, img[(y+di)*W+x+dj])
			}
		}
	}
	return half
}
