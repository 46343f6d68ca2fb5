package paco

import (
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/internal/par"
)

// Reference computes the maps with PACO.md's formulas taken literally, in
// float64: for every location, the patch vectors r_t of every frame, their
// mean and covariance, the shrinkage, a gonum Cholesky factorisation, u and
// α; then a and b along every test pixel's trajectory, placed by the polar
// form y_l = c_y + r·sin(θ0 − θ_l), x_l = c_x + r·cos(θ0 − θ_l). It is slow
// and obviously right; the fast paths are tested against it.
//
// With PlacementSubpixel the PSF of frame l is the stamp interpolated
// (Keys cubic convolution, refShiftedPSF) at the exact position, offset
// from the pixel k_l the position rounds to, and a, b take one solve with
// the location's factor per frame.
//
// It is written independently of the fast paths so that comparing them can
// catch a bug in either (PACO.md, "Checks"): Prepare is called only to
// reject bad input with the same messages as every path, and nothing it
// derives is used. The mask, the PSF vector, the trajectory, the rounding,
// the inside test, the covariance and the shrinkage below are the ref*
// functions of this file, which share no code with paco.go or cpu.go.
func Reference(in Input) (*Maps, error) {
	if _, err := prepare(in); err != nil {
		return nil, err
	}
	T, H, W := in.Cube.Shape[0], in.Cube.Shape[1], in.Cube.Shape[2]
	R := in.Radius
	if R == 0 {
		R = 4
	}
	cy, cx := H/2, W/2
	if in.Center != nil {
		cy, cx = in.Center[0], in.Center[1]
	}
	vip := in.Compat == CompatVIP
	subpixel := in.Placement == PlacementSubpixel
	offsets := refMask(R)
	P := len(offsets)
	h := refPSFVector(in.PSF.Float64s(), in.PSF.Shape[0], in.PSFNorm, offsets)
	y := in.Cube.Float64s()
	at := func(t, yy, xx int) float64 { return y[(t*H+yy)*W+xx] }

	// Per location: m_k, u_k, α_k; valid[k] false outside or not PD.
	mean := make([][]float64, H*W)
	u := make([][]float64, H*W)
	chols := make([]*mat.Cholesky, H*W) // kept for the sub-pixel PSF model
	alpha := make([]float64, H*W)
	valid := make([]bool, H*W)
	// Locations are independent: rows of them run on every core, each
	// with its own scratch, the arithmetic per location unchanged.
	par.Range(H, 1, func(lo, hi int) {
		r := make([][]float64, T)
		for t := range r {
			r[t] = make([]float64, P)
		}
		for ky := lo; ky < hi; ky++ {
			for kx := 0; kx < W; kx++ {
				if !refInside(ky, kx, R, H, W) {
					continue
				}
				for t := 0; t < T; t++ {
					for i, o := range offsets {
						r[t][i] = at(t, ky+o[0], kx+o[1])
					}
				}
				m, s := refMeanCov(r, vip)
				c := refShrunk(s, T, vip)
				var ch mat.Cholesky
				if !ch.Factorize(mat.NewSymDense(P, c)) {
					continue
				}
				var uk mat.VecDense
				if err := ch.SolveVecTo(&uk, mat.NewVecDense(P, append([]float64(nil), h...))); err != nil {
					continue
				}
				k := ky*W + kx
				chols[k] = &ch
				u[k] = uk.RawVector().Data
				a := mat.Dot(mat.NewVecDense(P, append([]float64(nil), h...)), &uk)
				mean[k], alpha[k], valid[k] = m, a, !math.IsNaN(a)
			}
		}
	})

	maps := &Maps{H: H, W: W, SNR: make([]float64, H*W), Flux: make([]float64, H*W), Sigma: make([]float64, H*W)}
	for y0 := 0; y0 < H; y0++ {
		for x0 := 0; x0 < W; x0++ {
			a, b := 0.0, 0.0
			for l := 0; l < T; l++ {
				yf, xf := refPosition(cy, cx, y0, x0, in.Angles[l])
				if ty, tx := refTie(yf), refTie(xf); ty || tx {
					ey, ex := refPositionAtTie(cy, cx, y0, x0, in.Angles[l])
					if ty {
						yf = ey
					}
					if tx {
						xf = ex
					}
				}
				yl, xl := refRound(yf, vip), refRound(xf, vip)
				if yl < 0 || yl >= H || xl < 0 || xl >= W || !valid[yl*W+xl] {
					a = math.NaN()
					break
				}
				k := yl*W + xl
				if subpixel {
					// The stamp at the exact position, offset
					// (yf − yl, xf − xl) from the patch centre; its own
					// C⁻¹ solve for every frame.
					hl := refShiftedPSF(in.PSF.Float64s(), in.PSF.Shape[0], in.PSFNorm, offsets, yf-float64(yl), xf-float64(xl))
					var v mat.VecDense
					if err := chols[k].SolveVecTo(&v, mat.NewVecDense(P, hl)); err != nil {
						a = math.NaN()
						break
					}
					for i, o := range offsets {
						a += hl[i] * v.AtVec(i)
						b += v.AtVec(i) * (at(l, yl+o[0], xl+o[1]) - mean[k][i])
					}
					continue
				}
				a += alpha[k]
				for i, o := range offsets {
					b += u[k][i] * (at(l, yl+o[0], xl+o[1]) - mean[k][i])
				}
			}
			i := y0*W + x0
			if math.IsNaN(a) || math.IsNaN(b) || !(a > 0) {
				maps.SNR[i], maps.Flux[i], maps.Sigma[i] = math.NaN(), math.NaN(), math.NaN()
				maps.InvalidPixels++
				continue
			}
			maps.SNR[i], maps.Flux[i], maps.Sigma[i] = b/math.Sqrt(a), b/a, 1/math.Sqrt(a)
		}
	}
	for k := range valid {
		if !valid[k] {
			maps.InvalidLocations++
		}
	}
	maps.Device, maps.Precision = "reference", "f64"
	return maps, nil
}

// refMask is the patch mask of radius r: every (dy, dx) with
// dy² + dx² ≤ r², row-major (dy, then dx).
func refMask(r int) [][2]int {
	var o [][2]int
	for dy := -r; dy <= r; dy++ {
		for dx := -r; dx <= r; dx++ {
			if float64(dy*dy+dx*dx) <= float64(r*r) {
				o = append(o, [2]int{dy, dx})
			}
		}
	}
	return o
}

// refPSFVector samples the n×n stamp at the offsets around its middle
// pixel after normalising it (sum, peak or none); Prepare has checked it.
func refPSFVector(stamp []float64, n int, norm string, offsets [][2]int) []float64 {
	total, peak := 0.0, math.Inf(-1)
	for _, v := range stamp {
		total += v
		if v > peak {
			peak = v
		}
	}
	div := 1.0
	switch norm {
	case "", "sum":
		div = total
	case "peak":
		div = peak
	}
	h := make([]float64, len(offsets))
	mid := (n - 1) / 2
	for i, o := range offsets {
		sy, sx := mid+o[0], mid+o[1]
		if sy < 0 || sy >= n || sx < 0 || sx >= n {
			continue // the stamp is smaller than the patch: zero there
		}
		h[i] = stamp[sy*n+sx] / div
	}
	return h
}

// refShiftedPSF is the normalised stamp with its centre moved by (dy, dx)
// pixels, sampled at the offsets: at offset o, Σ over every stamp pixel s of
// stamp[s]·K(c + o_y − dy − s_y)·K(c + o_x − dx − s_x), K being Keys' cubic
// convolution kernel with a = −½ (refKeys), c the stamp's middle pixel.
func refShiftedPSF(stamp []float64, n int, norm string, offsets [][2]int, dy, dx float64) []float64 {
	total, peak := 0.0, math.Inf(-1)
	for _, v := range stamp {
		total += v
		peak = math.Max(peak, v)
	}
	div := 1.0
	switch norm {
	case "", "sum":
		div = total
	case "peak":
		div = peak
	}
	mid := float64((n - 1) / 2)
	h := make([]float64, len(offsets))
	ky, kx := make([]float64, n), make([]float64, n)
	for i, o := range offsets {
		for s := 0; s < n; s++ {
			ky[s] = refKeys(mid + float64(o[0]) - dy - float64(s))
			kx[s] = refKeys(mid + float64(o[1]) - dx - float64(s))
		}
		var v float64
		for sy := 0; sy < n; sy++ {
			for sx := 0; sx < n; sx++ {
				v += stamp[sy*n+sx] * ky[sy] * kx[sx]
			}
		}
		h[i] = v / div
	}
	return h
}

// refKeys is Keys' cubic-convolution kernel with a = −½:
// 1.5|x|³ − 2.5|x|² + 1 for |x| ≤ 1, −0.5|x|³ + 2.5|x|² − 4|x| + 2 for
// 1 < |x| < 2, 0 beyond.
func refKeys(x float64) float64 {
	x = math.Abs(x)
	switch {
	case x <= 1:
		return 1.5*x*x*x - 2.5*x*x + 1
	case x < 2:
		return -0.5*x*x*x + 2.5*x*x - 4*x + 2
	}
	return 0
}

// refPosition is where sky pixel (y0, x0) lies in a frame of parallactic
// angle angleDeg, in PACO.md's polar form: radius r and angle
// θ0 = atan2(dy, dx) about the star, then angle θ0 − θ_l.
func refPosition(cy, cx, y0, x0 int, angleDeg float64) (float64, float64) {
	dy, dx := float64(y0-cy), float64(x0-cx)
	r := math.Sqrt(dy*dy + dx*dx)
	theta0 := math.Atan2(dy, dx)
	a := theta0 - angleDeg*math.Pi/180
	return float64(cy) + r*math.Sin(a), float64(cx) + r*math.Cos(a)
}

// refTie reports whether v is within 1e-9 of a multiple of ½, where
// rounding half away from zero (or VIP's truncation) jumps.
func refTie(v float64) bool { return math.Abs(v-math.Round(2*v)/2) < 1e-9 }

// refPositionAtTie is the position in the expanded form
// y_l = c_y + (dy·cos θ_l − dx·sin θ_l), x_l = c_x + (dx·cos θ_l + dy·sin θ_l),
// used only where the polar form lands within 1e-9 of a whole or half pixel.
// Such positions are common (θ_l = θ0 mod 90° puts them on integers,
// cos θ_l = ½ on halves) and PACO.md's rule cannot be applied to them in
// float64: the polar form puts an exact 9.5 at 9.4999… as often as at 9.5,
// and the fast paths, VIP and the NumPy and PyTorch peers all decide them by
// the float64 value of this expression (cos 60° = 0.5000000000000001 makes
// 16 − 13·cos 60° = 9.499999999999998, pixel 9, where the exact 9.5 would
// round to 10). The reference decides them the same way, so that the paths
// can be compared to 1e-9; everywhere else it places the source by the
// polar form above.
func refPositionAtTie(cy, cx, y0, x0 int, angleDeg float64) (float64, float64) {
	rad := angleDeg * math.Pi / 180
	c, s := math.Cos(rad), math.Sin(rad)
	dy, dx := float64(y0-cy), float64(x0-cx)
	return float64(cy) + (dy*c - dx*s), float64(cx) + (dx*c + dy*s)
}

// refRound is the nearest integer, halves away from zero (2.5 → 3,
// −2.5 → −3); with vip, truncation towards zero as Python's int()
// (2.7 → 2, −2.7 → −2).
func refRound(v float64, vip bool) int {
	if vip {
		return int(math.Trunc(v))
	}
	if v < 0 {
		return -refRound(-v, false)
	}
	f := math.Floor(v)
	if v-f >= 0.5 { // v − f is exact for v ≥ 0
		f++
	}
	return int(f)
}

// refInside reports whether every pixel of the radius-R patch around
// (y, x) lies in the H×W frame.
func refInside(y, x, R, H, W int) bool {
	return y >= R && y <= H-1-R && x >= R && x <= W-1-R
}

// refMeanCov is the mean m and the sample covariance
// S = (1/T) Σ_t (r_t − m)(r_t − m)ᵀ of the patch vectors (1/(2T) with vip),
// S as a full row-major P×P matrix.
func refMeanCov(r [][]float64, vip bool) (m, s []float64) {
	T, P := len(r), len(r[0])
	m = make([]float64, P)
	for t := 0; t < T; t++ {
		for i := 0; i < P; i++ {
			m[i] += r[t][i]
		}
	}
	for i := range m {
		m[i] /= float64(T)
	}
	norm := float64(T)
	if vip {
		norm = 2 * float64(T)
	}
	s = make([]float64, P*P)
	for i := 0; i < P; i++ {
		for j := 0; j < P; j++ {
			var acc float64
			for t := 0; t < T; t++ {
				acc += (r[t][i] - m[i]) * (r[t][j] - m[j])
			}
			s[i*P+j] = acc / norm
		}
	}
	return m, s
}

// refRho is PACO.md's shrinkage factor of the P×P sample covariance s from
// T frames, with tr(S²) computed as the trace of the product S·S:
//
//	ρ = [tr(S²) + tr(S)² − 2 Σ_i S_ii²] / [(T+1)(tr(S²) − Σ_i S_ii²)]
//
// clipped to [0, 1]; with vip the numerator is tr(S²) + tr(S)² − 2 Σ_ij S_ij².
// When S is diagonal the denominator is 0 and ρ is 1 (C = S for any ρ).
func refRho(s []float64, P, T int, vip bool) float64 {
	var trS, trS2, sumDiag2, sumAll2 float64
	for i := 0; i < P; i++ {
		trS += s[i*P+i]
		sumDiag2 += s[i*P+i] * s[i*P+i]
		for j := 0; j < P; j++ {
			trS2 += s[i*P+j] * s[j*P+i] // (S·S)_ii
			sumAll2 += s[i*P+j] * s[i*P+j]
		}
	}
	num := trS2 + trS*trS - 2*sumDiag2
	if vip {
		num = trS2 + trS*trS - 2*sumAll2
	}
	den := float64(T+1) * (trS2 - sumDiag2)
	if math.IsNaN(num) || math.IsNaN(den) {
		return math.NaN()
	}
	if den == 0 {
		return 1
	}
	return math.Max(0, math.Min(1, num/den))
}

// refShrunk is C = (1 − ρ) S + ρ diag(S), a new matrix.
func refShrunk(s []float64, T int, vip bool) []float64 {
	P := int(math.Sqrt(float64(len(s))))
	rho := refRho(s, P, T, vip)
	c := make([]float64, P*P)
	for i := 0; i < P; i++ {
		for j := 0; j < P; j++ {
			c[i*P+j] = (1 - rho) * s[i*P+j]
			if i == j {
				c[i*P+j] += rho * s[i*P+j]
			}
		}
	}
	return c
}
