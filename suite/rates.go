package suite

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
	"github.com/vkstat/vkstat/workloads"
)

// RateOps are the operations --device auto has rates for (engine.Job.Op):
// the workloads it prices (workloads.Priced), each timed by MeasureRates
// on the registry operation of the same name.
var RateOps = workloads.Priced()

// RatesOf are the operations of the suites spec names (comma-separated,
// or "all"), as bench --suite takes them, that have rates (RateOps).
func RatesOf(spec string) []string {
	if strings.TrimSpace(spec) == "all" {
		return RateOps
	}
	var out []string
	for _, s := range strings.Split(spec, ",") {
		if s = strings.TrimSpace(s); slices.Contains(RateOps, s) {
			out = append(out, s)
		}
	}
	return out
}

// StoreRates measures what --device auto weighs of ops (MeasureRates) on
// each GPU of devs and the CPU path (a nil entry), not on lavapipe or
// SwiftShader, which auto does not weigh, and, with store, stores each
// device's beside its tune cache (tune.StoreRates), over the rates of
// other operations measured before. log gets what is skipped and
// measured, report where each device's rates went.
func StoreRates(ctx context.Context, devs []*engine.Device, ops []string, repeat int, store bool, log, report func(string)) error {
	if len(ops) == 0 {
		return nil
	}
	for _, dev := range devs {
		if dev != nil && !dev.Info.IsGPU() {
			log(fmt.Sprintf("rates: %s skipped (a CPU-type device, which --device auto does not weigh)", dev.Info.Name))
			continue
		}
		r, err := MeasureRates(ctx, dev, ops, repeat, log)
		if err != nil {
			return fmt.Errorf("rates: %w", err)
		}
		var info *engine.DeviceInfo
		if dev != nil {
			info = &dev.Info
		}
		path, ok := tune.RatesPath(info, engine.CPUThreads())
		if !ok || !store || len(r.Ops) == 0 {
			report("rates (not stored): " + r.Source)
			continue
		}
		if err := tune.StoreRates(path, r); err != nil {
			return err
		}
		report("rates stored in " + path)
	}
	return nil
}

// MeasureRates measures what --device auto weighs on dev (nil: the CPU
// path, on GOMAXPROCS threads). A Vulkan device is opened again
// (Device.Again), as a new process would open it: its start-up, and each
// operation's first call on its smallest verify case (pipelines created),
// are what a process pays once. Then, per operation, that case's steady
// wall time gives OpRate.FixedMs, and bench's small float32 case its rate:
// flops over kernel time (GPU timestamps; the whole call on the CPU path),
// and, on a device, what its bytes cost besides the kernel (OpRate.GBs).
// Each figure is the median of repeat runs after one warm-up.
// Only the operations named in which are measured (nil: RateOps).
func MeasureRates(ctx context.Context, dev *engine.Device, which []string, repeat int, log func(string)) (engine.Rates, error) {
	var r engine.Rates
	label := "the CPU path"
	if dev != nil {
		label = dev.Info.Name
		fresh, st, err := dev.Again()
		if err != nil {
			return r, err
		}
		defer fresh.Close()
		dev = fresh
		r.StartupMs, r.GPU = ms(st.Total()), dev.Info.IsGPU()
	}
	if dev == nil {
		label = fmt.Sprintf("the CPU path (%d threads)", runtime.GOMAXPROCS(0))
	}
	r.Source = fmt.Sprintf("measured by vkstat bench --tune on %s, %s", label, time.Now().UTC().Format("2006-01-02"))
	r.Ops = map[string]engine.OpRate{}
	byName := map[string]Op{}
	for _, o := range Ops() {
		byName[o.Name] = o
	}
	if which == nil {
		which = RateOps
	}
	for _, name := range which {
		op, ok := byName[name]
		if !ok || len(op.Verify) == 0 || len(op.Bench[Small]) == 0 || op.Skip(dev, tensor.F32) != "" {
			continue
		}
		tiny, small := op.Verify[0], op.Bench[Small][0].Case
		tinyIn, smallIn := op.Build(tiny, tensor.F32), op.Build(small, tensor.F32)
		t0 := time.Now()
		if _, _, err := op.Run(ctx, dev, tiny, tinyIn); err != nil {
			return r, fmt.Errorf("%s on %s: %w", name, label, err)
		}
		first := time.Since(t0)
		mt, err := Measure(ctx, dev, op, tiny, tinyIn, 1, repeat)
		if err != nil {
			return r, fmt.Errorf("%s on %s: %w", name, label, err)
		}
		ms1, err := Measure(ctx, dev, op, small, smallIn, 1, repeat)
		if err != nil {
			return r, fmt.Errorf("%s on %s: %w", name, label, err)
		}
		w := op.Work(small, tensor.F32)
		kernel := ms1.Kernel
		if dev == nil || !ms1.GPUTimed {
			kernel = ms1.Wall
		}
		o := engine.OpRate{Flops: float64(w.Flops) / max(kernel.Seconds(), 1e-9), FixedMs: ms(mt.Wall), FirstMs: max(ms(first-mt.Wall), 0)}
		if rest := ms1.Wall - kernel - mt.Wall; dev != nil && rest > 0 {
			o.GBs = float64(w.Bytes) / rest.Seconds() / 1e9
		}
		r.Ops[name] = o
		if log != nil {
			log(fmt.Sprintf("rates of %s on %s: %.3g flop/s, fixed %.2f ms, first call +%.1f ms, bytes at %.3g GB/s", name, label, o.Flops, o.FixedMs, o.FirstMs, o.GBs))
		}
	}
	return r, nil
}
