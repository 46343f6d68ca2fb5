// Package workloads is the one list of vkstat's workloads: each package
// under pipelines/ exports its engine.Spec (its name, its options'
// defaults, whether --device auto prices it and its built-in rates, what
// runs it when it has no command of its own) beside its cost model, Work,
// and All lists them. The front ends and the test registry iterate it: the
// C ABI's defaults (Python's vkstat.defaults()), bench's suites, the
// operations --device auto has rates for, and the tests that hold each
// command's flags and each Python signature to the workload's defaults.
//
// Adding a workload: its package (with its Spec, Work and verify and
// bench cases, Spec.Cases, which suite registers), its shaders,
// one line in All, a CLI file for its files and printing, a C ABI
// function over its Run, and a Python function (docs/python.md, "Adding a
// workload").
//
// It sits above the pipelines and below suite, capi and cli, and so also
// writes the files of vkstat synth stack and synth latent
// (WriteSynthStack, WriteSynthLatent): the pipelines that draw them may
// not import formats.
package workloads

import (
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/eig"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/quantile"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/pipelines/stack"
)

// All are the workloads, in the order bench lists its suites.
var All = []engine.Spec{
	mapx.Spec,
	reduce.Spec,
	cov.Spec,
	chol.Spec,
	eig.Spec,
	paco.Spec,
	stack.Spec,
	spectra.Spec,
	latent.Spec,
	quantile.Spec,
}

// Names are the workloads' names, in All's order.
func Names() []string {
	names := make([]string, len(All))
	for i, s := range All {
		names[i] = s.Name
	}
	return names
}

// Priced are the names of the workloads --device auto prices (Spec.Auto),
// in All's order: those `vkstat bench --tune` measures rates for.
func Priced() []string {
	var names []string
	for _, s := range All {
		if s.Auto != nil {
			names = append(names, s.Name)
		}
	}
	return names
}

// Rates are the workloads' built-in rates by name, for
// engine.BuiltinRates.
func Rates() map[string]engine.BuiltinRate {
	r := map[string]engine.BuiltinRate{}
	for _, s := range All {
		if s.Auto != nil {
			r[s.Name] = *s.Auto
		}
	}
	return r
}

// Fronted are the workloads with a command and a Python function of their
// own (RunBy empty), in All's order.
func Fronted() []engine.Spec {
	var out []engine.Spec
	for _, s := range All {
		if s.RunBy == "" {
			out = append(out, s)
		}
	}
	return out
}
