//go:build !race

package formats

const raceDetector = false
