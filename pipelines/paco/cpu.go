package paco

import (
	"context"
	"math"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/linalg"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/internal/vec"
	"github.com/vkstat/vkstat/tensor"
)

// rowsDone reports progress through a stage that handles rows of the frame.
type rowsDone struct {
	progress engine.Progress
	stage    string
	total    int
	n        atomic.Int64
}

func (r *rowsDone) add(k int) {
	r.progress(r.stage, float64(r.n.Add(int64(k)))/float64(r.total))
}

// cholSolve factors the symmetric positive-definite c (P×P, lower triangle
// used) in place and overwrites h with c⁻¹h, with internal/linalg's
// Cholesky (the one Go implementation). It reports false when c is not
// positive definite.
func cholSolve(c []float64, P int, h []float64) bool {
	if linalg.Factor(c, P) != 0 {
		return false
	}
	linalg.Solve(c, h, P)
	return true
}

// CPU computes the maps on the CPU in float64: centring, lagged products,
// per-location shrinkage, Cholesky and solve, then the detection map, each
// spread over every core. The first three stages it takes from Prepare
// where they ran alongside the star centre's measurement (mapsHead).
func CPU(ctx context.Context, p *Prepared) (*Maps, error) {
	h := p.head
	p.head = nil // taken once: it holds the centred cube and the lagged products
	if h == nil || h.cube != p.Cube {
		h = newMapsHead(p.Cube)
		h.run(ctx, p)
	}
	<-h.done
	if h.err != nil {
		return nil, h.err
	}
	tm := engine.Timing{Phases: slices.Clone(h.phases)}
	lap := tm.Clock().Lap
	maps := newMaps(p)
	if p.Placement == PlacementSubpixel {
		subpixelMap(p, h.yc, h.st.ub, h.st.gram, h.st.valid, h.base, maps, newMapProgress(ctx, p.H))
	} else {
		nearestMap(ctx, p, h.yc, h.st, h.base, maps)
	}
	lap("detection map")
	for _, v := range h.st.valid {
		if !v {
			maps.InvalidLocations++
		}
	}
	maps.Stages, maps.Timing.Phases, maps.Device, maps.Precision = tm.Phases, tm.Phases, "cpu", "f64"
	return maps, nil
}

// mapsHead is the CPU path's first stages of the maps, which the star
// centre does not enter (only the detection map follows the star): the
// centred cube yc, the lagged products g and the statistics st of cube,
// base the mask's offsets as flat pixel indices, phases their wall-clock
// times ("centre", "lagged products", "statistics"); err the context's
// when it stopped them. done is closed when they are over.
type mapsHead struct {
	cube   *tensor.Tensor
	done   chan struct{}
	yc, g  []float64
	base   []int
	st     cpuStats
	phases []engine.PhaseTime
	err    error
}

func newMapsHead(cube *tensor.Tensor) *mapsHead {
	return &mapsHead{cube: cube, done: make(chan struct{})}
}

// run computes h's stages for p (whose star centre they do not read).
func (h *mapsHead) run(ctx context.Context, p *Prepared) {
	var tm engine.Timing
	lap := tm.Clock().Lap
	defer func() {
		h.phases = tm.Phases
		close(h.done)
	}()
	h.yc = cpuCentre(p)
	lap("centre")
	if h.err = ctx.Err(); h.err != nil {
		return
	}
	disp, pairs := p.Lags()
	h.g = cpuLags(ctx, p, h.yc, disp)
	lap("lagged products")
	if h.err = ctx.Err(); h.err != nil {
		return
	}
	h.base = make([]int, p.P())
	for i, o := range p.Offsets {
		h.base[i] = o[0]*p.W + o[1]
	}
	h.st = cpuStatistics(ctx, p, h.g, len(disp), pairs, h.base)
	lap("statistics")
	h.err = ctx.Err()
}

// total is the wall-clock time of h's stages.
func (h *mapsHead) total() time.Duration {
	var d time.Duration
	for _, ph := range h.phases {
		d += ph.Time
	}
	return d
}

// cpuCentre is the centred cube: yc[p*T+t] = Y[t, p] − mean_t Y[t, p]
// (pixel-major, so each pixel's time series is contiguous).
func cpuCentre(p *Prepared) []float64 {
	T, N := p.T, p.H*p.W
	yc := make([]float64, N*T)
	src32, src64 := p.Cube.F32, p.Cube.F64
	const block = 256 // pixels transposed together: reads contiguous, writes within L1
	par.Range((N+block-1)/block, 1, func(lo, hi int) {
		for bi := lo; bi < hi; bi++ {
			q0, q1 := bi*block, min((bi+1)*block, N)
			for t := 0; t < T; t++ {
				if src64 != nil {
					for q, v := range src64[t*N+q0 : t*N+q1] {
						yc[(q0+q)*T+t] = v
					}
				} else {
					for q, v := range src32[t*N+q0 : t*N+q1] {
						yc[(q0+q)*T+t] = float64(v)
					}
				}
			}
			for q := q0; q < q1; q++ {
				row := yc[q*T : (q+1)*T]
				var s float64
				for _, v := range row {
					s += v
				}
				m := s / float64(T)
				for t := range row {
					row[t] -= m
				}
			}
		}
	})
	return yc
}

// cpuLags are the lagged products G[q·D + d] of the centred cube yc for
// the displacements disp.
func cpuLags(ctx context.Context, p *Prepared, yc []float64, disp [][2]int) []float64 {
	T, H, W, N := p.T, p.H, p.W, p.H*p.W
	D := len(disp)
	scale := 1 / float64(T)
	if p.Compat == CompatVIP {
		scale /= 2
	}
	g := make([]float64, N*D)
	lagsDone := &rowsDone{progress: engine.ProgressOf(ctx), stage: "lagged products", total: H}
	par.Range(H, 2, func(lo, hi int) {
		defer lagsDone.add(hi - lo)
		for y := lo; y < hi; y++ {
			for x := 0; x < W; x++ {
				q := y*W + x
				a := yc[q*T : (q+1)*T]
				for d, dd := range disp {
					y2, x2 := y+dd[0], x+dd[1]
					if y2 >= H || x2 < 0 || x2 >= W {
						continue
					}
					g[q*D+d] = vec.Dot(a, yc[(y2*W+x2)*T:(y2*W+x2+1)*T]) * scale
				}
			}
		}
	})
	return g
}

// cpuStats are every location's statistics: u = C⁻¹h (nearest), or C⁻¹
// times every basis vector of the shifted PSF (ub, NBasis·P per location)
// and their Gram matrix gram[b][b'] = basis_bᵀC⁻¹basis_b' (NBasis² per
// location) with sub-pixel placement; α, and whether the location has
// statistics.
type cpuStats struct {
	u, ub, gram, alpha []float64
	valid              []bool
}

// cpuStatistics computes, per location, S from G, the shrinkage, the
// Cholesky factor and the cpuStats; base are the mask's offsets as flat
// pixel indices.
func cpuStatistics(ctx context.Context, p *Prepared, g []float64, D int, pairs []Pair, base []int) cpuStats {
	T, H, W, P, N := p.T, p.H, p.W, p.P(), p.H*p.W
	sub := p.Placement == PlacementSubpixel
	var u, ub, gram []float64
	if sub {
		ub = make([]float64, N*NBasis*P)
		gram = make([]float64, N*NBasis*NBasis)
	} else {
		u = make([]float64, N*P)
	}
	alpha := make([]float64, N)
	valid := make([]bool, N)
	statsDone := &rowsDone{progress: engine.ProgressOf(ctx), stage: "statistics", total: H}
	par.Range(H, 2, func(lo, hi int) {
		defer statsDone.add(hi - lo)
		c := make([]float64, P*P)
		var scratch []float64
		if sub {
			scratch = make([]float64, P*NBasis)
		}
		for y := lo; y < hi; y++ {
			for x := 0; x < W; x++ {
				k := y*W + x
				if !p.Inside(y, x) {
					continue
				}
				for _, pr := range pairs {
					v := g[(k+base[pr.Base])*D+pr.Disp]
					c[pr.I*P+pr.J] = v
					c[pr.J*P+pr.I] = v
				}
				Shrink(c, P, T, p.Compat)
				if sub {
					if subpixelSolve(c, P, p.Basis, ub[k*NBasis*P:(k+1)*NBasis*P], gram[k*NBasis*NBasis:(k+1)*NBasis*NBasis], scratch) {
						a := gram[k*NBasis*NBasis+centreBasis*NBasis+centreBasis]
						if !math.IsNaN(a) {
							alpha[k], valid[k] = a, true
						}
					}
					continue
				}
				uk := u[k*P : (k+1)*P]
				copy(uk, p.Hvec)
				if !cholSolve(c, P, uk) {
					continue
				}
				var a float64
				for i, h := range p.Hvec {
					a += h * uk[i]
				}
				if !math.IsNaN(a) {
					alpha[k], valid[k] = a, true
				}
			}
		}
	})
	return cpuStats{u: u, ub: ub, gram: gram, alpha: alpha, valid: valid}
}

// nearestMap is the detection map with the PSF on the nearest pixel.
func nearestMap(ctx context.Context, p *Prepared, yc []float64, st cpuStats, base []int, maps *Maps) {
	T, H, W, P := p.T, p.H, p.W, p.P()
	u, alpha, valid := st.u, st.alpha, st.valid
	var mu sync.Mutex
	mapDone := newMapProgress(ctx, H)
	par.Range(H, 2, func(lo, hi int) {
		defer mapDone.add(hi - lo)
		invalid := 0
		for y0 := lo; y0 < hi; y0++ {
			for x0 := 0; x0 < W; x0++ {
				a, b := 0.0, 0.0
				for l := 0; l < T; l++ {
					yl, xl := p.Position(y0, x0, l)
					if yl < 0 || yl >= H || xl < 0 || xl >= W || !valid[yl*W+xl] {
						a = math.NaN()
						break
					}
					k := yl*W + xl
					a += alpha[k]
					uk := u[k*P : (k+1)*P]
					for i, bi := range base {
						b += uk[i] * yc[(k+bi)*T+l]
					}
				}
				i := y0*W + x0
				if !maps.set(i, a, b) {
					invalid++
				}
			}
		}
		mu.Lock()
		maps.InvalidPixels += invalid
		mu.Unlock()
	})
}

// newMapProgress reports progress through the detection map.
func newMapProgress(ctx context.Context, H int) *rowsDone {
	return &rowsDone{progress: engine.ProgressOf(ctx), stage: "detection map", total: H}
}

// centreBasis is the unshifted basis vector's index: Basis[centreBasis] is h.
const centreBasis = 2*5 + 2

// subpixelSolve factors the shrunk c (P×P, lower triangle) in place and
// fills ub (NBasis·P, basis-major) with C⁻¹ times each basis vector and
// gram (NBasis·NBasis) with basis_bᵀ C⁻¹ basis_b'. x (P·NBasis) is scratch.
// False when c is not positive definite.
func subpixelSolve(c []float64, P int, basis [][]float64, ub, gram, x []float64) bool {
	if linalg.Factor(c, P) != 0 {
		return false
	}
	// All NBasis right-hand sides at once, row-major X[i, b], so that each
	// factor entry is read once for NBasis products.
	const nb = NBasis
	for i := 0; i < P; i++ {
		xi := x[i*nb : (i+1)*nb]
		for b, v := range basis {
			xi[b] = v[i]
		}
	}
	linalg.SolveMulti(c, x, P, nb)
	for i := 0; i < P; i++ {
		for b := 0; b < nb; b++ {
			ub[b*P+i] = x[i*nb+b]
		}
	}
	for b := range gram {
		gram[b] = 0
	}
	for i := 0; i < P; i++ {
		xi := x[i*nb : (i+1)*nb]
		for b, v := range basis {
			hb := v[i]
			if hb == 0 {
				continue
			}
			row := gram[b*nb : (b+1)*nb]
			for b2, xv := range xi {
				row[b2] += hb * xv
			}
		}
	}
	return true
}

// subpixelMap is the detection map with the PSF at every exact trajectory
// position: per frame, the fractional offset δ of the position from k_l
// gives Keys weights wy, wx (at most 4 non-zero each), h_δ = Σ wy_j wx_i
// basis_ji, so a_l = Σ c_m c_n gram[m, n] and b_l = Σ c_m (C⁻¹basis_m)ᵀ(r_l −
// m) over the at most 16 non-zero products c_m = wy_j·wx_i.
func subpixelMap(p *Prepared, yc, ub, gram []float64, valid []bool, base []int, maps *Maps, done *rowsDone) {
	T, H, W, P := p.T, p.H, p.W, p.P()
	var mu sync.Mutex
	par.Range(H, 2, func(lo, hi int) {
		defer done.add(hi - lo)
		invalid := 0
		var wy, wx [5]float64
		var idx [16]int
		var coef [16]float64
		r := make([]float64, P)
		for y0 := lo; y0 < hi; y0++ {
			for x0 := 0; x0 < W; x0++ {
				a, b := 0.0, 0.0
				for l := 0; l < T; l++ {
					yl, xl, dy, dx := p.SubpixelPosition(y0, x0, l)
					if yl < 0 || yl >= H || xl < 0 || xl >= W || !valid[yl*W+xl] {
						a = math.NaN()
						break
					}
					k := yl*W + xl
					BasisWeights(&wy, dy)
					BasisWeights(&wx, dx)
					n := 0
					for j, vy := range wy {
						if vy == 0 {
							continue
						}
						for i, vx := range wx {
							if vx == 0 {
								continue
							}
							idx[n], coef[n] = j*5+i, vy*vx
							n++
						}
					}
					g := gram[k*NBasis*NBasis : (k+1)*NBasis*NBasis]
					ubk := ub[k*NBasis*P : (k+1)*NBasis*P]
					for i, bi := range base { // r_l − m_k, read once
						r[i] = yc[(k+bi)*T+l]
					}
					for m := 0; m < n; m++ {
						// a_l = Σ_m c_m (c_m G_mm + 2 Σ_{q<m} c_q G_mq): the
						// Gram matrix is symmetric.
						row := g[idx[m]*NBasis : (idx[m]+1)*NBasis]
						var s float64
						for q := 0; q < m; q++ {
							s += coef[q] * row[idx[q]]
						}
						a += coef[m] * (coef[m]*row[idx[m]] + 2*s)
						b += coef[m] * vec.Dot(r, ubk[idx[m]*P:(idx[m]+1)*P])
					}
				}
				i := y0*W + x0
				if !maps.set(i, a, b) {
					invalid++
				}
			}
		}
		mu.Lock()
		maps.InvalidPixels += invalid
		mu.Unlock()
	})
}

// set stores pixel i of the maps from a = Σ hᵀC⁻¹h and b = Σ hᵀC⁻¹(r − m):
// SNR b/√a, flux b/a and σ 1/√a, or NaN (false) when a or b is unusable.
func (m *Maps) set(i int, a, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) || a <= 0 {
		m.SNR[i], m.Flux[i], m.Sigma[i] = math.NaN(), math.NaN(), math.NaN()
		return false
	}
	sa := math.Sqrt(a)
	m.SNR[i], m.Flux[i], m.Sigma[i] = b/sa, b/a, 1/sa
	return true
}
