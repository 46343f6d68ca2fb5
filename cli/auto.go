package cli

import (
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
	"github.com/vkstat/vkstat/workloads"
)

// openSessionFor opens the device --device names for a call that does
// job. With --device auto (the default) it is the path whose estimate for
// the job is least, the CPU path included, from each path's rates (tune
// rates files that `vkstat bench --tune` writes, else built-in estimates;
// tune.Auto), counting a device's start-up, since the command is a
// process of its own. A job the CPU path wins runs there without loading
// Vulkan at all when the machine's GPUs are known from an earlier listing
// (tune.Census, which every command that lists the devices keeps), or
// when no GPU could start before the CPU path is done. With --validate,
// auto is the best GPU as before: a validated run is a check of the GPU
// path.
func openSessionFor(c *ucli.Context, job engine.Job) (*session, error) {
	if spec := strings.TrimSpace(c.String("device")); spec != "" && !strings.EqualFold(spec, "auto") || c.Bool("validate") || job.Op == "" {
		return openSession(c)
	}
	ch, ok, choose := tune.Auto(job, engine.CPUThreads(), workloads.Rates())
	if ok {
		if _, err := deviceOptions(c); err != nil { // a bad option is an error on every path
			return nil, err
		}
		return &session{set: &engine.Set{Devices: []*engine.Device{nil}}, c: c, RunTiming: engine.RunTiming{Why: ch.Why}}, nil
	}
	return openSessionWith(c, choose)
}

// priced is the job of a call of spec's workload that its cost model (the
// package's Work) sized as w; a call it could not size (err) is the zero
// Job, for which auto is the best GPU as without a job. The commands size
// their calls as auto always has, not by every option they were given: a
// reduce as its mean and std, a chol as one solve, a stack as complex
// samples, a PACO with its radius (nearest placement).
func priced(spec engine.Spec) func(w engine.Work, err error) engine.Job {
	return func(w engine.Work, err error) engine.Job {
		if err != nil {
			return engine.Job{}
		}
		return w.Job(spec.Name)
	}
}

// headerJob is job of the shape and precision of the array in file path,
// read from its header alone (an NPY file's; formats.OpenSource), for a
// command that opens the device while it reads its inputs; a file whose
// header is not read so (FITS) is the zero Job: auto is then the best GPU.
func headerJob(path string, job func(shape []int, dt tensor.DType) engine.Job) engine.Job {
	src, c, err := formats.OpenSource(path)
	if err != nil {
		return engine.Job{}
	}
	c.Close()
	return job(src.Shape, src.DType)
}
