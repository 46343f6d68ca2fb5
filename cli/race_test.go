//go:build race

package cli

// raceDetector is true in a test binary built with -race, whose
// instrumentation slows the host's work several-fold and adds its own
// allocations: time shares and allocation bounds measured there are not
// the build's.
const raceDetector = true
