package paco

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/internal/vec"
	"github.com/vkstat/vkstat/tensor"
)

// CenterEstimate is the star centre measured on the data (PACO.md, "Star
// centre"): sub-pixel, 0-based (y is the row).
type CenterEstimate struct {
	Y, X float64
	// Method is "star" (the brightest core: a bright, unsaturated or
	// saturated star) or "coronagraph" (the darkest core: a coronagraph's
	// dark centre).
	Method string
	// Frames is how many per-frame estimates the median took.
	Frames int
	// SpreadY and SpreadX are the median absolute deviations of the
	// per-frame estimates, pixels: how much the centre moves between frames.
	SpreadY, SpreadX float64
	// Uncertainty is the radius, in pixels, within which the true centre
	// lies with 95 % probability: the static structure around the star
	// (staticError95; every frame shares it, so the frames' spread does not
	// show it) and the frames' own noise (the median's standard error)
	// together. On synth's stars (core 10× to 100× the speckles, FWHM 3 to
	// 5) it covered the true error on 97 % of 360 cubes: 1.6–2 px for the
	// faintest (true errors 0.3 px typically, up to 1.7), 0.2–0.3 px for
	// the brightest (0.03, up to 0.17).
	Uncertainty float64
}

// RulesOut reports whether the measurement rules out the centre (y, x):
// it lies beyond the 95 % uncertainty. A centre it does not rule out (the
// geometric default, say, or a header's) may be as good as the
// measurement, or better: a measured centre should replace it only when it
// rules it out.
func (c CenterEstimate) RulesOut(y, x float64) bool {
	return math.Hypot(c.Y-y, c.X-x) > c.Uncertainty
}

// Rounded is the centre as PACO's maps use it: the nearest pixel.
func (c CenterEstimate) Rounded() [2]int {
	return [2]int{int(math.Round(c.Y)), int(math.Round(c.X))}
}

// FWHMOfStamp is the FWHM, in pixels, of a Gaussian with the stamp's
// peak-to-sum ratio (for a unit-sum Gaussian the peak is 1/(2πσ²)): the
// width EstimateCenter needs, from the PSF the run already has.
func FWHMOfStamp(psf *tensor.Tensor) float64 {
	f := stampFWHM(psf)
	if math.IsNaN(f) {
		return 2
	}
	return min(max(f, 1), 50)
}

// EstimateCenter measures the star centre of a (T, H, W) cube, PACO.md's
// rule: on the median frame it finds the core within 3·FWHM (at least 5 px)
// of the geometric centre (H/2, W/2) (the extreme of the frame smoothed by
// a Gaussian of σ = FWHM, smoothedPeak) and decides whether it is a bright
// star or a coronagraph's dark centre (the core's mean against the ring
// 2–3 FWHM out); then in every frame it measures the centre with a
// Gaussian-windowed centroid (the window of the PSF's FWHM, iterated to a
// fixed point, as SExtractor's XWIN: for a symmetric star this is the
// centre a 2-D Gaussian fit gives, and a constant background cancels) on
// the frame, inverted for a coronagraph; the centre is the median over the
// frames. It fails, so that the caller keeps the geometric centre, when
// the median frame shows no core standing out of its ring by 5 robust
// standard deviations (pure noise, a flat or NaN cube). Its Uncertainty
// is a 95 % radius; a caller replaces another centre by the measurement
// only when the measurement rules it out (CenterEstimate.RulesOut).
func EstimateCenter(cube *tensor.Tensor, fwhm float64) (CenterEstimate, error) {
	if cube == nil || len(cube.Shape) != 3 {
		return CenterEstimate{}, fmt.Errorf("the cube must be 3-D")
	}
	T, H, W := cube.Shape[0], cube.Shape[1], cube.Shape[2]
	if !(fwhm > 0) {
		fwhm = 4
	}
	if cube.DType != tensor.F32 && cube.DType != tensor.F64 {
		return CenterEstimate{}, fmt.Errorf("the cube must be float32 or float64")
	}
	gy, gx := float64(H/2), float64(W/2)
	search := max(3*fwhm, 5)
	// The median frame and the frames, only within reach of the search:
	// the box of half-side search + 4·FWHM + 2 around the geometric centre
	// (NaN outside), so that the cost does not grow with the frame size.
	// They are read from the cube as it is stored (±Inf as NaN), not
	// from a float64 copy of the box: 1.5 MB of fresh memory at 64×64×48,
	// whose first touch cost more than all the reading (4 ms of CPU on a
	// VM, against 0.2 ms).
	reach := int(math.Ceil(search + 4*fwhm + 2))
	y0b, y1b := max(0, int(gy)-reach), min(H-1, int(gy)+reach)
	x0b, x1b := max(0, int(gx)-reach), min(W-1, int(gx)+reach)
	bh, bw := y1b-y0b+1, x1b-x0b+1
	frames := cubeFrames{f32: cube.F32, f64: cube.F64, n: H * W}
	mf := newMedianFrame(frames, T, H, W, y0b, y1b, x0b, x1b)
	med := mf.med
	// Core and ring statistics around a point, on the median frame.
	stats := func(f []float64, cy, cx float64) (core, ring, ringSD float64) {
		var cs []float64
		var rs []float64
		for y := int(cy - 3*fwhm - 1); y <= int(cy+3*fwhm+1); y++ {
			for x := int(cx - 3*fwhm - 1); x <= int(cx+3*fwhm+1); x++ {
				if y < 0 || x < 0 || y >= H || x >= W || math.IsNaN(f[y*W+x]) {
					continue
				}
				r := math.Hypot(float64(y)-cy, float64(x)-cx)
				switch {
				case r <= fwhm/2:
					cs = append(cs, f[y*W+x])
				case r >= 2*fwhm && r <= 3*fwhm:
					rs = append(rs, f[y*W+x])
				}
			}
		}
		if len(cs) == 0 || len(rs) < 4 {
			return math.NaN(), math.NaN(), math.NaN()
		}
		m := medianOf(rs)
		dev := make([]float64, len(rs))
		for i, v := range rs {
			dev[i] = math.Abs(v - m)
		}
		return meanOf(cs), m, 1.4826 * medianOf(dev)
	}
	// What stats and smoothedPeak (its candidates within search, its
	// kernel's radius beyond) read around the geometric centre.
	pk := newPeakKernel(W, fwhm)
	mf.around(gy, gx, max(3*fwhm+1, search+float64(pk.kr)))
	core, ring, _ := stats(med, gy, gx)
	if math.IsNaN(core) || math.IsNaN(ring) {
		return CenterEstimate{}, fmt.Errorf("no finite data around the geometric centre")
	}
	sign := 1.0
	method := "star"
	if core < ring {
		sign, method = -1, "coronagraph"
	}
	by, bx, best := smoothedPeak(med, W, pk, gy, gx, search, sign, y0b, y1b, x0b, x1b)
	if by < 0 || math.IsNaN(best) || math.IsInf(best, 0) {
		return CenterEstimate{}, fmt.Errorf("no finite core near the geometric centre")
	}
	mf.around(float64(by), float64(bx), 3*fwhm+1)
	core, ring, sd := stats(med, float64(by), float64(bx))
	if !(sign*(core-ring) > 5*sd) || math.IsNaN(sd) {
		return CenterEstimate{}, fmt.Errorf("no star stands out near the geometric centre (core %.4g, ring %.4g ± %.3g)", core, ring, sd)
	}
	// The centroid of the median frame, from the peak (its window, 4σ,
	// within the square stats read): where its squares strayed beyond
	// the pixels whose median is known, every pixel of the box and again
	// (the same result as if all were known).
	seen := [4]int{H, -1, W, -1}
	y0, x0, ok := windowCentroid(window{med, 0, 0, H, W, &seen}, new(centroidScratch), H, W, float64(by), float64(bx), fwhm, sign)
	if !mf.known(seen[0], seen[1], seen[2], seen[3]) {
		mf.over(y0b, y1b, x0b, x1b)
		y0, x0, ok = windowCentroid(window{med, 0, 0, H, W, nil}, new(centroidScratch), H, W, float64(by), float64(bx), fwhm, sign)
	}
	if !ok {
		return CenterEstimate{}, fmt.Errorf("the centroid of the median frame does not converge")
	}
	// Every frame's centroid, over every core, kept in frame order: each
	// frame's box read into its goroutine's own.
	type frameScratch struct {
		box []float64
		sc  centroidScratch
	}
	fy, fx, fok := make([]float64, T), make([]float64, T), make([]bool, T)
	par.Each(T, 1, func() *frameScratch { return &frameScratch{box: make([]float64, bh*bw)} }, func(s *frameScratch, l int) {
		for y := y0b; y <= y1b; y++ {
			frames.row(s.box[(y-y0b)*bw:][:bw], l, y*W+x0b)
		}
		fy[l], fx[l], fok[l] = windowCentroid(window{s.box, y0b, x0b, bh, bw, nil}, &s.sc, H, W, y0, x0, fwhm, sign)
	})
	ys := make([]float64, 0, T)
	xs := make([]float64, 0, T)
	for l, ok := range fok {
		if ok {
			ys, xs = append(ys, fy[l]), append(xs, fx[l])
		}
	}
	if len(ys) == 0 {
		return CenterEstimate{}, fmt.Errorf("the centroid converges in no frame")
	}
	est := CenterEstimate{Y: medianOf(ys), X: medianOf(xs), Method: method, Frames: len(ys)}
	est.SpreadY, est.SpreadX = madOf(ys, est.Y), madOf(xs, est.X)
	gy0, gx0, g, _ := staticGrid(est.Y, est.X, fwhm)
	mf.over(gy0, gy0+g-1, gx0, gx0+g-1)
	u, ok := staticError95(med, H, W, est.Y, est.X, fwhm, sign)
	if !ok {
		return CenterEstimate{}, fmt.Errorf("too few finite pixels around the star to bound the centre's error")
	}
	// The frames' own noise: the median's standard error (1.2533 × the
	// spread's σ, 1.4826 × its MAD), per axis, as a 95 % radius (χ² of 2
	// degrees of freedom, 5.991), added in quadrature.
	n := float64(len(ys))
	v := math.Pow(1.2533*1.4826, 2) * (est.SpreadY*est.SpreadY + est.SpreadX*est.SpreadX) / (2 * n)
	est.Uncertainty = math.Sqrt(u*u + 5.991*v)
	return est, nil
}

// cubeFrames are the values of a float32 or float64 (T, H, W) cube, as
// float64 with ±Inf as NaN (EstimateCenter leaves both out); n is H·W.
type cubeFrames struct {
	f32 []float32
	f64 []float64
	n   int
}

// at is pixel i (flat in the frame) of frame l.
func (c cubeFrames) at(l, i int) float64 {
	var v float64
	if c.f32 != nil {
		v = float64(c.f32[l*c.n+i])
	} else {
		v = c.f64[l*c.n+i]
	}
	if math.IsInf(v, 0) {
		return math.NaN()
	}
	return v
}

// row puts pixels i…i+len(dst)−1 of frame l in dst.
func (c cubeFrames) row(dst []float64, l, i int) {
	o := l*c.n + i
	if c.f32 != nil {
		for x, v := range c.f32[o : o+len(dst)] {
			dst[x] = float64(v)
		}
	} else {
		copy(dst, c.f64[o:o+len(dst)])
	}
	for x, v := range dst {
		if math.IsInf(v, 0) {
			dst[x] = math.NaN()
		}
	}
}

// medianFrame is the median over the frames of a (T, H, W) cube within
// a box, rows y0…y1 and columns x0…x1 (bw wide), taken pixel by pixel where a step of EstimateCenter first
// reads it (about half the box for a star near the geometric centre):
// med, H×W, holds those, NaN elsewhere.
type medianFrame struct {
	med                      []float64
	frames                   cubeFrames
	done                     []bool // the box's pixels in med
	todo                     []int
	T, W, y0, y1, x0, x1, bw int
}

func newMedianFrame(frames cubeFrames, T, H, W, y0, y1, x0, x1 int) *medianFrame {
	bw := x1 - x0 + 1
	nb := (y1 - y0 + 1) * bw
	m := &medianFrame{med: make([]float64, H*W), frames: frames, done: make([]bool, nb), T: T, W: W, y0: y0, y1: y1, x0: x0, x1: x1, bw: bw}
	for i := range m.med {
		m.med[i] = math.NaN()
	}
	return m
}

// over takes the medians of rows ya…yb and columns xa…xb not yet taken,
// over every core.
func (m *medianFrame) over(ya, yb, xa, xb int) {
	m.todo = m.todo[:0]
	for y := max(ya, m.y0); y <= min(yb, m.y1); y++ {
		for x := max(xa, m.x0); x <= min(xb, m.x1); x++ {
			if j := (y-m.y0)*m.bw + x - m.x0; !m.done[j] {
				m.done[j] = true
				m.todo = append(m.todo, j)
			}
		}
	}
	par.Range(len(m.todo), 64, func(lo, hi int) {
		col := make([]float64, 0, m.T)
		for _, j := range m.todo[lo:hi] {
			col = col[:0]
			i := (m.y0+j/m.bw)*m.W + m.x0 + j%m.bw
			for l := 0; l < m.T; l++ {
				if v := m.frames.at(l, i); !math.IsNaN(v) {
					col = append(col, v)
				}
			}
			m.med[i] = selectMedian(col)
		}
	})
}

// around takes the medians of the square within r of (cy, cx), and a
// pixel more.
func (m *medianFrame) around(cy, cx, r float64) {
	m.over(int(math.Floor(cy-r))-1, int(math.Ceil(cy+r))+1, int(math.Floor(cx-r))-1, int(math.Ceil(cx+r))+1)
}

// known says whether med holds every pixel of the box in rows y0…y1 and
// columns x0…x1.
func (m *medianFrame) known(y0, y1, x0, x1 int) bool {
	for y := max(y0, m.y0); y <= min(y1, m.y1); y++ {
		for x := max(x0, m.x0); x <= min(x1, m.x1); x++ {
			if !m.done[(y-m.y0)*m.bw+x-m.x0] {
				return false
			}
		}
	}
	return true
}

// peakKernel is smoothedPeak's kernel for frames W pixels wide: a
// Gaussian of σ = FWHM out to radius kr = ⌈2·FWHM⌉, its taps row-major, at
// offsets lo + off[t] in the frame from the pixel smoothed (off ≥ 0), of
// weights w[t] adding up to sw.
type peakKernel struct {
	kr, lo int
	off    []int
	w      []float64
	sw     float64
}

func newPeakKernel(W int, fwhm float64) *peakKernel {
	k := &peakKernel{kr: int(math.Ceil(2 * fwhm))}
	kr := k.kr
	for dy := -kr; dy <= kr; dy++ {
		for dx := -kr; dx <= kr; dx++ {
			if dy*dy+dx*dx <= kr*kr {
				k.off = append(k.off, dy*W+dx)
				k.w = append(k.w, math.Exp(-float64(dy*dy+dx*dx)/(2*fwhm*fwhm)))
			}
		}
	}
	k.lo = slices.Min(k.off)
	for t, w := range k.w {
		k.off[t] -= k.lo
		k.sw += w
	}
	return k
}

// smoothedPeak is the pixel within search of (cy, cx) where sign·f,
// smoothed by the Gaussian k (NaNs left out), is largest, the kernel kept
// within rows y0…y1 and columns x0…x1. Wider than the PSF, the kernel
// weighs the star's core with its halo, where a 3×3 sum took a bright
// speckle a few FWHM out for the star (5–8 px off on 3 % of synth's cubes
// whose star is 10× its speckles).
func smoothedPeak(f []float64, W int, k *peakKernel, cy, cx, search, sign float64, y0, y1, x0, x1 int) (by, bx int, best float64) {
	kr := k.kr
	ya, yb, xa, xb := int(cy-search), int(cy+search), int(cx-search), int(cx+search)
	// Where no pixel the kernel reaches is NaN (the Monte-Carlo draws'
	// frames), every candidate's weights add up to the same sw, and a
	// row's candidates (a run of pixels) are smoothed at once, each sum
	// in the order of the taps (vec.Stencil).
	clean := true
	for y := max(ya-kr, y0); y <= min(yb+kr, y1) && clean; y++ {
		for x := max(xa-kr, x0); x <= min(xb+kr, x1); x++ {
			if v := f[y*W+x]; v != v {
				clean = false
				break
			}
		}
	}
	sums := make([]float64, xb-xa+1)
	by, bx, best = -1, -1, math.Inf(-1)
	for y := ya; y <= yb; y++ {
		// The candidates of the row, xl…xr.
		xl, xr := xb+1, xa-1
		for x := xa; x <= xb; x++ {
			if y-kr < y0 || x-kr < x0 || y+kr > y1 || x+kr > x1 || math.Hypot(float64(y)-cy, float64(x)-cx) > search {
				continue
			}
			xl, xr = min(xl, x), x
		}
		if xl > xr {
			continue
		}
		if clean {
			vec.Stencil(sums[:xr-xl+1], f[y*W+xl+k.lo:], k.off, k.w)
		}
		for x := xl; x <= xr; x++ {
			s, sw := sums[x-xl], k.sw
			if !clean {
				s, sw = 0, 0
				base := y*W + x + k.lo
				for t, o := range k.off {
					if v := f[base+o]; v == v { // not NaN
						s += k.w[t] * v
						sw += k.w[t]
					}
				}
			}
			if s = sign * s / sw; s > best {
				by, bx, best = y, x, s
			}
		}
	}
	return by, bx, best
}

// window is rows y0…y0+h−1 and columns x0…x0+w−1 of a frame, f holding
// them row-major; windowCentroid leaves the pixels outside it out, as NaNs.
type window struct {
	f            []float64
	y0, x0, h, w int
	// seen, where not nil, grows to the rows seen[0]…seen[1] and columns
	// seen[2]…seen[3] around every square of pixels windowCentroid read.
	seen *[4]int
}

// centroidScratch is windowCentroid's memory, kept from call to call by
// one goroutine: the pixels within reach and their weights.
type centroidScratch struct {
	pts []centroidPixel
	w   []float64
}

type centroidPixel struct{ u, dy, dx float64 } // u = sign × the pixel

// windowCentroid iterates the Gaussian-windowed centroid from (y, x):
// c ← c + 2 Σ w I (p − c) / Σ w I, with w = exp(−|p − c|²/(2σ²)), σ the
// FWHM's, over pixels within 4σ, I = sign × (frame − the window's minimum),
// in a frame of H×W pixels of which g holds those it reads; sc its scratch.
func windowCentroid(g window, sc *centroidScratch, H, W int, y, x, fwhm, sign float64) (float64, float64, bool) {
	s := fwhm / (2 * math.Sqrt(2*math.Ln2))
	rad := 4 * s
	r2, s2 := rad*rad, 2*s*s
	// lo is the minimum over the square of pixels within reach, sq; the
	// iterations near the fixed point keep the same square.
	lo, sq := 0.0, [4]int{0, -1, 0, -1}
	for it := 0; it < 100; it++ {
		// The pixels within reach that the window holds (the others
		// read as NaN, left out).
		py0, py1 := max(int(math.Floor(y-rad)), g.y0), min(int(math.Ceil(y+rad)), g.y0+g.h-1)
		px0, px1 := max(int(math.Floor(x-rad)), g.x0), min(int(math.Ceil(x+rad)), g.x0+g.w-1)
		if g.seen != nil {
			g.seen[0], g.seen[1] = min(g.seen[0], py0), max(g.seen[1], py1)
			g.seen[2], g.seen[3] = min(g.seen[2], px0), max(g.seen[3], px1)
		}
		if b := [4]int{py0, py1, px0, px1}; b != sq {
			sq, lo = b, math.Inf(1)
			for py := py0; py <= py1 && px0 <= px1; py++ {
				row := g.f[(py-g.y0)*g.w:][:g.w]
				for _, fv := range row[px0-g.x0 : px1-g.x0+1] {
					// min(lo, u) without the builtin's NaN handling
					// (NaNs fail both tests), a fifth of the time it
					// took: −0 below +0.
					if u := sign * fv; u < lo || u == lo && math.Signbit(u) {
						lo = u
					}
				}
			}
		}
		// Those within the radius, in order; then their weights at once
		// (vec.Exp: math.Exp's values), then the sums in that order. A
		// row's columns are those within a pixel of the circle (the test
		// decides); none where dy² alone exceeds the radius².
		pts, w := sc.pts[:0], sc.w[:0]
		for py := py0; py <= py1; py++ {
			dy := float64(py) - y
			dy2 := dy * dy
			if dy2 > r2 {
				continue
			}
			hw := math.Sqrt(r2-dy2) + 1
			pa, pb := max(px0, int(math.Ceil(x-hw))), min(px1, int(math.Floor(x+hw)))
			if pa > pb {
				continue
			}
			fpx := float64(pa) // float64(px), counted
			for _, fv := range g.f[(py-g.y0)*g.w+pa-g.x0:][:pb-pa+1] {
				dx := fpx - x
				fpx++
				if fv != fv {
					continue
				}
				d2 := dy2 + dx*dx
				if d2 > r2 {
					continue
				}
				pts = append(pts, centroidPixel{sign * fv, dy, dx})
				w = append(w, -d2/s2)
			}
		}
		sc.pts, sc.w = pts, w // grown once, kept for the next call
		vec.Exp(w)
		var sw, sy, sx float64
		for i, p := range pts {
			v := (p.u - lo) * w[i]
			sw += v
			sy += v * p.dy
			sx += v * p.dx
		}
		if !(sw > 0) {
			return 0, 0, false
		}
		ny, nx := y+2*sy/sw, x+2*sx/sw
		if math.IsNaN(ny) || math.IsNaN(nx) || ny < 0 || nx < 0 || ny > float64(H-1) || nx > float64(W-1) {
			return 0, 0, false
		}
		done := math.Hypot(ny-y, nx-x) < 1e-6
		y, x = ny, nx
		if done {
			return y, x, true
		}
	}
	return y, x, true
}

// medianOf is the median of v, NaN-free (NaN when empty), v unchanged.
func medianOf(v []float64) float64 { return selectMedian(slices.Clone(v)) }

// selectMedian is the median of s, NaN-free (NaN when empty), which it
// reorders: the value sortedMedian gives, found by selection (Hoare's,
// the middle of three as pivot) in O(n) where a sort takes O(n log n).
func selectMedian(s []float64) float64 {
	n := len(s)
	if n == 0 {
		return math.NaN()
	}
	k := n / 2
	m := vec.SelectNth(s, k) // s[:k] holds the k smallest
	if n%2 == 1 {
		return m
	}
	return (slices.Max(s[:k]) + m) / 2
}

// sortedMedian sorts s and returns its median (NaN when s is empty).
func sortedMedian(s []float64) float64 {
	if len(s) == 0 {
		return math.NaN()
	}
	slices.Sort(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

func madOf(v []float64, m float64) float64 {
	d := make([]float64, len(v))
	for i, x := range v {
		d[i] = math.Abs(x - m)
	}
	return medianOf(d)
}

// staticError95 is the radius, in pixels, within which the centre
// measured on frame f (smoothedPeak, then windowCentroid) lies from the
// star's true centre with 95 % probability, as far as the frame's static
// structure around the star (speckles, a lopsided halo) moves it. Every
// frame shares that structure, so their number does not shrink the error
// it causes; on synth's default star (core 10× its speckles) it is 0.3 px
// typically and 1 px one time in twenty.
//
// It is a Monte-Carlo estimate about (cy, cx), the centre measured. The
// star is modelled as symmetric: the median of f in half-pixel rings about
// (cy, cx), flat inside the radius of the coreMin nearest pixels, where a
// ring's median is the star plus whatever speckle sits on it (a bright
// speckle there is what moved the centroid, and it made the star look
// brighter, so harder to move, than it is). What is left over, the
// residual, gives the structure's amplitude (its standard deviation ring
// by ring, pooled over at least minPool pixels, and within the centroid's
// window at least that of the annulus 3 FWHM wide outside it: the small
// rings there take up part of the structure) and its correlation length
// (from the correlation of neighbouring pixels). mcDraws such structures,
// speckle-like (the intensity of one smoothed Gaussian field, a χ² of one
// degree of freedom: positive, with heavier tails than real speckles'
// exponential ones, and bright speckles pull a centroid most), are added
// to the model star and centred as the data were; the radius is the
// 97.5th percentile of their errors, the margin for an amplitude and a
// correlation learnt from the few speckles near the star (the 95th
// covered 93–97 % of synth's stars, core 10× to 100× the speckles, FWHM
// 3 to 5). The draws are seeded: a frame always gives the same radius.
func staticError95(f []float64, H, W int, cy, cx, fwhm, sign float64) (float64, bool) {
	if !(fwhm > 0) {
		return 0, false
	}
	const (
		coreMin = 6
		minPool = 60
		outerW  = 3.0 // FWHM
		mcDraws = 200
	)
	s := fwhm / (2 * math.Sqrt(2*math.Ln2))
	rw := 4 * s // windowCentroid's reach
	// The draws' centroids start from their smoothed peak within 2 FWHM
	// (the data's search is wider, but a draw that strays further is lost
	// already); the grid holds that, the smoothing kernel and the window.
	search := 2 * fwhm
	gy0, gx0, g, rp := staticGrid(cy, cx, fwhm)
	nb := int(math.Ceil(2*rp)) + 1
	ly, lx := cy-float64(gy0), cx-float64(gx0) // the centre on the grid
	rad := func(j, i int) float64 { return math.Hypot(float64(j)-ly, float64(i)-lx) }
	val := make([]float64, g*g)
	rings := make([][]float64, nb)
	var radii []float64
	for j := 0; j < g; j++ {
		for i := 0; i < g; i++ {
			val[j*g+i] = math.NaN()
			y, x, r := gy0+j, gx0+i, rad(j, i)
			if y < 0 || x < 0 || y >= H || x >= W || math.IsNaN(f[y*W+x]) || r > rp {
				continue
			}
			val[j*g+i] = sign * f[y*W+x]
			rings[int(2*r)] = append(rings[int(2*r)], val[j*g+i])
			radii = append(radii, r)
		}
	}
	if len(radii) < coreMin {
		return 0, false
	}
	slices.Sort(radii)
	med := make([]float64, nb)
	for i, v := range rings {
		med[i] = medianOf(v)
	}
	rc := radii[coreMin-1]
	prof := func(r float64) float64 {
		// Linear between the rings' middles, (i + 0.5)/2; flat inside rc.
		u := 2*max(r, rc) - 0.5
		i := int(math.Floor(u))
		lo, hi := med[max(min(i, nb-1), 0)], med[max(min(i+1, nb-1), 0)]
		switch {
		case math.IsNaN(lo):
			return hi
		case math.IsNaN(hi):
			return lo
		}
		return lo + (u-float64(i))*(hi-lo)
	}
	sym := make([]float64, g*g)
	res := make([]float64, g*g)
	byRing := make([][]float64, nb)
	for j := 0; j < g; j++ {
		for i := 0; i < g; i++ {
			r := rad(j, i)
			sym[j*g+i] = prof(min(r, rp))
			res[j*g+i] = val[j*g+i] - sym[j*g+i]
			if !math.IsNaN(res[j*g+i]) {
				byRing[int(2*r)] = append(byRing[int(2*r)], res[j*g+i])
			}
		}
	}
	sd := make([]float64, nb)
	for i := range sd {
		var pool []float64
		for k := 0; len(pool) < minPool && k < nb; k++ {
			if i-k >= 0 {
				pool = append(pool, byRing[i-k]...)
			}
			if k > 0 && i+k < nb {
				pool = append(pool, byRing[i+k]...)
			}
		}
		sd[i] = stdOf(pool)
	}
	var outer []float64
	for i := int(2 * rw); i < nb && float64(i) < 2*(rw+outerW*fwhm); i++ {
		outer = append(outer, byRing[i]...)
	}
	if so := stdOf(outer); !math.IsNaN(so) {
		for i := 0; i < int(2*rw) && i < nb; i++ {
			sd[i] = max(sd[i], so)
		}
	}
	sdAt := func(j, i int) float64 {
		if v := sd[min(int(2*rad(j, i)), nb-1)]; !math.IsNaN(v) {
			return v
		}
		return 0
	}
	ker, ok := speckleKernel(res, g, sdAt, fwhm)
	if !ok {
		return 0, true // no structure at all
	}
	// The spread at every pixel of the grid, the same for every draw.
	sdGrid := make([]float64, g*g)
	for j := 0; j < g; j++ {
		for i := 0; i < g; i++ {
			sdGrid[j*g+i] = sdAt(j, i)
		}
	}
	errs := staticDraws(mcDraws, g, ker, sym, sdGrid, ly, lx, search, fwhm)
	slices.Sort(errs)
	return errs[int(math.Ceil(0.975*mcDraws))-1], true
}

// staticDraws is staticError95's draws on its g×g grid: the errors of
// the centres measured (staticDraw) on the star sym with that many
// speckle fields of spread sd smoothed by ker, about (ly, lx).
func staticDraws(draws, g int, ker, sym, sdGrid []float64, ly, lx, search, fwhm float64) []float64 {
	kr := len(ker) / 2
	rng := rand.New(rand.NewPCG(0x5eed, uint64(g)))
	m := g + 2*kr
	// The smoothing's taps along x and along y, and the draws' kernel.
	offX, offY := make([]int, len(ker)), make([]int, len(ker))
	for k := range ker {
		offX[k], offY[k] = k, k*g
	}
	pk := newPeakKernel(g, fwhm)
	errs := make([]float64, draws)
	// Each goroutine's memory, made once (not per draw) and kept from
	// chunk to chunk.
	type drawScratch struct {
		rows, a, img []float64
		sc           centroidScratch
	}
	pool := &par.Pool[*drawScratch]{New: func() *drawScratch {
		return &drawScratch{rows: make([]float64, m*g), a: make([]float64, g), img: make([]float64, g*g)}
	}}
	// The draws' white noise in the order one generator gives it, a chunk
	// of draws at a time (one buffer, in cache, where all 200 draws' took
	// 4 MB of fresh memory), then the chunk's draws over every core.
	const chunk = 20
	whites := make([]float64, chunk*m*m)
	for d0 := 0; d0 < draws; d0 += chunk {
		n := min(chunk, draws-d0)
		for i := range whites[:n*m*m] {
			whites[i] = rng.NormFloat64()
		}
		pool.Each(n, 1, func(s *drawScratch, d int) {
			errs[d0+d] = staticDraw(whites[d*m*m:(d+1)*m*m], m, g, ker, offX, offY, s.rows, s.a, s.img, &s.sc, sym, sdGrid, pk, ly, lx, search, fwhm)
		})
	}
	return errs
}

// staticGrid is staticError95's grid about (cy, cx): g×g pixels from
// (gy0, gx0), those within rp of the centre its model.
func staticGrid(cy, cx, fwhm float64) (gy0, gx0, g int, rp float64) {
	s := fwhm / (2 * math.Sqrt(2*math.Ln2))
	rp = 2*fwhm + max(2*fwhm, 4*s) + 2
	return int(math.Floor(cy - rp)), int(math.Floor(cx - rp)), int(math.Ceil(2*rp)) + 2, rp
}

// speckleKernel is staticError95's smoothing kernel: a Gaussian of the
// correlation length of the residual res (g×g) normalised by its spread
// sdAt, from the correlation of neighbouring pixels, unit variance after
// both passes; false when the residual has no structure at all.
func speckleKernel(res []float64, g int, sdAt func(j, i int) float64, fwhm float64) ([]float64, bool) {
	var c0, c1 float64
	for j := 0; j < g; j++ {
		for i := 0; i < g; i++ {
			z := res[j*g+i] / sdAt(j, i)
			if math.IsNaN(z) || math.IsInf(z, 0) {
				continue
			}
			c0 += z * z
			for _, d := range [][2]int{{0, 1}, {1, 0}} {
				if j+d[0] < g && i+d[1] < g {
					if zq := res[(j+d[0])*g+i+d[1]] / sdAt(j+d[0], i+d[1]); !math.IsNaN(zq) && !math.IsInf(zq, 0) {
						c1 += z * zq / 2
					}
				}
			}
		}
	}
	if !(c0 > 0) {
		return nil, false
	}
	// The intensity a² of a field a of correlation exp(−d²/(4ℓ²)) (white
	// noise smoothed by a Gaussian of σ = ℓ) has correlation
	// exp(−d²/(2ℓ²)).
	ell := 0.3
	if rho := c1 / c0; rho > 0.01 {
		ell = math.Sqrt(-1 / (2 * math.Log(min(rho, 0.99))))
	}
	ell = min(max(ell, 0.3), 2*fwhm)
	kr := int(math.Ceil(3 * ell))
	ker := make([]float64, 2*kr+1)
	var k2 float64
	for i := range ker {
		d := float64(i - kr)
		ker[i] = math.Exp(-d * d / (2 * ell * ell))
		k2 += ker[i] * ker[i]
	}
	for i := range ker {
		ker[i] /= math.Sqrt(k2) // unit variance after both passes
	}
	return ker, true
}

// staticDraw is one of staticError95's draws: the m×m white noise
// smoothed by ker along x then y (into rows, m×g, and a, g long, taps at
// offsets 0…len(ker)−1 along x and offY along y), squared into the ring
// profile sym with the rings' spread sd (g×g) in img, and the distance from
// (ly, lx) at which the centre is then measured, smoothedPeak with pk then
// windowCentroid with sc (+Inf when lost).
func staticDraw(white []float64, m, g int, ker []float64, offX, offY []int, rows, a, img []float64, sc *centroidScratch, sym, sd []float64, pk *peakKernel, ly, lx, search, fwhm float64) float64 {
	for j := 0; j < m; j++ { // along x
		vec.Stencil(rows[j*g:(j+1)*g], white[j*m:(j+1)*m], offX, ker)
	}
	for j := 0; j < g; j++ { // along y; a² − 1 has mean 0, variance 2
		vec.Stencil(a, rows[j*g:], offY, ker)
		for i, v := range a {
			img[j*g+i] = sym[j*g+i] + sd[j*g+i]*(v*v-1)/math.Sqrt2
		}
	}
	e := math.Inf(1) // lost: as bad as can be
	if py, px, _ := smoothedPeak(img, g, pk, ly, lx, search, 1, 0, g-1, 0, g-1); py >= 0 {
		if y, x, ok := windowCentroid(window{img, 0, 0, g, g, nil}, sc, g, g, float64(py), float64(px), fwhm, 1); ok {
			e = math.Hypot(y-ly, x-lx)
		}
	}
	return e
}

// stdOf is the sample standard deviation of v (NaN for fewer than two).
func stdOf(v []float64) float64 {
	if len(v) < 2 {
		return math.NaN()
	}
	m := meanOf(v)
	var ss float64
	for _, x := range v {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(v)-1))
}
