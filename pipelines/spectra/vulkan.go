package spectra

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/internal/vkfft"
)

// powerVulkan returns the power spectra of the b transforms of x (each n1×n0
// values, n1 = 1 for series) computed by VkFFT on dev: the mean of each
// is removed on the host in float64, the centred values are uploaded as
// real numbers (float32, or float64 when double) in the layout of VkFFT's
// in-place real-to-complex transform (rows of n0 values padded to
// 2·(n0/2+1)), transformed, and the n0/2+1 non-negative frequencies of
// each row downloaded; |X|²/n² is formed on the host in float64 and the
// other frequencies filled from P[−ky, −kx] = P[ky, kx]. Where VkFFT has
// no real-to-complex transform of n0 (a long odd axis) the values go up
// as complex numbers and the complex transform gives every frequency.
// Batches are split so that one transform buffer fits one storage binding;
// the host's packing and unpacking are spread over the cores.
func powerVulkan(ctx context.Context, dev *engine.Device, x []float64, b, n1, n0 int, double bool) ([]float64, engine.Timing, error) {
	var tm engine.Timing
	if double {
		if err := dev.RequireFloat64(); err != nil {
			return nil, tm, err
		}
	}
	if n0 == 1 {
		// A column of n1 values: its 2-D transform is the 1-D transform of
		// those values, in the same order (VkFFT plans no axis of 1).
		n0, n1 = n1, 1
	}
	n := n0 * n1
	if n == 1 {
		// One value, centred: 0.
		return make([]float64, b), tm, nil
	}
	var (
		real  = true
		buf   *engine.Buffer
		chunk int
		per   int64
		plans = map[int]*vkfft.Plan{}
	)
	defer func() {
		for _, p := range plans {
			p.Close()
		}
		buf.Release()
	}()
	// plan returns the plan for m transforms, planning the first in the
	// real-to-complex layout unless VkFFT has none for n0.
	plan := func(m int) (*vkfft.Plan, error) {
		if p := plans[m]; p != nil {
			return p, nil
		}
		for {
			if buf == nil {
				per = vkfft.Bytes(n0, n1, 1, double, real)
				chunk = int(min(dev.MaxBinding(), dev.MaxBuffer()) / per)
				if chunk < 1 {
					return nil, fmt.Errorf("spectra: one %d×%d transform (%s) exceeds a storage binding on %s (%s)",
						n1, n0, engine.SizeText(per), dev.Info.Name, engine.SizeText(dev.MaxBinding()))
				}
				chunk = min(chunk, b)
				m = min(m, chunk)
				var err error
				if buf, err = dev.NewBuffer(int64(chunk) * per); err != nil {
					return nil, fmt.Errorf("spectra: transform buffer: %w", err)
				}
			}
			var p *vkfft.Plan
			var err error
			if real {
				p, err = vkfft.NewReal(dev, n0, n1, m, double, buf)
			} else {
				p, err = vkfft.New(dev, n0, n1, m, double, buf)
			}
			if real && len(plans) == 0 && errors.Is(err, vkfft.ErrR2CUnsupported) {
				real = false
				buf.Release()
				buf = nil
				continue
			}
			if err != nil {
				return nil, err
			}
			plans[m] = p
			return p, nil
		}
	}
	if _, err := plan(b); err != nil {
		return nil, tm, err
	}
	esize := int64(4)
	if double {
		esize = 8
	}
	row := 2 * n0 // values (reals, or re and im) of one row
	if real {
		row = 2 * (n0/2 + 1)
	}
	p := make([]float64, b*n)
	norm := 1 / (float64(n) * float64(n))
	host := make([]byte, int64(chunk)*per)
	put := func(at int64, v float64) {
		if double {
			binary.LittleEndian.PutUint64(host[at:], math.Float64bits(v))
		} else {
			binary.LittleEndian.PutUint32(host[at:], math.Float32bits(float32(v)))
		}
	}
	get := func(at int64) float64 {
		if double {
			return math.Float64frombits(binary.LittleEndian.Uint64(host[at:]))
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(host[at:])))
	}
	for lo := 0; lo < b; lo += chunk {
		m := min(chunk, b-lo)
		pl, err := plan(m)
		if err != nil {
			return nil, tm, err
		}
		bytes := host[:int64(m)*per]
		clear(bytes) // the padding of the real layout, the imaginary parts of the complex one
		par.Range(m, grain(m), func(ilo, ihi int) {
			for i := ilo; i < ihi; i++ {
				v := x[(lo+i)*n : (lo+i+1)*n]
				mu := mean(v)
				for y := 0; y < n1; y++ {
					base := (int64(i)*int64(n1) + int64(y)) * int64(row)
					for j, e := range v[y*n0 : (y+1)*n0] {
						if real {
							put((base+int64(j))*esize, e-mu)
						} else {
							put((base+2*int64(j))*esize, e-mu)
						}
					}
				}
			}
		})
		t, err := dev.Run(ctx, func(s *engine.Sequence) {
			if s.Upload(buf, 0, bytes) != nil {
				return
			}
			if pl.Record(s) != nil {
				return
			}
			_ = s.Download(buf, 0, bytes)
		})
		tm.Add(t)
		if err != nil {
			return nil, tm, err
		}
		cols := row / 2 // complex values per row
		par.Range(m, grain(m), func(ilo, ihi int) {
			for i := ilo; i < ihi; i++ {
				out := p[(lo+i)*n : (lo+i+1)*n]
				for y := 0; y < n1; y++ {
					base := (int64(i)*int64(n1) + int64(y)) * int64(row)
					for kx := 0; kx < cols; kx++ {
						at := (base + 2*int64(kx)) * esize
						re, im := get(at), get(at+esize)
						out[y*n0+kx] = (re*re + im*im) * norm
					}
				}
				if real {
					// The negative frequencies of the fastest axis: P[y, kx] =
					// P[−y, −kx] for kx = n0/2+1 … n0−1.
					for y := 0; y < n1; y++ {
						my := (n1 - y) % n1
						for kx := cols; kx < n0; kx++ {
							out[y*n0+kx] = out[my*n0+n0-kx]
						}
					}
				}
			}
		})
	}
	return p, tm, nil
}
