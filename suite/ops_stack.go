package suite

import (
	"context"
	"math"
	"math/rand/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/stack"
	"github.com/vkstat/vkstat/tensor"
)

// ---- stack: temporal statistics of SAR dates --------------------------------

func init() { Register(stackOp()) }

type stackArg struct {
	cfg     stack.Config
	complex bool
	nodata  *float64
}

var stackStats = []string{"mean", "std", "cv", "min", "max", "count"}

// stackCase is T dates of an h×w grid (Shape (T, h, w)).
func stackCase(T, h, w int, note string, a stackArg) Case {
	return Case{Shape: []int{T, h, w}, Note: note, Arg: a}
}

func stackGrid(c Case) stack.Grid {
	return stack.Grid{Width: c.Shape[2], Height: c.Shape[1], Complex: c.Arg.(stackArg).complex}
}

// stackBuild draws speckle over a reflectivity of patches (10 to 10⁴):
// complex circular Gaussian samples, or exponential intensities; with a
// nodata value, 2 % of the samples are set to it.
func stackBuild(c Case, dt tensor.DType) []*tensor.Tensor {
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

func stackPlan(c Case) (*stack.Plan, error) {
	return stack.NewPlan(c.Arg.(stackArg).cfg, stackGrid(c))
}

func stackOp() Op {
	none := func() *float64 { return nil }
	zero := 0.0
	return Op{
		Name:  "stack",
		Suite: "stack",
		Doc:   "SAR stack: |S|², multilook, crop, speckle filter, temporal mean/std/cv/min/max/count (pipelines/stack)",
		Verify: []Case{
			stackCase(4, 13, 11, "2×3 looks, nodata 0", stackArg{cfg: stack.Config{LooksAz: 2, LooksRg: 3}, complex: true, nodata: &zero}),
			stackCase(5, 13, 11, "2×3 looks, crop, ddof 1", stackArg{cfg: stack.Config{LooksAz: 2, LooksRg: 3, Window: stack.Window{X: 3, Y: 2, W: 6, H: 8}, Ddof: 1}, complex: true}),
			stackCase(3, 12, 14, "real, Lee 5, amplitude", stackArg{cfg: stack.Config{Filter: stack.Filter{Kind: stack.Lee, Size: 5}, Quantity: stack.Amplitude}}),
			stackCase(3, 40, 36, "2×2 looks, boxcar 3", stackArg{cfg: stack.Config{LooksAz: 2, LooksRg: 2, Filter: stack.Filter{Kind: stack.Boxcar, Size: 3}}, complex: true, nodata: none()}),
			stackCase(4, 52, 60, "2×2 looks, refined Lee 7", stackArg{cfg: stack.Config{LooksAz: 2, LooksRg: 2, Filter: stack.Filter{Kind: stack.RefinedLee, Size: 7}}, complex: true}),
		},
		Bench: map[Size][]BenchCase{
			Small: {{stackCase(5, 1024, 1024, "4×4 looks", stackArg{cfg: stack.Config{LooksAz: 4, LooksRg: 4}, complex: true}), f32}},
			// The SAR seed: 5 dates of 4096² SLC, 4×4 looks, 1024² out.
			Paper: {{stackCase(5, 4096, 4096, "4×4 looks", stackArg{cfg: stack.Config{LooksAz: 4, LooksRg: 4}, complex: true}), f32}},
		},
		Build: stackBuild,
		Run: func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
			var tm engine.Timing
			p, err := stackPlan(c)
			if err != nil {
				return nil, tm, err
			}
			dates, err := stack.MemoryDates(in[0].F32, c.Shape[0], stackGrid(c), c.Arg.(stackArg).nodata)
			if err != nil {
				return nil, tm, err
			}
			res, err := stack.Run(ctx, dev, dates, stack.Options{Plan: p})
			if err != nil {
				return nil, tm, err
			}
			tm.Kernel, tm.Wall = res.Timing.Kernel, res.Timing.Wall
			arrays := [][]float32{res.Mean, res.Std, res.CV, res.Min, res.Max, res.Count}
			out := make([]Output, len(arrays))
			for i, a := range arrays {
				out[i] = Output{stackStats[i], tensor.FromF32(a, res.H, res.W)}
			}
			return out, tm, nil
		},
		Reference: func(c Case, in []*tensor.Tensor) ([]RefOutput, error) {
			p, err := stackPlan(c)
			if err != nil {
				return nil, err
			}
			a := c.Arg.(stackArg)
			T := c.Shape[0]
			per := len(in[0].F32) / T
			dates := make([]stack.RefDate, T)
			for t := range dates {
				d := stack.RefDate{Data: make([]float64, per)}
				for i, v := range in[0].F32[t*per : (t+1)*per] {
					d.Data[i] = float64(v)
				}
				if a.nodata != nil {
					d.NoData, d.HasNoData = *a.nodata, true
				}
				dates[t] = d
			}
			r := stack.Reference(p, dates)
			vs := [][]float64{r.Mean, r.Std, r.CV, r.Min, r.Max, r.Count}
			out := make([]RefOutput, len(vs))
			for i, v := range vs {
				out[i] = RefOutput{stackStats[i], v}
			}
			return out, nil
		},
		// float32 sums within a box, Welford over a few dates. float64 is
		// not run (Unsupported); its entry is the registry's requirement.
		Tol: map[tensor.DType]Tol{f32: {MaxErr: 2e-5, NMSE: 1e-10}, f64: {MaxErr: 2e-5, NMSE: 1e-10}},
		Work: func(c Case, dt tensor.DType) Work {
			w, _ := stack.Work(c.Shape[0], stackGrid(c))
			return w
		},
		Unit: GBs,
		Unsupported: func(dev *engine.Device, dt tensor.DType) string {
			if dt != tensor.F32 {
				return "float32 only (SAR samples are float32 or narrower)"
			}
			return ""
		},
	}
}
