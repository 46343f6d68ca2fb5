//go:build !amd64

package vec

// HasAVX2FMA is false off amd64: the sums are goKernels.
const HasAVX2FMA = false

// asmKernels is nil: there is no assembly.
var asmKernels *kernels
