package reduce

import (
	"context"
	"encoding/binary"
	"fmt"
	"math"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/vkpush"
	"github.com/vkstat/vkstat/shaders"
	"github.com/vkstat/vkstat/tensor"
)

// CentralMoments are the second, third and fourth central moments (divisor
// n, as scipy.stats.skew and kurtosis use) of the non-NaN values of each
// row, with the counts they come from.
type CentralMoments struct {
	N, NaNs    []int
	M2, M3, M4 []float64
}

// Central computes the central moments of each row of src, a 2-D (rows, n)
// array of float32, float64, float16 or bfloat16, on dev: the second pass
// of a two-pass computation around centre, one value per row, which should
// be the row's mean (Run's Mean; NaN or ±Inf where the row has none is
// fine). The array streams through the device in tiles as in VulkanSource;
// each record sums d, d², d³ and d⁴ (d = x − centre, NaNs left out and
// counted) in float64, or in compensated float32 where the device has no
// float64, and the host adds the records and corrects for the centre's
// rounding with Σd, so a centre rounded to float32 costs nothing. A row
// with no non-NaN value has NaN moments.
func Central(ctx context.Context, dev *engine.Device, src tensor.Source, centre []float64) (*CentralMoments, engine.Timing, error) {
	var tm engine.Timing
	if len(src.Shape) != 2 {
		return nil, tm, fmt.Errorf("reduce: central moments need a 2-d (rows, n) array, got shape %s", tensor.ShapeString(src.Shape))
	}
	g, err := Plan(src.Shape, 1)
	if err != nil {
		return nil, tm, err
	}
	if len(centre) != g.Outer {
		return nil, tm, fmt.Errorf("reduce: central moments: %d centres for %d rows", len(centre), g.Outer)
	}
	out := &CentralMoments{N: make([]int, g.Outer), NaNs: make([]int, g.Outer),
		M2: make([]float64, g.Outer), M3: make([]float64, g.Outer), M4: make([]float64, g.Outer)}
	if g.Outer == 0 {
		return out, tm, nil
	}
	double := dev.Info.Float64
	name, es := "reduce_central_f32", 4
	switch {
	case src.DType == tensor.F64:
		if err := dev.RequireFloat64(); err != nil {
			return nil, tm, err
		}
		name, es = "reduce_central_f64", 8
	case src.DType == tensor.F16:
		name, es = "reduce_central_f16", 2
	case src.DType == tensor.BF16:
		name, es = "reduce_central_bf16", 2
	}
	if !double {
		name += "acc32"
	}
	w, recSize := 4, 24 // reduce_central.comp's Central
	if double {
		w, recSize = 8, 40
	}
	tn, err := resolveTuning(ctx, dev.Info)
	if err != nil {
		return nil, tm, err
	}
	// Where the tuning keeps last-axis reductions off the workgroup
	// kernels (CPU devices), an invocation per record, about 4,096 of
	// them (measured on lavapipe: 65,536 records of 64 values took twice
	// as long, the host adding the records included); otherwise a
	// workgroup per record, and chunks of at most rowsLoopBudget values
	// per invocation.
	wg, lanes := tn.workgroup, 1
	target, chunkCap := 1<<12, 4096
	if tn.rowsKernel != "none" {
		wg, lanes = tn.rowsWG, tn.rowsWG
		target, chunkCap = tn.rowsRecords, rowsLoopBudget*lanes
	}
	code, err := shaders.Code(name)
	if err != nil {
		return nil, tm, err
	}
	k, err := dev.Kernel(engine.KernelSpec{Name: name, Code: code, Bindings: 3, PushSize: 24, Spec: []uint32{uint32(wg), uint32(lanes)}})
	if err != nil {
		return nil, tm, err
	}
	align := dev.Alignment()
	limit := min(dev.MaxBinding(), dev.MaxBuffer())
	recCap := min(limit, dev.Available()/4) / int64(recSize)
	window := min(limit, src.Bytes()+align, dev.Available()/2&^(align-1))
	if testWindow > 0 {
		window = min(window, testWindow)
	}
	if recCap < 1 || window-align < int64(es) {
		return nil, tm, fmt.Errorf("reduce: central moments: %w (%d bytes left)", engine.ErrNoFit, dev.Available())
	}
	tiles := planTiles(g, int((window-align)/int64(es)), int(recCap), target, chunkCap)
	maxRec, maxO, largest := 0, 0, int64(0)
	for _, t := range tiles {
		maxRec, maxO = max(maxRec, t.records()), max(maxO, t.oCount)
		size, _, _ := t.window(g, es, align, src)
		largest = max(largest, size)
	}
	input, err := dev.NewBuffer(largest)
	if err != nil {
		return nil, tm, err
	}
	defer input.Release()
	centres, err := dev.NewBuffer(int64(maxO * w))
	if err != nil {
		return nil, tm, err
	}
	defer centres.Release()
	records, err := dev.NewBuffer(int64(maxRec * recSize))
	if err != nil {
		return nil, tm, err
	}
	defer records.Release()

	s := make([][4]float64, g.Outer) // Σd, Σd², Σd³, Σd⁴ per row
	host := make([]byte, maxRec*recSize)
	cb := make([]byte, maxO*w)
	le := binary.LittleEndian
	for _, t := range tiles {
		for i := 0; i < t.oCount; i++ {
			c := centre[t.o0+i]
			if math.IsNaN(c) || math.IsInf(c, 0) {
				c = 0 // the row has no finite mean: its moments are NaN or unused
			}
			if double {
				le.PutUint64(cb[i*8:], math.Float64bits(c))
			} else {
				le.PutUint32(cb[i*4:], math.Float32bits(float32(c)))
			}
		}
		nrec := t.records()
		st, err := dev.Run(ctx, func(seq *engine.Sequence) {
			size, skip, fill := t.window(g, es, align, src)
			seq.UploadFrom(input, 0, size, fill)
			seq.Upload(centres, 0, cb[:t.oCount*w])
			var p vkpush.Block
			p.U32(skip).U32(uint32(t.oCount)).U32(uint32(t.rows)).
				U32(uint32(t.chunk)).U32(uint32(t.nchunks)).U32(uint32(g.N))
			perGroup := wg / lanes
			seq.Dispatch(k, dev.Groups((nrec+perGroup-1)/perGroup), p.Bytes(),
				engine.Binding{Buf: input, Size: size},
				engine.Binding{Buf: centres, Size: int64(t.oCount * w)},
				engine.Binding{Buf: records, Size: int64(nrec * recSize)})
			seq.Download(records, 0, host[:nrec*recSize])
		})
		tm.Add(st)
		if err != nil {
			return nil, tm, err
		}
		t0 := time.Now()
		f := func(off int) float64 {
			if double {
				return math.Float64frombits(le.Uint64(host[off:]))
			}
			return float64(math.Float32frombits(le.Uint32(host[off:])))
		}
		for i := 0; i < nrec; i++ {
			o := t.o0 + i/t.nchunks
			off := i * recSize
			for j := range 4 {
				s[o][j] += f(off + j*w)
			}
			out.N[o] += int(le.Uint32(host[off+4*w:]))
			out.NaNs[o] += int(le.Uint32(host[off+4*w+4:]))
		}
		tm.Download += time.Since(t0)
	}
	for o := range s {
		n := float64(out.N[o])
		if n == 0 {
			out.M2[o], out.M3[o], out.M4[o] = math.NaN(), math.NaN(), math.NaN()
			continue
		}
		// Moments about the centre c, then about the mean c + δ.
		dl, a2, a3, a4 := s[o][0]/n, s[o][1]/n, s[o][2]/n, s[o][3]/n
		d2 := dl * dl
		out.M2[o] = max(a2-d2, 0)
		out.M3[o] = a3 - 3*dl*a2 + 2*d2*dl
		out.M4[o] = max(a4-4*dl*a3+6*d2*a2-3*d2*d2, 0)
	}
	return out, tm, nil
}
