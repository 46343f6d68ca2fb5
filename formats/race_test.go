//go:build race

package formats

// raceDetector is true in a test binary built with -race, whose shadow
// memory makes resident-memory measurements meaningless.
const raceDetector = true
