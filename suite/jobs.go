package suite

import (
	"fmt"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/reduce"
	"github.com/vkstat/vkstat/tensor"
)

// AutoJob is one call as --device auto weighs it (engine.Job): the work
// bench counts (Op.Work) for the case bench would make of an input of
// shape in precision dt. op is map, reduce (arg: the axis), cov (PACO's
// estimator; shape N, T, P), chol (a solve; shape N, P, P), paco (arg: the
// patch radius; shape T, H, W) or stack (complex samples; shape dates, H,
// W).
func AutoJob(op string, shape []int, dt tensor.DType, arg int) (engine.Job, error) {
	var c Case
	name := op
	switch op {
	case "map":
		c = Case{Shape: shape}
	case "reduce":
		c = reduceCase(shape, arg, reduce.Options{}, []reduce.Stat{reduce.Mean, reduce.Std}, false)
	case "cov":
		if len(shape) != 3 {
			return engine.Job{}, fmt.Errorf("cov: shape %v, want (N, T, P)", shape)
		}
		c = covCase(shape[0], shape[1], shape[2], cov.PACO, 0)
	case "chol":
		if len(shape) != 3 {
			return engine.Job{}, fmt.Errorf("chol: shape %v, want (N, P, P)", shape)
		}
		c = cholCase(shape[0], shape[1], cholArg{solve: true})
	case "paco":
		if len(shape) != 3 {
			return engine.Job{}, fmt.Errorf("paco: shape %v, want (T, H, W)", shape)
		}
		// A patch larger than the frames is the run's error to word
		// (paco.Prepare); sized, it would build its offsets first (a
		// radius of 10⁹ never returns).
		if r := max(arg, 1); 2*r+1 > shape[1] || 2*r+1 > shape[2] {
			return engine.Job{}, fmt.Errorf("paco: radius %d needs %d×%d pixels; the frames are %d×%d", r, 2*r+1, 2*r+1, shape[1], shape[2])
		}
		c = pacoCase(shape[0], shape[1], shape[2], max(arg, 1))
	case "stack":
		if len(shape) != 3 {
			return engine.Job{}, fmt.Errorf("stack: shape %v, want (dates, H, W)", shape)
		}
		c = stackCase(shape[0], shape[1], shape[2], "", stackArg{complex: true})
	default:
		return engine.Job{}, fmt.Errorf("no rates for %q", op)
	}
	for _, o := range Ops() {
		if o.Name == name {
			w := o.Work(c, dt)
			return engine.Job{Op: op, Flops: float64(w.Flops), Bytes: float64(w.Bytes)}, nil
		}
	}
	return engine.Job{}, fmt.Errorf("no operation %q in the registry", name)
}
