package suite

import (
	"context"
	"fmt"
	"log/slog"
	"math"
	"strings"
	"time"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// VerifyKind is the kind field of a verify report.
const VerifyKind = "vkstat-verify-report"

// VerifyOptions shape a Verify run. The zero value checks float32 and
// float64.
type VerifyOptions struct {
	// Precisions are checked in this order for every case of the
	// operations that have a tolerance for them (Op.Precisions); nil
	// checks float32, float64, then float16 and bfloat16 storage.
	Precisions []tensor.DType
	// Version is the caller's vkstat version, recorded in the report.
	Version string
	// Validation records in the report that the devices run with the
	// Vulkan validation layer on.
	Validation bool
	// Progress, when set, is called after each case in each precision,
	// checked on every device.
	Progress func(done, total int)
}

// VerifyDevice is one device's rows of a verify report.
type VerifyDevice struct {
	Device  DeviceRecord `json:"device"`
	Results []Result     `json:"results"`
	Passed  int          `json:"passed"`
	Failed  int          `json:"failed"`
	Skipped int          `json:"skipped"`
}

// VerifyReport is what `vkstat verify --json` writes: every row on every
// device, with what a comparison across machines needs (host, drivers,
// versions).
type VerifyReport struct {
	Kind          string          `json:"kind"`
	VkstatVersion string          `json:"vkstat_version"`
	Date          string          `json:"date"`
	Host          Host            `json:"host"`
	Validation    bool            `json:"validation"`
	Devices       []*VerifyDevice `json:"devices"`
	Passed        int             `json:"passed"`
	Failed        int             `json:"failed"`
	Skipped       int             `json:"skipped"`
}

// count adds a row's outcome to the counters.
func count(passed, failed, skipped *int, s Status) {
	switch s {
	case Pass:
		*passed++
	case Fail:
		*failed++
	default:
		*skipped++
	}
}

// AllPrecisions are what Verify checks by default: float32, float64, and
// the 16-bit storage types where an operation keeps them.
var AllPrecisions = []tensor.DType{tensor.F32, tensor.F64, tensor.F16, tensor.BF16}

// Verify checks every verify case of ops, in each precision, on every
// device of devs (a nil entry is the CPU path) against the float64
// reference: inputs and reference are built once per case and shared by
// the devices. Rows that fail are in the report, not errors; the error is
// ctx's when it is cancelled, with the rows checked until then (a row
// whose run saw the cancellation is left out).
func Verify(ctx context.Context, devs []*engine.Device, ops []Op, opt VerifyOptions) (*VerifyReport, error) {
	dts := opt.Precisions
	if len(dts) == 0 {
		dts = AllPrecisions
	}
	rep := &VerifyReport{Kind: VerifyKind, VkstatVersion: opt.Version, Date: time.Now().UTC().Format(time.RFC3339),
		Host: hostInfo(), Validation: opt.Validation}
	for _, dev := range devs {
		rep.Devices = append(rep.Devices, &VerifyDevice{Device: Describe(dev)})
	}
	total, done := 0, 0
	for _, op := range ops {
		total += len(op.Verify) * len(op.Precisions(dts))
	}
	for _, op := range ops {
		for _, cs := range op.Verify {
			for _, dt := range op.Precisions(dts) {
				if err := ctx.Err(); err != nil {
					return rep, err
				}
				p := Prepare(op, cs, dt)
				for i, dev := range devs {
					r := p.Verify(ctx, dev)
					if err := ctx.Err(); err != nil {
						return rep, err // the row failed because it was cancelled
					}
					r.MaxErr, r.NMSE = finite(r.MaxErr), finite(r.NMSE)
					d := rep.Devices[i]
					slog.Debug("verify", "device", d.Device.Label, "op", r.Op, "case", r.Case, "precision", r.Precision, "status", r.Status, "max_err", r.MaxErr, "nmse", r.NMSE)
					d.Results = append(d.Results, r)
					count(&d.Passed, &d.Failed, &d.Skipped, r.Status)
					count(&rep.Passed, &rep.Failed, &rep.Skipped, r.Status)
				}
				done++
				if opt.Progress != nil {
					opt.Progress(done, total)
				}
			}
		}
	}
	return rep, nil
}

// finite keeps a JSON-encodable number: ±Inf and NaN become the largest
// float64.
func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return math.MaxFloat64
	}
	return v
}

// SelectOps keeps the operations of all that names names: operation or
// suite names, in any case, each operation once, in the order named. No
// name (empty ones are passed over), or "all" among them, keeps every one.
func SelectOps(all []Op, names []string) ([]Op, error) {
	var out []Op
	seen := map[string]bool{}
	for _, name := range names {
		name = strings.TrimSpace(strings.ToLower(name))
		switch name {
		case "":
			continue
		case "all":
			return all, nil
		}
		matched := false
		for _, op := range all {
			if op.Name != name && op.Suite != name {
				continue
			}
			matched = true
			if !seen[op.Name] {
				out = append(out, op)
				seen[op.Name] = true
			}
		}
		if !matched { // a name whose operations an earlier one took is no error
			have := make([]string, len(all))
			for i, op := range all {
				have[i] = op.Name
			}
			return nil, fmt.Errorf("no operation or suite %q (have %s)", name, strings.Join(have, ", "))
		}
	}
	if len(seen) == 0 {
		return all, nil
	}
	return out, nil
}

// PlantIn returns ops with the outputs of the operation named name
// perturbed by PlantError on the devices that where names: "" (every
// device), "cpu" (the CPU path), "vulkan" (every Vulkan device) or part of
// a Vulkan device's name, in any case. It is the check that verify
// catches a wrong kernel.
func PlantIn(ops []Op, name, where string) ([]Op, error) {
	where = strings.ToLower(strings.TrimSpace(where))
	on := func(dev *engine.Device) bool {
		switch where {
		case "":
			return true
		case "cpu":
			return dev == nil
		case "vulkan":
			return dev != nil
		}
		return dev != nil && strings.Contains(strings.ToLower(dev.Info.Name), where)
	}
	out := append([]Op(nil), ops...)
	for i, op := range out {
		if op.Name == name {
			out[i] = Perturb(op, PlantError, on)
			return out, nil
		}
	}
	return nil, fmt.Errorf("no operation %q among those selected", name)
}
