package paco

import (
	"fmt"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/tensor"
)

// Spec is PACO's entry in the registry of workloads (package workloads).
// Built-in rates: 1024×1024×256, radius 4 (1.25·10¹¹ flops): 9.9 s on 16
// threads, 0.66 s on the H100's device (2026-11-28); 100×100 took 0.4-0.9
// s as a process.
var Spec = engine.Spec{Name: "paco", Cases: cases, Defaults: Defaults, Params: Params, Auto: &engine.BuiltinRate{CPU: engine.OpRate{Flops: 7.9e8}, GPU: engine.OpRate{Flops: 1.9e11, FixedMs: 60, FirstMs: 80}}}

// Work is what the maps of a cube of shape (T, H, W) in precision dt do
// with patches of radius opt.Radius (P pixels, about D canonical
// displacements), over n = H·W locations: 2·n·D·T flops for the
// covariance sums, n·(P³/3 + 2P²) to factor and solve, 2·n·T·P for the
// statistics; with opt.Placement subpixel, 25 solves and a Gram matrix a
// location, 16 dot products and a 16×16 form a frame. The cube is read
// and the three maps written once. A radius below 1 is counted as 1 (the
// run words it); a patch larger than the frames is an error, found from
// the shape before any offset is built.
func Work(shape []int, dt tensor.DType, opt Options) (engine.Work, error) {
	t, h, w, err := engine.Dims3("paco", shape, "(T, H, W)")
	if err != nil {
		return engine.Work{}, err
	}
	r := max(opt.Radius, 1)
	if s := int64(2*r + 1); s > h || s > w {
		return engine.Work{}, fmt.Errorf("paco: radius %d needs %d×%d pixels; the frames are %d×%d", r, s, s, h, w)
	}
	n := h * w
	p := int64(len(cov.PatchOffsets(r)))
	d := int64(len(cov.PatchOffsets(2*r))+1) / 2
	flops := 2*n*d*t + n*(p*p*p/3+2*p*p) + 2*n*t*p
	if opt.Placement == PlacementSubpixel {
		nb := int64(NBasis)
		flops = 2*n*d*t + n*(p*p*p/3+2*nb*p*p+2*nb*nb*p) + 2*n*t*(16*p+136)
	}
	return engine.Work{Bytes: (t*n + 3*n) * int64(dt.Size()), Flops: flops, Items: n}, nil
}
