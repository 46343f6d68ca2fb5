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
// times. Each workload declares its operations beside its engine.Spec
// (pipelines/<name>/cases.go, Spec.Cases), and Register takes them from
// workloads.All: adding a pipeline needs no file here. Verify and Bench
// then cover it on every device, and `vkstat verify` and `vkstat bench`
// list it with no other change.
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

// The registry's types are engine's: each workload declares its cases
// beside its Spec (Spec.Cases), and Register takes them from workloads.All.
type (
	// Size selects the bench workloads.
	Size = engine.BenchSize
	// Case is one problem of an operation.
	Case = engine.Case
	// BenchCase is a case timed by bench, in one precision.
	BenchCase = engine.BenchCase
	// Tol bounds the errors of one precision (see Compare).
	Tol = engine.Tol
	// Unit is the unit of an operation's throughput.
	Unit = engine.Unit
	// Work is what one run of a case does, for throughput figures: the
	// workload's cost model (each pipeline's Work), which --device auto
	// prices too.
	Work = engine.Work
	// Output is one named result of a run.
	Output = engine.Output
	// RefOutput is one named float64 reference result.
	RefOutput = engine.RefOutput
	// Peer names the peer scripts' workload matching a bench case.
	Peer = engine.Peer
	// Op is one operation of the registry.
	Op = engine.Op
	// Tuning is what Tune searches for an operation's pipeline.
	Tuning = engine.Tuning
)

// The bench sizes (engine.BenchSmall, engine.BenchPaper).
const (
	Small = engine.BenchSmall
	Paper = engine.BenchPaper
)

// The throughput units.
const (
	GBs      = engine.GBs
	GFlops   = engine.GFlops
	Matrices = engine.Matrices
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

// Suites are the bench suites, in order: the workloads (workloads.All). A
// suite may have no operation registered yet.
var Suites = workloads.Names()

var (
	regMu    sync.Mutex
	registry []Op
)

// registerWorkloads registers the workloads' cases (engine.Spec.Cases),
// in workloads.All's order, at the first Ops: in an init they cost every
// process that links the package (the command, the Python package's
// library) 1,600 allocations before its first line.
var registerWorkloads = sync.OnceFunc(func() {
	for _, s := range workloads.All {
		if s.Cases != nil {
			for _, op := range s.Cases() {
				Register(op)
			}
		}
	}
})

// Register adds op to the registry. It panics on an incomplete Op or a
// duplicate name: registration happens at start-up, where that is a bug.
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
	registerWorkloads()
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
