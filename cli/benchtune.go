package cli

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/internal/device/tune"
	"github.com/vkstat/vkstat/pipelines/chol"
	"github.com/vkstat/vkstat/pipelines/cov"
	"github.com/vkstat/vkstat/pipelines/mapx"
	"github.com/vkstat/vkstat/pipelines/reduce"
)

// tuners are the tunable pipelines by bench suite name.
var tuners = []struct {
	suite string
	new   func(*engine.Device) tune.Tuner
}{{"map", mapx.Tuner}, {"reduce", reduce.Tuner}, {"cov", cov.Tuner}, {"chol", chol.Tuner}}

// tuneReport is what bench --tune --json writes: per device, each
// pipeline's table and winner, and the cache file it was stored in.
type tuneReport struct {
	Measured  string            `json:"measured"`
	Version   string            `json:"vkstat_version"`
	Devices   []tuneDeviceEntry `json:"devices"`
	LoadAvg   string            `json:"load_avg,omitempty"`
	Repeat    int               `json:"repeat"`
	Stored    bool              `json:"stored"`
	Pipelines []string          `json:"pipelines"`
}

type tuneDeviceEntry struct {
	Device string              `json:"device"`
	Key    string              `json:"key"`
	Cache  string              `json:"cache,omitempty"`
	Tables map[string][]string `json:"tables"`
	Chosen map[string]string   `json:"chosen"`
	Errors map[string]string   `json:"errors,omitempty"`
}

// runTune searches the tunable pipelines of suites on every Vulkan target
// (the CPU path has nothing to tune), prints each table, and stores the
// winners in each device's cache file unless noSave.
func runTune(c *ucli.Context, w io.Writer, ts []*target, suites string, repeat int, noSave bool) (*tuneReport, error) {
	var picked []int
	for _, s := range strings.Split(strings.ToLower(suites), ",") {
		s = strings.TrimSpace(s)
		found := false
		for i, t := range tuners {
			if s == "all" || s == t.suite {
				found = true
				if !slices.Contains(picked, i) {
					picked = append(picked, i)
				}
			}
		}
		if !found {
			names := make([]string, len(tuners))
			for i, t := range tuners {
				names[i] = t.suite
			}
			return nil, usagef("--tune: suite %q has nothing to tune (tunable: %s, or all)", s, strings.Join(names, ", "))
		}
	}
	rep := &tuneReport{Measured: time.Now().UTC().Format(time.RFC3339), Version: Version, LoadAvg: loadAvg(), Repeat: repeat, Stored: !noSave}
	for _, i := range picked {
		rep.Pipelines = append(rep.Pipelines, tuners[i].suite)
	}
	vulkan := false
	for _, t := range ts {
		if t.dev == nil {
			continue
		}
		vulkan = true
		info := t.dev.Info
		// A malformed cache file would fail every candidate (the pipelines
		// read it): the search replaces it, or stops when it may not.
		if path, ok := tune.CachePath(info); ok {
			if _, err := tune.ReadCache(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				if noSave {
					return rep, err
				}
				fmt.Fprintf(c.App.ErrWriter, "vkstat: %v; replacing it\n", err)
				if err := os.Remove(path); err != nil {
					return rep, err
				}
			}
		}
		e := tuneDeviceEntry{Device: info.Name, Key: tune.DeviceKey(info), Tables: map[string][]string{}, Chosen: map[string]string{}}
		fmt.Fprintf(w, "## %s (tune key %s)\n\n", info.Name, e.Key)
		// Each winner is stored as soon as it is found, so a search stopped
		// part way (a time limit, an interrupt) keeps what it measured.
		stored := false
		for _, i := range picked {
			tu := tuners[i].new(t.dev)
			res, err := tune.Search(c.Context, tu, repeat)
			if err != nil {
				return rep, err
			}
			lines := res.Table()
			e.Tables[tu.Pipeline] = lines
			fmt.Fprintln(w, strings.Join(lines, "\n"))
			fmt.Fprintln(w)
			if res.Winner < 0 {
				if e.Errors == nil {
					e.Errors = map[string]string{}
				}
				e.Errors[tu.Pipeline] = "every candidate failed"
				fmt.Fprintf(w, "%s: every candidate failed; nothing stored\n\n", tu.Pipeline)
				continue
			}
			e.Chosen[tu.Pipeline] = tune.Format(res.Rows[res.Winner].Candidate)
			if noSave {
				continue
			}
			path, err := storeWinner(info, e.Key, rep.Measured, tu.Pipeline, res.Rows[res.Winner].Candidate, lines)
			if err != nil {
				return rep, err
			}
			e.Cache, stored = path, true
		}
		if stored {
			fmt.Fprintf(w, "stored in %s: %s\n\n", e.Cache, formatChosen(e.Chosen))
		} else {
			fmt.Fprintf(w, "chosen (not stored): %s\n\n", formatChosen(e.Chosen))
		}
		rep.Devices = append(rep.Devices, e)
	}
	if !vulkan {
		return rep, fmt.Errorf("--tune: no Vulkan device among --device's (the CPU path has nothing to tune)")
	}
	return rep, nil
}

// storeWinner writes one pipeline's winner and its table into the
// device's tune cache, keeping the other pipelines' entries.
func storeWinner(info engine.DeviceInfo, key, measured, pipeline string, cand map[string]any, table []string) (string, error) {
	path, ok := tune.CachePath(info)
	if !ok {
		return "", fmt.Errorf("--tune: no cache folder to store the winners in (VKSTAT_TUNE_DIR is off, or the user has no cache dir); use --no-save")
	}
	cache, err := tune.ReadCache(path)
	if err != nil {
		cache = &tune.Cache{}
	}
	cache.Device, cache.Key, cache.Measured, cache.Version = info.Name, key, measured, Version
	if cache.Pipelines == nil {
		cache.Pipelines = map[string]map[string]any{}
	}
	if cache.Tables == nil {
		cache.Tables = map[string][]string{}
	}
	cache.Pipelines[pipeline] = cand
	cache.Tables[pipeline] = table
	return path, tune.WriteCache(path, cache)
}

func formatChosen(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+m[k])
	}
	return strings.Join(parts, "; ")
}

// benchTune is bench --tune.
func benchTune(c *ucli.Context) error {
	repeat := c.Int("repeat")
	if repeat < 1 {
		return usagef("--repeat must be at least 1 (got %d)", repeat)
	}
	if c.IsSet("png") {
		return usagef("--png does not go with --tune (--json does)")
	}
	if err := checkOutputFile("json", c.String("json")); err != nil {
		return err
	}
	ts, err := openTargets(c)
	if err != nil {
		return err
	}
	rep, err := runTune(c, c.App.Writer, ts, c.String("suite"), repeat, c.Bool("no-save"))
	if cerr := closeTargets(ts); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if path := c.String("json"); path != "" {
		outs := Outputs{Ctx: c.Context}
		defer outs.Abort()
		outs.Add(path, encodeJSON(rep))
		return outs.Commit()
	}
	return nil
}
