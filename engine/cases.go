package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/vkstat/vkstat/tensor"
)

// The cases a workload declares beside its Spec (Spec.Cases): what `vkstat
// verify` checks against the float64 reference and `vkstat bench` times,
// with how to build their inputs, run them on a device or the CPU path,
// compute the reference and count their work. Package suite runs them.

// BenchSize selects the bench workloads.
type BenchSize string

// The bench sizes: BenchSmall keeps `vkstat bench --suite all` on lavapipe
// and the CPU path to a minute or two on a small machine; BenchPaper is the
// seed documents' workloads (5·10⁶-element map, 64×1024×1024 reduction).
const (
	BenchSmall BenchSize = "small"
	BenchPaper BenchSize = "paper"
)

// Case is one problem of an operation.
type Case struct {
	// Shape is the main input's shape.
	Shape []int
	// Note says what else distinguishes the case ("axis 0", "skip-nan").
	Note string
	// Arg holds operation-specific parameters, read by the Op's functions.
	Arg any
	// Seed makes the inputs; suite's registry derives it from the operation's name
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
	Bench map[BenchSize][]BenchCase
	// Build returns the inputs of c in precision dt. It must be
	// deterministic (seeded by c.Seed): float32 inputs should be the
	// float64 ones rounded.
	Build func(c Case, dt tensor.DType) []*tensor.Tensor
	// Run runs the operation on dev, or on the CPU path when dev is nil.
	Run func(ctx context.Context, dev *Device, c Case, in []*tensor.Tensor) ([]Output, Timing, error)
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
	Unsupported func(dev *Device, dt tensor.DType) string
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
	Candidates func(dev *Device) []map[string]any
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
func (op Op) Skip(dev *Device, dt tensor.DType) string {
	if op.Unsupported != nil {
		return op.Unsupported(dev, dt)
	}
	if dev != nil && dt == tensor.F64 && !dev.Info.Float64 {
		return "no float64 (shaderFloat64)"
	}
	return ""
}

// RefOutputs is a float64 run's outputs as the reference's values.
func RefOutputs(outs []Output) []RefOutput {
	ref := make([]RefOutput, len(outs))
	for i, o := range outs {
		ref[i] = RefOutput{o.Name, o.T.Float64s()}
	}
	return ref
}

// ShapeArg is shape as the peer scripts take it: "64,1024,1024".
func ShapeArg(shape []int) string {
	parts := make([]string, len(shape))
	for i, s := range shape {
		parts[i] = strconv.Itoa(s)
	}
	return strings.Join(parts, ",")
}
