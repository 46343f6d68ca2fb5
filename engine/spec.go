package engine

import "fmt"

// Spec is what a workload (a package under pipelines/) says of itself to
// the front ends, the test registry and --device auto. Each pipeline
// exports one, and package workloads lists them: the C ABI's defaults,
// bench's suites, the operations --device auto has rates for and the
// tests that hold the front ends to the workloads iterate that list.
//
// The cost model is the package's own typed function beside its Spec,
// Work(shape, dtype, Options) (engine.Work, ...): what one call does,
// which `vkstat bench` counts for throughputs and --device auto prices.
type Spec struct {
	// Name is the workload's operation: its command, its C ABI operation,
	// its Python function, its bench suite and its rate key (Job.Op).
	Name string
	// Defaults are its options' defaults by parameter name (Defaults).
	Defaults func() map[string]any
	// Params, when set, describes its options (name, type, default, help,
	// choices; Describe): the command's flags, the C ABI's decoding and
	// the survey manifest's columns are made from it, and the tests hold
	// each command's flags to it. nil: its front ends still state them.
	Params func() []Param
	// Auto says --device auto prices its calls (with the package's Work),
	// and `vkstat bench --tune` measures its rates; nil: it has none.
	Auto *BuiltinRate
	// RunBy, for a workload with no command or Python function of its
	// own, says what runs it ("latent --stat spectra").
	RunBy string
	// Cases, when set, returns its operations as `vkstat verify` checks
	// and `vkstat bench` times them (the package's cases.go): their
	// cases, inputs, runs, float64 references, tolerances and work.
	// Package suite registers those of every workload in workloads.All.
	Cases func() []Op
}

// BuiltinRate is a workload's built-in estimate for --device auto, for a
// path never measured: CPU per thread of the CPU path, GPU on a discrete
// GPU (other device types scaled from it; BuiltinRates). A zero OpRate
// takes the path's Default.
type BuiltinRate struct {
	CPU, GPU OpRate
}

// Work is what one call of a workload does: its cost model (each
// pipeline's Work), for throughput figures and --device auto.
type Work struct {
	// Bytes is the least a kernel must read and write (inputs once,
	// outputs once): the figure compared with the copy bandwidth, and
	// what crosses to a device and back.
	Bytes int64 `json:"bytes"`
	// Flops counts floating-point operations.
	Flops int64 `json:"flops"`
	// Items counts independent problems (matrices) for matrices/s.
	Items int64 `json:"items,omitempty"`
}

// Job is w as --device auto weighs a call of operation op.
func (w Work) Job(op string) Job {
	return Job{Op: op, Flops: float64(w.Flops), Bytes: float64(w.Bytes)}
}

// Dims3 are the lengths of a three-axis shape, for a cost model; another
// shape is an error saying what op wants (axes, e.g. "(N, T, P)").
func Dims3(op string, shape []int, axes string) (a, b, c int64, err error) {
	if len(shape) != 3 {
		return 0, 0, 0, fmt.Errorf("%s: shape %v, want %s", op, shape, axes)
	}
	return int64(shape[0]), int64(shape[1]), int64(shape[2]), nil
}
