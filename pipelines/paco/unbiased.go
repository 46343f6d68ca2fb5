package paco

import (
	"context"
	"math"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/linalg"
	"github.com/vkstat/vkstat/internal/par"
)

// Unbiased is Algorithm 3's estimate for one source (PACO.md, "Algorithm
// 3"), reported beside Algorithm 2's numbers, never instead of them.
type Unbiased struct {
	// FluxUnbiased is α̂ = max(b/a, 0) with the statistics re-learnt
	// without the source; SigmaUnbiased = 1/√a; SNRUnbiased = α̂/σ.
	// σ takes the re-learnt statistics as known (their own estimation
	// noise is not in it), so SNRUnbiased is not a detection significance
	// and is often several times the map's SNR: quote Detection.SNR.
	FluxUnbiased  float64 `json:"flux_unbiased"`
	SigmaUnbiased float64 `json:"sigma_unbiased"`
	SNRUnbiased   float64 `json:"snr_unbiased"`
	// YRefined, XRefined is the sub-pixel sky position (derotated frame)
	// that maximises b²/a, on which the flux above was estimated.
	YRefined float64 `json:"y_refined"`
	XRefined float64 `json:"x_refined"`
	// Iterations of the last flux iteration; Converged is false when it
	// stopped at MaxIterations, or when the trajectory left the region
	// with statistics (then the numbers are NaN).
	Iterations int  `json:"iterations"`
	Converged  bool `json:"converged"`
}

// Algorithm 3's stopping rule and position grid (PACO.md).
const (
	MaxIterations = 50
	RelTolerance  = 1e-4
	RefineHalf    = 0.5 // ± px around the start position
	RefineStep    = 0.1 // px
	RefineRounds  = 4   // grid searches at most, each around the last maximum
)

// Source is a position to estimate: sky (y, x) in the derotated frame,
// sub-pixel, and a starting flux (Algorithm 2's; clipped at 0).
type Source struct {
	Y, X, Flux float64
}

// unbiasedCtx is what every evaluation shares.
type unbiasedCtx struct {
	p      *Prepared
	cube   []float64
	stamp  []float64 // normalised PSF stamp, n×n
	n      int
	reach  float64 // farther than this (per axis) from k, h is zero on its patch: stamp half-size + R + the kernel's 2-pixel support
	refine bool
	// momentsOf computes locations' moments: on the host (cpuMoments) or
	// on a device.
	momentsOf momentsFunc
	mu        sync.Mutex
	patches   map[int]*patchMoments // cpuMoments' per-location cache
}

// UnbiasedFlux runs PACO.md's Algorithm 3 for each source on the host, in
// float64, whatever path produced the maps: at every trajectory location
// the mean and shrunk covariance (the same estimator, Shrink and compat
// mode as the maps) are re-learnt from the T patches with α̂·h_t(φ0, k)
// subtracted, h_t being the unit-flux PSF stamp interpolated (cubic convolution) at
// the source's exact frame-t position and sampled on the patch offsets
// around k (zero beyond the stamp); then a, b and α̂ = max(b/a, 0), until
// |Δα̂| ≤ 1e-4·α̂ or 50 iterations. The fixed point is found with secant
// steps on g(α) = b(α)/a(α) − α (a plain substitution step when the secant
// step is unusable), which reaches it in a few evaluations where the plain
// substitution PACO.md writes contracts by only the bias factor per step.
// With refine, the position is then refined on a ±0.5 px grid in 0.1 px
// steps (maximum b²/a, statistics with the current α̂ removed), and the flux
// iterated again at the refined position.
//
// With dev nil all of it runs on the host in float64. With a device, the
// part that goes over the frames (each location's moments: paco_unbiased,
// in the cube's precision with float64 accumulation where the device has
// it) runs there and the rest on the host; a cube too large for one
// binding fails with engine.ErrTooLarge.
func UnbiasedFlux(ctx context.Context, dev *engine.Device, p *Prepared, srcs []Source, refine bool) ([]Unbiased, error) {
	u, err := newUnbiasedCtx(p, refine)
	if err != nil {
		return nil, err
	}
	if dev != nil {
		release, err := u.useDevice(ctx, dev)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	out := make([]Unbiased, len(srcs))
	for i, s := range srcs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if out[i], err = u.estimate(s); err != nil {
			return nil, err
		}
		engine.ProgressOf(ctx)("unbiased flux", float64(i+1)/float64(len(srcs)))
	}
	return out, nil
}

// newUnbiasedCtx holds p's cube and its whole PSF stamp, normalised as
// the maps normalise h.
func newUnbiasedCtx(p *Prepared, refine bool) (*unbiasedCtx, error) {
	n := p.PSF.Shape[0]
	full := make([][2]int, 0, n*n)
	for dy := -n / 2; dy <= n/2; dy++ {
		for dx := -n / 2; dx <= n/2; dx++ {
			full = append(full, [2]int{dy, dx})
		}
	}
	stamp, err := psfVector(p.PSF, p.PSFNorm, full)
	if err != nil {
		return nil, err
	}
	R := p.Radius
	u := &unbiasedCtx{p: p, cube: p.Cube.Float64s(), stamp: stamp, n: n, reach: float64(n/2+R) + 2, refine: refine, patches: map[int]*patchMoments{}}
	u.momentsOf = u.cpuMoments
	return u, nil
}

// psfAt is the normalised stamp at (dy, dx) from its centre, by Keys'
// cubic convolution (a = −½; separable, 4×4 taps, exact on the stamp's
// pixels), zero beyond the stamp. Bilinear interpolation broadens a
// FWHM-3 PSF enough to bias the flux by about 5 % at third-pixel offsets.
func (u *unbiasedCtx) psfAt(dy, dx float64) float64 {
	c := float64(u.n / 2)
	fy, fx := dy+c, dx+c
	y0, x0 := math.Floor(fy), math.Floor(fx)
	iy, ix := int(y0), int(x0)
	if iy < -2 || iy > u.n || ix < -2 || ix > u.n {
		return 0
	}
	var wy, wx [4]float64
	keysWeights(&wy, fy-y0)
	keysWeights(&wx, fx-x0)
	var v float64
	for j := 0; j < 4; j++ {
		y := iy - 1 + j
		if y < 0 || y >= u.n || wy[j] == 0 {
			continue
		}
		row := u.stamp[y*u.n : (y+1)*u.n]
		var acc float64
		for i := 0; i < 4; i++ {
			if x := ix - 1 + i; x >= 0 && x < u.n {
				acc += wx[i] * row[x]
			}
		}
		v += wy[j] * acc
	}
	return v
}

// keysWeights are the cubic-convolution weights (a = −½) of the samples
// at −1, 0, 1, 2 for a point at fraction f ∈ [0, 1) past sample 0.
func keysWeights(w *[4]float64, f float64) {
	w[0], w[1], w[2], w[3] = keys(1+f), keys(f), keys(1-f), keys(2-f)
}

// keys is Keys' cubic-convolution kernel with a = −½: 1 at 0, 0 at every
// other integer, zero from |x| = 2 on. Algorithm 3 and the sub-pixel
// detection map interpolate the PSF with it.
func keys(x float64) float64 {
	const a = -0.5
	x = math.Abs(x)
	switch {
	case x <= 1:
		return (a+2)*x*x*x - (a+3)*x*x + 1
	case x < 2:
		return a*x*x*x - 5*a*x*x + 8*a*x - 4*a
	}
	return 0
}

// framePos is the exact (unrounded) frame-t position of sky (y, x).
func (u *unbiasedCtx) framePos(y, x float64, t int) (float64, float64) {
	p := u.p
	dy, dx := y-float64(p.CY), x-float64(p.CX)
	return float64(p.CY) + (dy*p.Cos[t] - dx*p.Sin[t]), float64(p.CX) + (dx*p.Cos[t] + dy*p.Sin[t])
}

// hPatch fills h with the unit-flux source at frame position (sy, sx)
// sampled on the patch offsets around location (ky, kx); false when it is
// zero there.
func (u *unbiasedCtx) hPatch(h []float64, ky, kx int, sy, sx float64) bool {
	if math.Abs(float64(ky)-sy) > u.reach || math.Abs(float64(kx)-sx) > u.reach {
		return false
	}
	for i, o := range u.p.Offsets {
		h[i] = u.psfAt(float64(ky+o[0])-sy, float64(kx+o[1])-sx)
	}
	return true
}

// locStats is one location's re-learnt statistics: the mean and the
// Cholesky factor of the shrunk covariance (lower triangle).
type locStats struct {
	mean, chol []float64
	ok         bool
}

// locMoments are one location's statistics for one source position, in a
// form that gives them for any flux α without going over the frames again.
// With a_t = r_t − m_r the frame-t patch centred and b_t = h_t − h̄ the
// source's unit-flux footprint on the patch centred (h_t = h_t(φ, k)),
// the patches with α·h_t removed have mean m_r − α·h̄ and covariance
// S(α) = Zaa − α(Zab + Zabᵀ) + α²·Zbb, where Zaa = Σ a aᵀ/n, Zab = Σ a bᵀ/n
// and Zbb = Σ b bᵀ/n (P×P row-major, n = T, or 2T with CompatVIP).
type locMoments struct {
	mr, hbar      []float64
	zaa, zab, zbb []float64
	ok            bool // false: the patch is outside the frame
}

// at is the statistics with α·h removed: S(α) shrunk (the maps' estimator)
// and factored.
func (m *locMoments) at(alpha float64, P, T int, compat Compat) locStats {
	if !m.ok {
		return locStats{}
	}
	mean := make([]float64, P)
	for i := range mean {
		mean[i] = m.mr[i] - alpha*m.hbar[i]
	}
	s := make([]float64, P*P)
	for i := 0; i < P; i++ {
		for j := 0; j <= i; j++ {
			v := m.zaa[i*P+j] - alpha*(m.zab[i*P+j]+m.zab[j*P+i]) + alpha*alpha*m.zbb[i*P+j]
			s[i*P+j], s[j*P+i] = v, v
		}
	}
	Shrink(s, P, T, compat)
	if linalg.Factor(s, P) != 0 {
		return locStats{}
	}
	return locStats{mean: mean, chol: s, ok: true}
}

// momentsFunc computes the moments of each location in locs (distinct
// flat indices) for a source at frame positions pos.
type momentsFunc func(locs []int, pos [][2]float64) ([]*locMoments, error)

// patchMoments is what a location's moments owe to the cube alone: the
// mean patch m_r, Σ a_t (zero but for rounding) and Zaa (lower triangle).
type patchMoments struct {
	mr, sa, zaa []float64
	ok          bool
}

// norm is the covariance estimator's divisor (PACO.md; 2T for VIP).
func (u *unbiasedCtx) norm() float64 {
	if u.p.Compat == CompatVIP {
		return 2 * float64(u.p.T)
	}
	return float64(u.p.T)
}

// patch is location k's part of the moments, computed once per location.
func (u *unbiasedCtx) patch(k int) *patchMoments {
	u.mu.Lock()
	pm := u.patches[k]
	u.mu.Unlock()
	if pm != nil {
		return pm
	}
	p := u.p
	T, P, W := p.T, p.P(), p.W
	ky, kx := k/W, k%W
	pm = &patchMoments{}
	if p.Inside(ky, kx) {
		r := make([]float64, T*P)
		for t := 0; t < T; t++ {
			base := t*p.H*W + ky*W + kx
			for i, o := range p.Offsets {
				r[t*P+i] = u.cube[base+o[0]*W+o[1]]
			}
		}
		pm.mr, pm.sa, pm.zaa, pm.ok = make([]float64, P), make([]float64, P), make([]float64, P*P), true
		for t := 0; t < T; t++ {
			for i, v := range r[t*P : (t+1)*P] {
				pm.mr[i] += v
			}
		}
		for i := range pm.mr {
			pm.mr[i] /= float64(T)
		}
		for t := 0; t < T; t++ {
			a := r[t*P : (t+1)*P]
			for i := range a {
				a[i] -= pm.mr[i]
				pm.sa[i] += a[i]
			}
			for i := 0; i < P; i++ {
				ai := a[i]
				row := pm.zaa[i*P : i*P+i+1]
				for j := range row {
					row[j] += ai * a[j]
				}
			}
		}
		n := u.norm()
		for i := range pm.zaa {
			pm.zaa[i] /= n
		}
	}
	u.mu.Lock()
	u.patches[k] = pm
	u.mu.Unlock()
	return pm
}

// cpuMoments is momentsFunc on the host, in float64, in parallel. Zaa is
// kept per location (it does not depend on the source); Zab and Zbb sum
// only the frames whose footprint reaches the patch, as h_t is zero in the
// others: Σ a bᵀ = Σ a hᵀ − (Σ a)h̄ᵀ and Σ b bᵀ = Σ h hᵀ − T·h̄h̄ᵀ.
func (u *unbiasedCtx) cpuMoments(locs []int, pos [][2]float64) ([]*locMoments, error) {
	p := u.p
	T, P, W := p.T, p.P(), p.W
	out := make([]*locMoments, len(locs))
	type scratch struct{ h, a []float64 }
	par.Each(len(locs), 1, func() scratch { return scratch{make([]float64, P), make([]float64, P)} }, func(s scratch, li int) {
		k := locs[li]
		pm := u.patch(k)
		if !pm.ok {
			out[li] = &locMoments{}
			return
		}
		ky, kx := k/W, k%W
		m := &locMoments{mr: pm.mr, zaa: pm.zaa, hbar: make([]float64, P), zab: make([]float64, P*P), zbb: make([]float64, P*P), ok: true}
		for t := 0; t < T; t++ {
			if !u.hPatch(s.h, ky, kx, pos[t][0], pos[t][1]) {
				continue
			}
			base := t*p.H*W + ky*W + kx
			for i, o := range p.Offsets {
				s.a[i] = u.cube[base+o[0]*W+o[1]] - pm.mr[i]
				m.hbar[i] += s.h[i]
			}
			for i := 0; i < P; i++ {
				ai, hi := s.a[i], s.h[i]
				ab := m.zab[i*P : (i+1)*P]
				for j, hj := range s.h {
					ab[j] += ai * hj
				}
				bb := m.zbb[i*P : i*P+i+1]
				for j := range bb {
					bb[j] += hi * s.h[j]
				}
			}
		}
		n := u.norm()
		for i := range m.hbar {
			m.hbar[i] /= float64(T)
		}
		for i := 0; i < P; i++ {
			for j := 0; j < P; j++ {
				m.zab[i*P+j] = (m.zab[i*P+j] - pm.sa[i]*m.hbar[j]) / n
				if j <= i {
					m.zbb[i*P+j] = (m.zbb[i*P+j] - float64(T)*m.hbar[i]*m.hbar[j]) / n
				}
			}
		}
		out[li] = m
	})
	return out, nil
}

// trajectory is sky (y, x)'s exact frame positions and their locations.
func (u *unbiasedCtx) trajectory(y, x float64) (pos [][2]float64, loc []int) {
	p := u.p
	pos = make([][2]float64, p.T)
	loc = make([]int, p.T)
	for t := range pos {
		fy, fx := u.framePos(y, x, t)
		pos[t] = [2]float64{fy, fx}
		ky, kx := p.round(fy), p.round(fx)
		if ky < 0 || ky >= p.H || kx < 0 || kx >= p.W {
			loc[t] = -1
		} else {
			loc[t] = ky*p.W + kx
		}
	}
	return pos, loc
}

// moments computes the moments of every location in locs (deduplicated,
// negative entries skipped) for a source at frame positions pos.
func (u *unbiasedCtx) moments(locs []int, pos [][2]float64) (map[int]*locMoments, error) {
	uniq := []int{}
	seen := map[int]bool{}
	for _, k := range locs {
		if k >= 0 && !seen[k] {
			seen[k] = true
			uniq = append(uniq, k)
		}
	}
	res, err := u.momentsOf(uniq, pos)
	if err != nil {
		return nil, err
	}
	m := make(map[int]*locMoments, len(uniq))
	for i, k := range uniq {
		m[k] = res[i]
	}
	return m, nil
}

// statsAt is every location's statistics with α·h removed.
func (u *unbiasedCtx) statsAt(mom map[int]*locMoments, alpha float64) map[int]locStats {
	keys := make([]int, 0, len(mom))
	for k := range mom {
		keys = append(keys, k)
	}
	res := make([]locStats, len(keys))
	P, T := u.p.P(), u.p.T
	par.Range(len(keys), 1, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			res[i] = mom[keys[i]].at(alpha, P, T, u.p.Compat)
		}
	})
	st := make(map[int]locStats, len(keys))
	for i, k := range keys {
		st[k] = res[i]
	}
	return st
}

// learn computes the statistics of every location in locs with α h(φ)
// removed, φ's frame positions being pos.
func (u *unbiasedCtx) learn(locs []int, alpha float64, pos [][2]float64) (map[int]locStats, error) {
	mom, err := u.moments(locs, pos)
	if err != nil {
		return nil, err
	}
	return u.statsAt(mom, alpha), nil
}

// ab sums a and b along the trajectory (pos, loc) with the given
// statistics; ok is false when a location has none.
func (u *unbiasedCtx) ab(pos [][2]float64, loc []int, st map[int]locStats) (a, b float64, ok bool) {
	p := u.p
	P, W := p.P(), p.W
	h := make([]float64, P)
	v := make([]float64, P)
	for t := 0; t < p.T; t++ {
		k := loc[t]
		if k < 0 || !st[k].ok {
			return math.NaN(), math.NaN(), false
		}
		s := st[k]
		ky, kx := k/W, k%W
		if !u.hPatch(h, ky, kx, pos[t][0], pos[t][1]) {
			continue
		}
		copy(v, h)
		linalg.Solve(s.chol, v, P)
		base := t * p.H * W
		for i, o := range p.Offsets {
			a += h[i] * v[i]
			b += v[i] * (u.cube[base+(ky+o[0])*W+kx+o[1]] - s.mean[i])
		}
	}
	return a, b, a > 0
}

// iterate runs the flux iteration at sky (y, x) from α0.
// The moments along the trajectory are computed once; each evaluation
// only re-forms and factors the statistics at its α.
func (u *unbiasedCtx) iterate(y, x, alpha0 float64) (alpha, a float64, iters int, converged, ok bool, err error) {
	pos, loc := u.trajectory(y, x)
	mom, err := u.moments(loc, pos)
	if err != nil {
		return 0, 0, 0, false, false, err
	}
	f := func(al float64) (float64, float64, bool) {
		a, b, ok := u.ab(pos, loc, u.statsAt(mom, al))
		return b / a, a, ok
	}
	alpha = math.Max(alpha0, 0)
	if math.IsNaN(alpha) {
		alpha = 0
	}
	var prevA, prevG float64
	havePrev := false
	for iters = 1; iters <= MaxIterations; iters++ {
		fa, aa, good := f(alpha)
		if !good {
			return math.NaN(), math.NaN(), iters, false, false, nil
		}
		a = aa
		g := fa - alpha
		next := math.Max(fa, 0)
		if havePrev && g != prevG {
			// Secant step on g(α) = f(α) − α.
			if s := alpha - g*(alpha-prevA)/(g-prevG); s >= 0 && !math.IsNaN(s) && !math.IsInf(s, 0) {
				next = s
			}
		}
		if math.Abs(g) <= RelTolerance*math.Max(fa, 0) || (fa <= 0 && alpha == 0) {
			// The last evaluation is the fixed point: report b/a there.
			return math.Max(fa, 0), a, iters, true, true, nil
		}
		prevA, prevG, havePrev = alpha, g, true
		alpha = next
	}
	return alpha, a, MaxIterations, false, true, nil
}

// estimate is Algorithm 3 for one source.
func (u *unbiasedCtx) estimate(s Source) (Unbiased, error) {
	y, x := s.Y, s.X
	alpha, a, iters, conv, ok, err := u.iterate(y, x, s.Flux)
	if err != nil {
		return Unbiased{}, err
	}
	// Refine: the statistics are learnt with the source removed at the
	// current position, so a position off by a fraction of a pixel leaves
	// a residual that pulls the maximum back towards it; the grid search is
	// repeated around each new position (at most RefineRounds times) until
	// it stays put.
	for round := 0; ok && u.refine && round < RefineRounds; round++ {
		ny, nx, err := u.refineOnce(y, x, alpha)
		if err != nil {
			return Unbiased{}, err
		}
		if ny == y && nx == x {
			break
		}
		y, x = ny, nx
		if alpha, a, iters, conv, ok, err = u.iterate(y, x, alpha); err != nil {
			return Unbiased{}, err
		}
	}
	res := Unbiased{YRefined: y, XRefined: x, Iterations: iters, Converged: conv && ok}
	if !ok {
		res.FluxUnbiased, res.SigmaUnbiased, res.SNRUnbiased = math.NaN(), math.NaN(), math.NaN()
		return res, nil
	}
	res.FluxUnbiased = alpha
	res.SigmaUnbiased = 1 / math.Sqrt(a)
	res.SNRUnbiased = alpha * math.Sqrt(a)
	return res, nil
}

// refineOnce returns the point of the ±RefineHalf grid around sky (y, x)
// with the largest b²/a, the statistics learnt with α·h(y, x) removed.
func (u *unbiasedCtx) refineOnce(y, x, alpha float64) (float64, float64, error) {
	pos, _ := u.trajectory(y, x)
	steps := int(math.Round(RefineHalf / RefineStep))
	var cy, cx []float64
	var posOf [][][2]float64
	var locOf [][]int
	var all []int
	for i := -steps; i <= steps; i++ {
		for j := -steps; j <= steps; j++ {
			gy, gx := y+float64(i)*RefineStep, x+float64(j)*RefineStep
			pp, ll := u.trajectory(gy, gx)
			cy, cx = append(cy, gy), append(cx, gx)
			posOf, locOf = append(posOf, pp), append(locOf, ll)
			all = append(all, ll...)
		}
	}
	st, err := u.learn(all, alpha, pos)
	if err != nil {
		return 0, 0, err
	}
	score := make([]float64, len(cy))
	par.Range(len(cy), 1, func(lo, hi int) {
		for c := lo; c < hi; c++ {
			score[c] = math.Inf(-1)
			if a, b, good := u.ab(posOf[c], locOf[c], st); good && b > 0 {
				score[c] = b * b / a
			}
		}
	})
	best, by, bx := math.Inf(-1), y, x
	for c, sc := range score {
		if sc > best {
			best, by, bx = sc, cy[c], cx[c]
		}
	}
	return by, bx, nil
}

// AddUnbiased runs Algorithm 3 for every detection, starting from its pixel
// and Algorithm 2's flux, and sets its Unbiased field.
func AddUnbiased(ctx context.Context, dev *engine.Device, p *Prepared, dets []Detection, refine bool) error {
	srcs := make([]Source, len(dets))
	for i, d := range dets {
		srcs[i] = Source{Y: float64(d.Y), X: float64(d.X), Flux: d.Flux}
	}
	res, err := UnbiasedFlux(ctx, dev, p, srcs, refine)
	if err != nil {
		return err
	}
	for i := range dets {
		r := res[i]
		dets[i].Unbiased = &r
	}
	return nil
}
