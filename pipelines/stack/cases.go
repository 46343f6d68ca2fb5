package stack

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// cases are stack's operations as verify checks and bench times them (Spec.Cases).
func cases() []engine.Op { return []engine.Op{stackOp()} }

// ---- stack: temporal statistics of SAR dates --------------------------------

type stackArg struct {
	cfg     Config
	complex bool
	nodata  *float64
}

var stackStats = []string{"mean", "std", "cv", "min", "max", "count"}

// stackCase is T dates of an h×w grid (Shape (T, h, w)).
func stackCase(T, h, w int, note string, a stackArg) engine.Case {
	return engine.Case{Shape: []int{T, h, w}, Note: note, Arg: a}
}

func stackGrid(c engine.Case) Grid {
	return Grid{Width: c.Shape[2], Height: c.Shape[1], Complex: c.Arg.(stackArg).complex}
}

// stackBuild draws speckle over a reflectivity of patches (10 to 10⁴):
// complex circular Gaussian samples, or exponential intensities; with a
// nodata value, 2 % of the samples are set to it.
func stackBuild(c engine.Case, dt tensor.DType) []*tensor.Tensor {
	a := c.Arg.(stackArg)
	T, h, w := c.Shape[0], c.Shape[1], c.Shape[2]
	per := 1
	if a.complex {
		per = 2
	}
	out := tensor.New(tensor.F32, T, h, w*per)
	r := rand.New(rand.NewPCG(c.Seed, 11))
	for t := 0; t < T; t++ {
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				s := math.Pow(10, float64(1+(y/8+x/8)%4))
				i := ((t*h+y)*w + x) * per
				if a.nodata != nil && r.Float64() < 0.02 {
					for k := 0; k < per; k++ {
						out.F32[i+k] = float32(*a.nodata)
					}
					continue
				}
				if a.complex {
					out.F32[i] = float32(math.Sqrt(s/2) * r.NormFloat64())
					out.F32[i+1] = float32(math.Sqrt(s/2) * r.NormFloat64())
				} else {
					out.F32[i] = float32(s * r.ExpFloat64())
				}
			}
		}
	}
	return []*tensor.Tensor{out}
}

func stackPlan(c engine.Case) (*Plan, error) {
	return NewPlan(c.Arg.(stackArg).cfg, stackGrid(c))
}

func stackOp() engine.Op {
	none := func() *float64 { return nil }
	zero := 0.0
	return engine.Op{
		Name:  "stack",
		Suite: "stack",
		Doc:   "SAR stack: |S|², multilook, crop, speckle filter, temporal mean/std/cv/min/max/count (pipelines/stack)",
		Verify: []engine.Case{
			stackCase(4, 13, 11, "2×3 looks, nodata 0", stackArg{cfg: Config{LooksAz: 2, LooksRg: 3}, complex: true, nodata: &zero}),
			stackCase(5, 13, 11, "2×3 looks, crop, ddof 1", stackArg{cfg: Config{LooksAz: 2, LooksRg: 3, Window: Window{X: 3, Y: 2, W: 6, H: 8}, Ddof: 1}, complex: true}),
			stackCase(3, 12, 14, "real, Lee 5, amplitude", stackArg{cfg: Config{Filter: Filter{Kind: Lee, Size: 5}, Quantity: Amplitude}}),
			stackCase(3, 40, 36, "2×2 looks, boxcar 3", stackArg{cfg: Config{LooksAz: 2, LooksRg: 2, Filter: Filter{Kind: Boxcar, Size: 3}}, complex: true, nodata: none()}),
			stackCase(4, 52, 60, "2×2 looks, refined Lee 7", stackArg{cfg: Config{LooksAz: 2, LooksRg: 2, Filter: Filter{Kind: RefinedLee, Size: 7}}, complex: true}),
		},
		Bench: map[engine.BenchSize][]engine.BenchCase{
			engine.BenchSmall: {{Case: stackCase(5, 1024, 1024, "4×4 looks", stackArg{cfg: Config{LooksAz: 4, LooksRg: 4}, complex: true}), DType: tensor.F32}},
			// The SAR seed: 5 dates of 4096² SLC, 4×4 looks, 1024² out.
			engine.BenchPaper: {{Case: stackCase(5, 4096, 4096, "4×4 looks", stackArg{cfg: Config{LooksAz: 4, LooksRg: 4}, complex: true}), DType: tensor.F32}},
		},
		Build: stackBuild,
		Run: func(ctx context.Context, dev *engine.Device, c engine.Case, in []*tensor.Tensor) ([]engine.Output, engine.Timing, error) {
			var tm engine.Timing
			p, err := stackPlan(c)
			if err != nil {
				return nil, tm, err
			}
			dates, err := MemoryDates(in[0].F32, c.Shape[0], stackGrid(c), c.Arg.(stackArg).nodata)
			if err != nil {
				return nil, tm, err
			}
			res, err := Run(ctx, dev, dates, Options{Plan: p})
			if err != nil {
				return nil, tm, err
			}
			tm.Kernel, tm.Wall = res.Timing.Kernel, res.Timing.Wall
			arrays := [][]float32{res.Mean, res.Std, res.CV, res.Min, res.Max, res.Count}
			out := make([]engine.Output, len(arrays))
			for i, a := range arrays {
				out[i] = engine.Output{Name: stackStats[i], T: tensor.FromF32(a, res.H, res.W)}
			}
			return out, tm, nil
		},
		Reference: func(c engine.Case, in []*tensor.Tensor) ([]engine.RefOutput, error) {
			p, err := stackPlan(c)
			if err != nil {
				return nil, err
			}
			a := c.Arg.(stackArg)
			T := c.Shape[0]
			per := len(in[0].F32) / T
			dates := make([]RefDate, T)
			for t := range dates {
				d := RefDate{Data: make([]float64, per)}
				for i, v := range in[0].F32[t*per : (t+1)*per] {
					d.Data[i] = float64(v)
				}
				if a.nodata != nil {
					d.NoData, d.HasNoData = *a.nodata, true
				}
				dates[t] = d
			}
			r := Reference(p, dates)
			vs := [][]float64{r.Mean, r.Std, r.CV, r.Min, r.Max, r.Count}
			out := make([]engine.RefOutput, len(vs))
			for i, v := range vs {
				out[i] = engine.RefOutput{Name: stackStats[i], V: v}
			}
			return out, nil
		},
		// float32 sums within a box, Welford over a few dates. float64 is
		// not run (Unsupported); its entry is the registry's requirement.
		Tol: map[tensor.DType]engine.Tol{tensor.F32: {MaxErr: 2e-5, NMSE: 1e-10}, tensor.F64: {MaxErr: 2e-5, NMSE: 1e-10}},
		Work: func(c engine.Case, dt tensor.DType) engine.Work {
			w, _ := Work(c.Shape[0], stackGrid(c))
			return w
		},
		Unit: engine.GBs,
		Unsupported: func(dev *engine.Device, dt tensor.DType) string {
			if dt != tensor.F32 {
				return "float32 only (SAR samples are float32 or narrower)"
			}
			return ""
		},
	}
}
