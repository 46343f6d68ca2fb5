package spectra

import "github.com/vkstat/vkstat/engine"

// Spec is spectra's entry in the registry of workloads (package workloads).
var Spec = engine.Spec{Name: "spectra", Cases: cases, Defaults: Defaults, RunBy: "latent --stat spectra"}
