// Package suite is vkstat's cross-device checking and timing: the registry
// of the operations of the pipelines/ packages, and the runs that `vkstat
// verify` and `vkstat bench` are, as library calls on devices a caller
// opened (a nil *engine.Device is the CPU path).
//
//   - Verify checks every case of the chosen operations (SelectOps), in
//     float32 and float64, on every device against the float64 reference,
//     and returns a VerifyReport: per device and row, the normwise max
//     error, the NMSE, the tolerance and pass, fail or skip (a device that
//     lacks float64). CompareReports sets reports from different machines
//     side by side; ParseVerifyReport reads one back from its JSON.
//   - Bench measures each device's copy and link bandwidth, then times
//     every bench case (upload, kernel, download, wall) and returns a
//     BenchReport with throughputs and the fraction of copy bandwidth.
//   - Tune searches the tunable pipelines' parameters on each Vulkan
//     device, on cases of their operations (Op.Tune), and, asked to,
//     stores the winners in its tune cache.
//
// Each registry entry holds the cases to check and to time, how to build
// their inputs deterministically (internal/inputs), how to run them on a
// Vulkan device or on the CPU path (the pipelines' Run(ctx, dev, ...) with
// dev nil), their float64 reference, tolerances (the comparison is
// internal/checks'), the work they do for throughput figures, and, for a
// tunable pipeline, its candidates and the cases its tuner checks and
// times. Adding a pipeline, once it is in workloads.All (its suite), is
// one function that returns an Op, and one line in its file's init.
// Verify and Bench then cover it on every device, and `vkstat verify` and
// `vkstat bench` list it with no other change.
package suite

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
	"github.com/vkstat/vkstat/workloads"
)

// Size selects the bench workloads.
type Size string

// The bench sizes: Small keeps `vkstat bench --suite all` on lavapipe and the
// CPU path to a minute or two on a small machine; Paper is the seed
// documents' workloads (5·10⁶-element map, 64×1024×1024 reduction).
const (
	Small Size = "small"
	Paper Size = "paper"
)

// ParseSize accepts small and paper.
func ParseSize(s string) (Size, error) {
	switch Size(strings.ToLower(strings.TrimSpace(s))) {
	case Small, "":
		return Small, nil
	case Paper, "large", "big":
		return Paper, nil
	}
	return "", fmt.Errorf("unknown size %q (want small or paper)", s)
}

// Case is one problem of an operation.
type Case struct {
	// Shape is the main input's shape.
	Shape []int
	// Note says what else distinguishes the case ("axis 0", "skip-nan").
	Note string
	// Arg holds operation-specific parameters, read by the Op's functions.
	Arg any
	// Seed makes the inputs; Register derives it from the operation's name
	// and the case's label when it is zero.
	Seed uint64
}

// Label is the case's shape and note, e.g. "(33, 257) axis 1".
func (c Case) Label() string {
	s := tensor.ShapeString(c.Shape)
	if c.Note != "" {
		s += " " + c.Note
	}
	return s
}

// BenchCase is a case timed by bench, in one precision.
type BenchCase struct {
	Case
	DType tensor.DType
}

// Tol bounds the errors of one precision (see Compare).
type Tol struct {
	// MaxErr bounds max|got−want| / max|want| of every output.
	MaxErr float64 `json:"max_err"`
	// NMSE bounds Σ(got−want)² / Σwant² of every output.
	NMSE float64 `json:"nmse"`
}

// Unit is the unit of an operation's throughput.
type Unit string

// The throughput units.
const (
	GBs      Unit = "GB/s"
	GFlops   Unit = "GFLOP/s"
	Matrices Unit = "matrices/s"
)

// Work is what one run of a case does, for throughput figures: the
// workload's cost model (each pipeline's Work), which --device auto
// prices too.
type Work = engine.Work

// Output is one named result of a run.
type Output struct {
	Name string
	T    *tensor.Tensor
}

// RefOutput is one named float64 reference result, in the order of Run's
// outputs.
type RefOutput struct {
	Name string
	V    []float64
}

// Peer names the peer scripts' workload matching a bench case: Script is
// the operation (bench/peers/numpy_<Script>.py, torch_ops.py <Script>,
// cupy_ops.py <Script>) and Args its arguments.
type Peer struct {
	Script string   `json:"script"`
	Args   []string `json:"args"`
}

// Op is one operation of the registry.
type Op struct {
	// Name identifies the operation on the command line and in reports.
	Name string
	// Suite is the bench suite it belongs to: its workload's name (workloads.All).
	Suite string
	// Doc says in a line what it computes.
	Doc string
	// Verify lists the cases that verify checks, each in float32 and
	// float64.
	Verify []Case
	// Bench lists the cases that bench times, per size.
	Bench map[Size][]BenchCase
	// Build returns the inputs of c in precision dt. It must be
	// deterministic (seeded by c.Seed): float32 inputs should be the
	// float64 ones rounded.
	Build func(c Case, dt tensor.DType) []*tensor.Tensor
	// Run runs the operation on dev, or on the CPU path when dev is nil.
	Run func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error)
	// Reference computes the outputs in float64 from the inputs' values.
	Reference func(c Case, in []*tensor.Tensor) ([]RefOutput, error)
	// Tol maps each precision to its tolerance: float32 and float64, and
	// float16 and bfloat16 for the operations that keep 16-bit storage
	// (verify checks an operation in the precisions it has a tolerance
	// for; its 16-bit rows' outputs are float32).
	Tol map[tensor.DType]Tol
	// Work counts what one run does.
	Work func(c Case, dt tensor.DType) Work
	// Unit is the throughput unit bench reports.
	Unit Unit
	// Peer returns the peer scripts' matching workload, or nil.
	Peer func(c Case, dt tensor.DType) *Peer
	// CPUComputes is the precision the CPU path computes in whatever the
	// input's (PACO's is float64 only), or 0 for the input's own.
	CPUComputes tensor.DType
	// Unsupported returns why dev cannot run precision dt, or "". Nil
	// means float64 needs shaderFloat64 and everything else runs.
	Unsupported func(dev *engine.Device, dt tensor.DType) string
	// Tune, for an operation whose pipeline has parameters to tune, is
	// what `vkstat bench --tune` searches (see Tune).
	Tune *Tuning
}

// Tuning is what Tune searches for an operation's pipeline: the pipeline's
// candidates, each checked and timed on cases of the operation itself
// (its Build, Run, Reference and Tol, as verify checks them), as ggml's
// test-backend-ops reuses its cases in its perf mode.
type Tuning struct {
	// Pipeline names the pipeline in the tune cache (device/tune).
	Pipeline string
	// Candidates lists the parameter sets to try on dev, the built-in
	// choice first (the pipeline's tune.go).
	Candidates func(dev *engine.Device) []map[string]any
	// GPU lists the cases timed on a GPU, CPU the smaller ones timed on
	// a CPU-type device (lavapipe, SwiftShader).
	GPU, CPU []BenchCase
	// Hard lists cases that every candidate must pass before it is timed,
	// on devices with float64 (where there is a more accurate candidate to
	// prefer): inputs where a fast variant loses accuracy that the timed
	// cases do not show. A 16-bit case is held to float32's tolerance
	// where the operation has none of its own.
	Hard []BenchCase
}

// Precisions is the part of dts that op is checked in: those it has a
// tolerance for (every operation has float32 and float64; the 16-bit
// storage types only those that keep it).
func (op Op) Precisions(dts []tensor.DType) []tensor.DType {
	var out []tensor.DType
	for _, dt := range dts {
		if _, ok := op.Tol[dt]; ok {
			out = append(out, dt)
		}
	}
	return out
}

// Skip returns why op cannot run precision dt on dev (nil: the CPU path),
// or "" when it can.
func (op Op) Skip(dev *engine.Device, dt tensor.DType) string {
	if op.Unsupported != nil {
		return op.Unsupported(dev, dt)
	}
	if dev != nil && dt == tensor.F64 && !dev.Info.Float64 {
		return "no float64 (shaderFloat64)"
	}
	return ""
}

// Suites are the bench suites, in order: the workloads (workloads.All). A
// suite may have no operation registered yet.
var Suites = workloads.Names()

var (
	regMu    sync.Mutex
	registry []Op
)

// Register adds op to the registry. It panics on an incomplete Op or a
// duplicate name: registration happens in init, where that is a bug.
func Register(op Op) {
	regMu.Lock()
	defer regMu.Unlock()
	if op.Name == "" || op.Build == nil || op.Run == nil || op.Reference == nil || op.Work == nil {
		panic(fmt.Sprintf("suite: incomplete operation %q", op.Name))
	}
	known := false
	for _, s := range Suites {
		known = known || s == op.Suite
	}
	if !known {
		panic(fmt.Sprintf("suite: operation %q has unknown suite %q", op.Name, op.Suite))
	}
	for _, o := range registry {
		if o.Name == op.Name {
			panic(fmt.Sprintf("suite: operation %q registered twice", op.Name))
		}
	}
	for _, dt := range []tensor.DType{tensor.F32, tensor.F64} {
		if _, ok := op.Tol[dt]; !ok {
			panic(fmt.Sprintf("suite: operation %q has no %s tolerance", op.Name, dt))
		}
	}
	seed := func(c *Case) {
		if c.Seed == 0 {
			h := fnv.New64a()
			h.Write([]byte(op.Name + "|" + c.Label()))
			c.Seed = h.Sum64() | 1
		}
	}
	op.Verify = append([]Case(nil), op.Verify...)
	for i := range op.Verify {
		seed(&op.Verify[i])
	}
	bench := map[Size][]BenchCase{}
	for sz, cs := range op.Bench {
		cs = append([]BenchCase(nil), cs...)
		for i := range cs {
			seed(&cs[i].Case)
		}
		bench[sz] = cs
	}
	op.Bench = bench
	if op.Tune != nil {
		tu := *op.Tune
		for _, cs := range []*[]BenchCase{&tu.GPU, &tu.CPU, &tu.Hard} {
			*cs = append([]BenchCase(nil), *cs...)
			for i := range *cs {
				seed(&(*cs)[i].Case)
			}
		}
		op.Tune = &tu
	}
	registry = append(registry, op)
}

// Ops returns the registered operations, by suite then name.
func Ops() []Op {
	regMu.Lock()
	out := append([]Op(nil), registry...)
	regMu.Unlock()
	order := map[string]int{}
	for i, s := range Suites {
		order[s] = i
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Suite != out[j].Suite {
			return order[out[i].Suite] < order[out[j].Suite]
		}
		return out[i].Name < out[j].Name
	})
	return out
}

// Select returns the operations of the named suites: one, a comma-separated
// list (map,reduce) or "all". A known suite with nothing registered yet is
// an error that says so.
func Select(ops []Op, suites string) ([]Op, error) {
	var want []string
	for _, s := range strings.Split(strings.ToLower(suites), ",") {
		s = strings.TrimSpace(s)
		if s == "" || s == "all" {
			return ops, nil
		}
		if !slices.Contains(Suites, s) {
			return nil, fmt.Errorf("unknown suite %q (want %s or all, or a comma-separated list)", s, strings.Join(Suites, ", "))
		}
		want = append(want, s)
	}
	var out []Op
	for _, op := range ops {
		if slices.Contains(want, op.Suite) {
			out = append(out, op)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("suite %q has no operation registered in this build of vkstat (its pipeline has no Run yet)", suites)
	}
	return out, nil
}

// Perturb returns op with f applied to every output of its Run on the
// devices where on returns true (every device, the CPU path included, when
// on is nil): a planted error, which verify must report as a failure.
func Perturb(op Op, f func(*tensor.Tensor), on func(dev *engine.Device) bool) Op {
	run := op.Run
	op.Run = func(ctx context.Context, dev *engine.Device, c Case, in []*tensor.Tensor) ([]Output, engine.Timing, error) {
		out, tm, err := run(ctx, dev, c, in)
		if err == nil && (on == nil || on(dev)) {
			for _, o := range out {
				if o.T != nil {
					f(o.T)
				}
			}
		}
		return out, tm, err
	}
	return op
}

// PlantError changes one finite element of t, the first at or after its
// middle, by 1% of its magnitude plus 10⁻³: what a kernel with an
// off-by-one or a lost carry might do.
func PlantError(t *tensor.Tensor) {
	n := t.Len()
	for k := 0; k < n; k++ {
		i := (n/2 + k) % n
		if t.DType == tensor.F64 {
			if v := t.F64[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				t.F64[i] = v + 0.01*math.Abs(v) + 1e-3
				return
			}
		} else if v := float64(t.F32[i]); !math.IsNaN(v) && !math.IsInf(v, 0) {
			t.F32[i] = float32(v + 0.01*math.Abs(v) + 1e-3)
			return
		}
	}
}
