package paco

import (
	"errors"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/tensor"
)

// Inject returns a float64 copy of p.Cube with each source added in every
// frame: Flux times the PSF stamp as the maps normalise it (p.PSFNorm),
// interpolated by cubic convolution at the source's exact frame position
// on the trajectory the maps assume (about p's centre, rotating with the
// parallactic angles). Y and X are the source's position in the derotated
// sky frame, sub-pixel. p.Cube is not changed.
func Inject(p *Prepared, srcs []Source) (*tensor.Tensor, error) {
	u, err := newUnbiasedCtx(p, false)
	if err != nil {
		return nil, err
	}
	for i, s := range srcs {
		if math.IsNaN(s.Y) || math.IsNaN(s.X) || math.IsNaN(s.Flux) || math.IsInf(s.Flux, 0) {
			return nil, fmt.Errorf("fake companion %d has a non-finite position or flux", i+1)
		}
	}
	out := tensor.New(tensor.F64, p.T, p.H, p.W)
	copy(out.F64, u.cube)
	half := u.n/2 + 2 // the stamp plus the kernel's support
	for _, s := range srcs {
		for t := 0; t < p.T; t++ {
			fy, fx := u.framePos(s.Y, s.X, t)
			frame := out.F64[t*p.H*p.W : (t+1)*p.H*p.W]
			y0, x0 := int(math.Round(fy)), int(math.Round(fx))
			for y := max(y0-half, 0); y <= min(y0+half, p.H-1); y++ {
				for x := max(x0-half, 0); x <= min(x0+half, p.W-1); x++ {
					frame[y*p.W+x] += s.Flux * u.psfAt(float64(y)-fy, float64(x)-fx)
				}
			}
		}
	}
	return out, nil
}

// Recovery is one fake companion found again (or not) in the maps of the
// cube it was injected into.
type Recovery struct {
	Sep      float64 `json:"separation_px"`
	Y        float64 `json:"y"`
	X        float64 `json:"x"`
	Injected float64 `json:"flux_injected"`
	// SNR and Flux are the maps' values at the SNR maximum within 1 px of
	// the injected position (Algorithm 2's estimate).
	SNR  float64 `json:"snr"`
	Flux float64 `json:"flux"`
	// Throughput is Flux / Injected: how much of the companion's flux the
	// fast estimate keeps (PACO.md: a source biases its own statistics).
	Throughput float64 `json:"throughput"`
	Detected   bool    `json:"detected"`
}

// Recover reads each source back from m: the largest finite SNR within 1 px
// of its position, its flux, and whether the SNR reaches threshold.
func Recover(m *Maps, srcs []Source, threshold float64) []Recovery {
	out := make([]Recovery, len(srcs))
	for i, s := range srcs {
		r := Recovery{Y: s.Y, X: s.X, Injected: s.Flux, SNR: math.NaN(), Flux: math.NaN(), Throughput: math.NaN()}
		for y := int(math.Floor(s.Y - 1)); y <= int(math.Ceil(s.Y+1)); y++ {
			for x := int(math.Floor(s.X - 1)); x <= int(math.Ceil(s.X+1)); x++ {
				if y < 0 || x < 0 || y >= m.H || x >= m.W || math.Hypot(float64(y)-s.Y, float64(x)-s.X) > 1 {
					continue
				}
				v := m.SNR[y*m.W+x]
				if !math.IsNaN(v) && (math.IsNaN(r.SNR) || v > r.SNR) {
					r.SNR, r.Flux = v, m.Flux[y*m.W+x]
				}
			}
		}
		if s.Flux != 0 {
			r.Throughput = r.Flux / s.Flux
		}
		r.Detected = r.SNR >= threshold
		out[i] = r
	}
	return out
}

// FakePlan places fake companions for an injection–recovery check of a
// contrast curve: runs sets of sources, each at the curve's flux limit
// (times scale) at its separation. Within a set the separations are spaced
// by gap pixels (at least a patch plus a PSF stamp, so no companion's
// trajectory touches another's patches) and the angles turn by the golden
// angle; at a separation s where the field rotation (rotationDeg, the
// arc each trajectory sweeps) leaves room, up to MaxBranches fakes share
// it, spaced evenly in angle by at least rotationDeg plus gap/s radians,
// so that their trajectories stay a gap apart too. Each set starts gap/runs
// further out and 360/runs degrees on (plus turn degrees for every set),
// so that together they sample the curve evenly. Separations start at
// minSep and stop where the curve or the frame ends; separations whose
// limit is not finite are skipped. cy, cx is the star, in pixels.
func FakePlan(curve []ContrastPoint, cy, cx float64, H, W int, minSep, gap, rotationDeg float64, runs int, turn, scale float64) ([][]Source, error) {
	if runs < 1 || gap <= 0 || minSep < 0 || scale <= 0 || !(rotationDeg >= 0) {
		return nil, errors.New("injection plan: runs ≥ 1, a positive gap and scale, a non-negative minimum separation and rotation are needed")
	}
	limit := func(sep float64) float64 {
		if len(curve) == 0 {
			return math.NaN()
		}
		k := int(math.Floor(sep+0.5)) - int(curve[0].Sep) // the curve's annuli are 1 px apart
		if k < 0 || k >= len(curve) {
			return math.NaN()
		}
		return curve[k].Flux
	}
	// The largest separation whose circle stays gap/2 inside the frame in
	// every direction, so rotated positions are inside too.
	maxSep := math.Min(math.Min(cy, float64(H-1)-cy), math.Min(cx, float64(W-1)-cx)) - gap/2
	const golden = 137.50776405003785
	plan := make([][]Source, runs)
	for r := 0; r < runs; r++ {
		k := 0
		for sep := minSep + gap*float64(r)/float64(runs); sep <= maxSep; sep += gap {
			f := limit(sep)
			if math.IsNaN(f) || math.IsInf(f, 0) || f <= 0 {
				continue
			}
			n := 1
			if sep > 0 {
				n = min(MaxBranches, max(1, int(360/(rotationDeg+gap/sep*180/math.Pi))))
			}
			for b := range n {
				a := (turn + float64(r)*360/float64(runs) + float64(k)*golden + float64(b)*360/float64(n)) * math.Pi / 180
				plan[r] = append(plan[r], Source{Y: cy + sep*math.Sin(a), X: cx + sep*math.Cos(a), Flux: scale * f})
			}
			k++
		}
	}
	if n := len(plan[0]); n == 0 {
		return nil, fmt.Errorf("injection plan: no separation between %.3g px and the frame's edge less a gap (%.3g px) has a finite detection limit", minSep, maxSep)
	}
	return plan, nil
}

// MaxBranches is the most fake companions FakePlan puts at one separation
// in one set.
const MaxBranches = 4
