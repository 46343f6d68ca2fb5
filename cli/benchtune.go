package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/suite"
)

// benchTune is bench --tune: suite.Tune on the devices --device names,
// printing each table as its search ends.
func benchTune(c *ucli.Context) error {
	repeat := c.Int("repeat")
	if repeat < 1 {
		return usagef("--repeat must be at least 1 (got %d)", repeat)
	}
	if c.IsSet("png") {
		return usagef("--png does not go with --tune (--json does)")
	}
	suites, err := suite.TuneSuites(c.String("suite"))
	if err != nil {
		return usageError{fmt.Errorf("--tune: %w", err)}
	}
	if err := checkOutputFile("json", c.String("json")); err != nil {
		return err
	}
	w := c.App.Writer
	var rep *suite.TuneReport
	err = onDevices(c, "all", false, func(devs []*engine.Device) (err error) {
		rep, err = suite.Tune(c.Context, devs, suites, suite.TuneOptions{Repeat: repeat, Store: !c.Bool("no-save"), Version: Version,
			Log:      func(line string) { fmt.Fprintf(c.App.ErrWriter, "vkstat: %s\n", line) },
			Progress: func(s suite.TuneStep) { printTuneStep(w, s) }})
		if errors.Is(err, suite.ErrNothingToTune) && slices.Contains(devs, nil) {
			err = nil // the CPU path alone: its rates only
		}
		if err == nil {
			err = storeRates(c, devs, suite.RatesOf(c.String("suite")), repeat)
		}
		return err
	})
	switch {
	case errors.Is(err, suite.ErrNothingToTune):
		return fmt.Errorf("--tune: no Vulkan device among --device's (the CPU path has nothing to tune)")
	case errors.Is(err, suite.ErrNoTuneCache):
		return fmt.Errorf("--tune: %w; use --no-save", err)
	case err != nil:
		return err
	}
	if path := c.String("json"); path != "" {
		outs := formats.Outputs{Ctx: c.Context}
		defer outs.Abort()
		outs.Add(path, encodeJSON(rep))
		return outs.Commit()
	}
	return nil
}

// storeRates measures what --device auto weighs of ops on each GPU and
// the CPU path (suite.MeasureRates; not lavapipe or SwiftShader, which
// auto does not weigh) and stores it beside the tune cache
// (tune.StoreRates), over the rates of other operations measured before;
// with --no-save it prints them only.
func storeRates(c *ucli.Context, devs []*engine.Device, ops []string, repeat int) error {
	if len(ops) == 0 {
		return nil
	}
	for _, dev := range devs {
		if dev != nil && !dev.Info.IsGPU() {
			fmt.Fprintf(c.App.ErrWriter, "vkstat: rates: %s skipped (a CPU-type device, which --device auto does not weigh)\n", dev.Info.Name)
			continue
		}
		r, err := suite.MeasureRates(c.Context, dev, ops, repeat, func(line string) { fmt.Fprintf(c.App.ErrWriter, "vkstat: %s\n", line) })
		if err != nil {
			return fmt.Errorf("--tune: rates: %w", err)
		}
		var info *engine.DeviceInfo
		if dev != nil {
			info = &dev.Info
		}
		path, ok := tune.RatesPath(info, engine.CPUThreads())
		if !ok || c.Bool("no-save") || len(r.Ops) == 0 {
			fmt.Fprintf(c.App.Writer, "rates (not stored): %s\n", r.Source)
			continue
		}
		if err := tune.StoreRates(path, r); err != nil {
			return fmt.Errorf("--tune: %w", err)
		}
		fmt.Fprintf(c.App.Writer, "rates stored in %s\n", path)
	}
	return nil
}

// printTuneStep prints a device's heading, a pipeline's table, or where
// the device's winners went.
func printTuneStep(w io.Writer, s suite.TuneStep) {
	e := s.Device
	switch {
	case s.Done && e.Cache != "":
		fmt.Fprintf(w, "stored in %s: %s\n\n", e.Cache, formatChosen(e.Chosen))
	case s.Done:
		fmt.Fprintf(w, "chosen (not stored): %s\n\n", formatChosen(e.Chosen))
	case s.Pipeline == "":
		fmt.Fprintf(w, "## %s (tune key %s)\n\n", e.Device, e.Key)
	default:
		fmt.Fprintf(w, "%s\n\n", strings.Join(e.Tables[s.Pipeline], "\n"))
		if e.Errors[s.Pipeline] != "" {
			fmt.Fprintf(w, "%s: every candidate failed; nothing stored\n\n", s.Pipeline)
		}
	}
}

func formatChosen(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+m[k])
	}
	return strings.Join(parts, "; ")
}
