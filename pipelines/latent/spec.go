package latent

import "github.com/vkstat/vkstat/engine"

// Spec is latent's entry in the registry of workloads (package workloads).
var Spec = engine.Spec{Name: "latent", Cases: cases, Defaults: Defaults, Params: Params}
