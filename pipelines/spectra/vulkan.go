package spectra

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/vkstat/vkstat/device/vkfft"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/par"
	"github.com/vkstat/vkstat/tensor"
)

// maxChunk, when positive, caps the transforms of one submission: tests
// split small batches over chunks with it.
var maxChunk int

// transformSink is what runVulkan does with each chunk's transforms once
// VkFFT has run, in the same submission.
type transformSink struct {
	// prepare is told the layout (real-to-complex or not; again if VkFFT
	// has no real-to-complex plan) and returns the bytes of its own device
	// output per transform, which also bounds the chunk.
	prepare func(real bool) (int64, error)
	// record records the work on buf of the chunk of transforms lo …
	// lo+m−1, whose NaN/±Inf flags (a bit per transform of the chunk) are
	// in flags; finish reads its results once the submission has run.
	record func(s *engine.Sequence, buf, flags *engine.Buffer, lo, m int) error
	finish func(lo, m int)
	close  func()
}

// TransformBytes is the device memory VkFFT holds for count transforms of
// n1 rows of n0 values: the data in its layout and its scratch buffer (as
// large, or larger for a long Bluestein axis), float32 or, with double,
// float64. Rows of an even n0 go real to complex (2·(n0/2+1) values each);
// an odd n0 is counted as the complex transform (2 per value), which VkFFT
// falls back to for long odd lengths.
func TransformBytes(n0, n1 int, count int64, double bool) int64 {
	real := n0%2 == 0
	return count * (vkfft.Bytes(n0, n1, 1, double, real) + vkfft.ScratchBytes(n0, n1, 1, double, real))
}

// runVulkan transforms the b transforms of src (each n1×n0 values, n1 = 1
// for series; n0 ≥ 2) with VkFFT on dev and hands each chunk to sink: the
// mean of each is removed, the centred values are laid out as real numbers
// (float32, or float64 when double) in the layout of VkFFT's in-place
// real-to-complex transform (rows of n0 values padded to 2·(n0/2+1)) and
// transformed, leaving the n0/2+1 non-negative frequencies of each row.
// Where VkFFT has no real-to-complex transform of n0 (a long odd axis) the
// values go up as complex numbers and the complex transform gives every
// frequency. With src.x (float64) the host centres (in float64) and packs,
// spread over the cores, and uploads the packed chunk; with src.raw the
// chunk's span of the batch goes up as stored and shaders/spectra_pack.comp
// centres and packs it on the device, in the same submission (pack.go).
// Batches are split so that one transform buffer, the raw span and the
// sink's output fit one storage binding.
func runVulkan(ctx context.Context, dev *engine.Device, src input, b, n1, n0 int, double bool, sink transformSink, stats *PlanStats) (engine.Timing, error) {
	var tm engine.Timing
	x, raw := src.x, src.raw
	n := n0 * n1
	var (
		real  = true
		buf   *engine.Buffer
		temp  *engine.Buffer // VkFFT's scratch
		chunk int
		per   int64
		plans = map[int]*vkfft.Plan{}
		pk    packer
		flags *engine.Buffer // the host packing's flags (src.bad)
	)
	defer func() {
		for _, p := range plans {
			p.Release()
		}
		buf.Release()
		temp.Release()
		flags.Release()
		if sink.close != nil {
			sink.close()
		}
		pk.close()
	}()
	// plan returns the plan for m transforms, planning the first in the
	// real-to-complex layout unless VkFFT has none for n0. The device
	// keeps its plans (vkfft.Get): a later call of the same shape plans
	// nothing, and a plan compiled in another process is loaded from disk.
	plan := func(m int) (*vkfft.Plan, error) {
		if p := plans[m]; p != nil {
			return p, nil
		}
		for {
			if buf == nil {
				per = vkfft.Bytes(n0, n1, 1, double, real)
				out, err := sink.prepare(real)
				if err != nil {
					return nil, err
				}
				limit := min(dev.MaxBinding(), dev.MaxBuffer())
				// VkFFT's scratch (larger than the data for a long
				// Bluestein axis) must fit a binding too.
				scratch := vkfft.ScratchBytes(n0, n1, 1, double, real)
				chunk = int(limit / max(per, scratch))
				if out > 0 {
					chunk = min(chunk, int(limit/out))
				}
				if raw != nil {
					chunk = min(chunk, raw.maxChunk(limit))
				}
				if chunk < 1 {
					return nil, fmt.Errorf("spectra: one %d×%d transform (%s) exceeds a storage binding on %s (%s)",
						n1, n0, engine.SizeText(max(per, scratch, out)), dev.Info.Name, engine.SizeText(dev.MaxBinding()))
				}
				chunk = min(chunk, b)
				if n1 > 1 {
					chunk = min(chunk, vkfft.MaxBatch2D)
				}
				if maxChunk > 0 {
					chunk = min(chunk, maxChunk)
				}
				m = min(m, chunk)
				if buf, err = dev.NewBuffer(int64(chunk) * per); err != nil {
					return nil, fmt.Errorf("spectra: transform buffer: %w", err)
				}
				if temp, err = dev.NewBuffer(vkfft.ScratchBytes(n0, n1, chunk, double, real)); err != nil {
					return nil, fmt.Errorf("spectra: VkFFT's scratch buffer: %w", err)
				}
			}
			p, st, err := vkfft.Get(dev, vkfft.Config{N0: n0, N1: n1, Batch: m, Double: double, Real: real}, buf, temp)
			tm.AddPhase("fft-plan", st.Time)
			if stats != nil {
				stats.Add(st)
			}
			if real && len(plans) == 0 && errors.Is(err, vkfft.ErrR2CUnsupported) {
				real = false
				buf.Release()
				temp.Release()
				buf, temp = nil, nil
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
		return tm, err
	}
	esize := int64(4)
	if double {
		esize = 8
	}
	row := 2 * n0 // values (reals, or re and im) of one row
	if real {
		row = 2 * (n0/2 + 1)
	}
	if raw != nil {
		if err := pk.prepare(ctx, dev, raw, chunk, n); err != nil {
			return tm, err
		}
	}
	var host, bits []byte
	if raw == nil {
		host = make([]byte, int64(chunk)*per)
		bits = make([]byte, 4*((chunk+31)/32))
		var err error
		if flags, err = dev.NewBuffer(int64(len(bits))); err != nil {
			return tm, fmt.Errorf("spectra: transform flags: %w", err)
		}
	}
	put := func(at int64, v float64) {
		if double {
			binary.LittleEndian.PutUint64(host[at:], math.Float64bits(v))
		} else {
			binary.LittleEndian.PutUint32(host[at:], math.Float32bits(float32(v)))
		}
	}
	for lo := 0; lo < b; lo += chunk {
		m := min(chunk, b-lo)
		pl, err := plan(m)
		if err != nil {
			return tm, err
		}
		// fill puts the chunk's centred values into buf: spectra_pack on
		// the raw batch, or the host's packing uploaded.
		var fill func(s *engine.Sequence) error
		fl := flags
		if raw != nil {
			fl = pk.flags
			fill = func(s *engine.Sequence) error { return pk.record(s, buf, lo, m, n1, n0, per/esize, real) }
		} else {
			clear(bits)
			for i := range m {
				if src.bad != nil && src.bad[lo+i] {
					bits[4*(i/32)+(i%32)/8] |= 1 << (i % 8)
				}
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
			fill = func(s *engine.Sequence) error {
				if err := s.Upload(flags, 0, bits[:4*((m+31)/32)]); err != nil {
					return err
				}
				return s.Upload(buf, 0, bytes)
			}
		}
		t, err := dev.Run(ctx, func(s *engine.Sequence) {
			if fill(s) != nil {
				return
			}
			if pl.Record(s, buf, temp) != nil {
				return
			}
			if sink.record(s, buf, fl, lo, m) != nil {
				return
			}
			if raw != nil {
				_ = pk.download(s, m)
			}
		})
		tm.Add(t)
		if err != nil {
			return tm, err
		}
		if raw != nil {
			pk.finish(lo, m)
		}
		sink.finish(lo, m)
	}
	return tm, nil
}

// canonical turns a column of n1 values (n0 = 1) into one row: its 2-D
// transform is the 1-D transform of those values, in the same order (VkFFT
// plans no axis of 1).
func canonical(n1, n0 int) (int, int) {
	if n0 == 1 {
		return 1, n1
	}
	return n1, n0
}

// powerVulkan returns the full power spectra of the b transforms of x
// (each n1×n0 values) by runVulkan: the n0/2+1 non-negative frequencies of
// each row (or every frequency in the complex layout) are downloaded,
// |X|²/n² formed on the host in float64 and the other frequencies filled
// from P[−ky, −kx] = P[ky, kx]. SpatialSpectra and TemporalSpectra reduce
// on the device instead (binsVulkan); this is Power2D's path.
func powerVulkan(ctx context.Context, dev *engine.Device, x []float64, b, n1, n0 int, double bool) ([]float64, engine.Timing, error) {
	var tm engine.Timing
	if double {
		if err := dev.RequireFloat64(); err != nil {
			return nil, tm, err
		}
	}
	n1, n0 = canonical(n1, n0)
	n := n0 * n1
	if n == 1 {
		// One value, centred: 0.
		return make([]float64, b), tm, nil
	}
	esize := int64(4)
	if double {
		esize = 8
	}
	p := make([]float64, b*n)
	norm := 1 / (float64(n) * float64(n))
	var (
		real  bool
		row   int
		per   int64
		bytes []byte
	)
	get := func(at int64) float64 {
		if double {
			return math.Float64frombits(binary.LittleEndian.Uint64(bytes[at:]))
		}
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(bytes[at:])))
	}
	sink := transformSink{
		prepare: func(r bool) (int64, error) {
			real, row, per = r, 2*n0, vkfft.Bytes(n0, n1, 1, double, r)
			if r {
				row = 2 * (n0/2 + 1)
			}
			return 0, nil
		},
		record: func(s *engine.Sequence, buf, _ *engine.Buffer, _, m int) error {
			if len(bytes) < int(int64(m)*per) {
				bytes = make([]byte, int64(m)*per)
			}
			return s.Download(buf, 0, bytes[:int64(m)*per])
		},
		finish: func(lo, m int) {
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
		},
	}
	tm, err := runVulkan(ctx, dev, input{x: x}, b, n1, n0, double, sink, nil)
	if err != nil {
		return nil, tm, err
	}
	return p, tm, nil
}

// binsVulkan reduces the spectra of the b transforms of src (each n1×n0
// values) on the device, in the submission that transforms them
// (runVulkan, then shaders/spectra_bins.comp, then
// shaders/spectra_groups.comp), and adds them into a's groups of a.m
// consecutive transforms: the sums of P over each of the table's bins and,
// with totals (frames), Σ P, Σ ν·P and Σ_{ν>1/4} P, over the transforms
// not flagged as holding a NaN or ±Inf. Only units × outputs values come
// back per chunk (a unit: the members of one group within a chunk, at most
// groupSegment of them), stored as float32 (float64 when double), and the
// host adds them into their groups in float64, so that a group may
// straddle chunks. table builds the bin table for the layout VkFFT runs
// (real-to-complex or complex) and transform of n1×n0. Accumulation is in
// double where the device has shaderFloat64, else in float with Kahan's
// (spectra_bins) and Neumaier's (spectra_groups) compensation.
func binsVulkan(ctx context.Context, dev *engine.Device, src input, b, n1, n0 int, double bool,
	table func(real bool, n1, n0 int) (*binTable, error), a *groupAcc, totals bool, plans *PlanStats) (engine.Timing, error) {
	var tm engine.Timing
	dt := tensor.F32
	if double {
		dt = tensor.F64
	}
	v, err := dev.Variant(dt, false)
	if err != nil {
		return tm, err
	}
	n1, n0 = canonical(n1, n0)
	n := n0 * n1
	if n == 1 {
		// One value, centred: no power anywhere.
		return tm, nil
	}
	suffix, asize := v.Suffix(), int64(v.ValueSize()) // asize: bytes of a stored sum (T)
	const wg = 64
	var (
		tbl         *binTable
		per         int64
		tab, nub    *engine.Buffer
		gtab        *engine.Buffer
		out, gout   *engine.Buffer
		res         []byte
		kern, gkern *engine.Kernel
		gl          *groupList
		u0, units   int
	)
	push := func(m int) binsPush {
		return binsPush{m: m, nseg: tbl.nseg, per: per, slots: tbl.slots, k: tbl.k, boff: tbl.boff, soff: tbl.soff,
			perbin: tbl.perBin, f: n0, scale: 1 / float64(n)}
	}
	gpush := func(lo, m int) groupsPush {
		return groupsPush{m: m, lo: lo, members: a.m, mseg: gl.mseg, nsegm: gl.nsegm, u0: u0, units: units, nout: gl.nout, slots: tbl.slots}
	}
	esize := int64(4)
	if double {
		esize = 8
	}
	sink := transformSink{
		prepare: func(real bool) (int64, error) {
			tab.Release()
			nub.Release()
			gtab.Release()
			tab, nub, gtab = nil, nil, nil
			per = vkfft.Bytes(n0, n1, 1, double, real) / esize
			var err error
			if tbl, err = table(real, n1, n0); err != nil {
				return 0, err
			}
			if per > math.MaxUint32 || int64(b)*int64(max(tbl.nseg, tbl.k)) > math.MaxUint32 {
				return 0, fmt.Errorf("spectra: %d transforms of %d×%d are too many for the device reduction's indexes", b, n1, n0)
			}
			gl = newGroupList(tbl, totals, a.m)
			if kern, err = dev.Kernel(engine.KernelSpec{Name: "spectra_bins" + suffix, Push: binsPush{}, Spec: []uint32{wg}}); err != nil {
				return 0, err
			}
			if gkern, err = dev.Kernel(engine.KernelSpec{Name: "spectra_groups" + suffix, Push: groupsPush{}, Spec: []uint32{wg}}); err != nil {
				return 0, err
			}
			if tab, err = dev.NewBuffer(4 * int64(len(tbl.tab))); err != nil {
				return 0, fmt.Errorf("spectra: bin table: %w", err)
			}
			if nub, err = dev.NewBuffer(esize * int64(len(tbl.nu))); err != nil {
				return 0, fmt.Errorf("spectra: bin table: %w", err)
			}
			if gtab, err = dev.NewBuffer(4 * int64(len(gl.tab))); err != nil {
				return 0, fmt.Errorf("spectra: group table: %w", err)
			}
			return int64(tbl.slots) * asize, nil
		},
		record: func(s *engine.Sequence, buf, flags *engine.Buffer, lo, m int) error {
			if out == nil {
				// The first chunk is the largest.
				var err error
				if out, err = dev.NewBuffer(int64(m) * int64(tbl.slots) * asize); err != nil {
					return fmt.Errorf("spectra: bin sums: %w", err)
				}
				if gout, err = dev.NewBuffer(int64(gl.maxUnits(m)) * int64(gl.nout) * asize); err != nil {
					return fmt.Errorf("spectra: group sums: %w", err)
				}
				if err := s.Upload(tab, 0, words(tbl.tab)); err != nil {
					return err
				}
				if err := s.Upload(gtab, 0, words(gl.tab)); err != nil {
					return err
				}
				nus := make([]byte, esize*int64(len(tbl.nu)))
				for i, v := range tbl.nu {
					if double {
						binary.LittleEndian.PutUint64(nus[8*i:], math.Float64bits(v))
					} else {
						binary.LittleEndian.PutUint32(nus[4*i:], math.Float32bits(float32(v)))
					}
				}
				if err := s.Upload(nub, 0, nus); err != nil {
					return err
				}
				res = make([]byte, int64(gl.maxUnits(m))*int64(gl.nout)*asize)
			}
			nu := tbl.nseg // invocations per transform
			if tbl.perBin {
				nu = tbl.k
			}
			if err := s.Dispatch(kern, dev.Groups((m*nu+wg-1)/wg), push(m), engine.Bind(buf), engine.Bind(tab), engine.Bind(out), engine.Bind(nub)); err != nil {
				return err
			}
			u0 = gl.unit(lo)
			units = gl.unit(lo+m-1) - u0 + 1
			if err := s.Dispatch(gkern, dev.Groups((units*gl.nout+wg-1)/wg), gpush(lo, m), engine.Bind(out), engine.Bind(gtab), engine.Bind(flags), engine.Bind(gout)); err != nil {
				return err
			}
			return s.Download(gout, 0, res[:int64(units)*int64(gl.nout)*asize])
		},
		finish: func(lo, m int) {
			k := tbl.k
			vals := make([]float64, gl.nout)
			for i := range units {
				at := int64(i) * int64(gl.nout) * asize
				for j := range vals {
					if asize == 8 {
						vals[j] = math.Float64frombits(binary.LittleEndian.Uint64(res[at+8*int64(j):]))
					} else {
						vals[j] = float64(math.Float32frombits(binary.LittleEndian.Uint32(res[at+4*int64(j):])))
					}
				}
				grp := (u0 + i) / gl.nsegm
				if totals {
					a.add(grp, vals[:k], vals[k], vals[k+1], vals[k+2])
				} else {
					a.add(grp, vals[:k], 0, 0, 0)
				}
			}
		},
		close: func() {
			tab.Release()
			nub.Release()
			gtab.Release()
			out.Release()
			gout.Release()
		},
	}
	return runVulkan(ctx, dev, src, b, n1, n0, double, sink, plans)
}

// words is v as little-endian bytes.
func words(v []uint32) []byte {
	out := make([]byte, 4*len(v))
	for i, w := range v {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

// binsPush is spectra_bins.comp's push constants; scale is float or
// double as the variant's T.
type binsPush struct {
	m, nseg              int
	per                  int64
	slots, k, boff, soff int
	perbin               bool
	f                    int
	scale                float64
}

// groupsPush is spectra_groups.comp's push constants.
type groupsPush struct {
	m, lo, members, mseg, nsegm, u0, units, nout, slots int
}
