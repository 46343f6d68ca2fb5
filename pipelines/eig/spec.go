package eig

import "github.com/vkstat/vkstat/engine"

// Spec is eig's entry in the registry of workloads (package workloads).
var Spec = engine.Spec{Name: "eig", Cases: cases, Defaults: Defaults, RunBy: "latent --stat pca and verify"}
