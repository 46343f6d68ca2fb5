package cli

import (
	"errors"
	"fmt"
	"slices"

	ucli "github.com/urfave/cli/v2"

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
	w := c.App.Writer
	var rep *suite.TuneReport
	err = onDevices(c, "all", false, func(devs []*engine.Device) (err error) {
		log := func(line string) { fmt.Fprintf(c.App.ErrWriter, "vkstat: %s\n", line) }
		rep, err = suite.Tune(c.Context, devs, suites, suite.TuneOptions{Repeat: repeat, Store: !c.Bool("no-save"), Version: Version,
			Log: log, Progress: func(s suite.TuneStep) { s.WriteText(w) }})
		if errors.Is(err, suite.ErrNothingToTune) && slices.Contains(devs, nil) {
			err = nil // the CPU path alone: its rates only
		}
		if err == nil {
			err = suite.StoreRates(c.Context, devs, suite.RatesOf(c.String("suite")), repeat, !c.Bool("no-save"), log,
				func(line string) { fmt.Fprintln(w, line) })
			if err != nil {
				err = fmt.Errorf("--tune: %w", err)
			}
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
		return formats.AtomicWriteContext(c.Context, path, formats.JSON(rep))
	}
	return nil
}
