package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

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

// TuneSuites returns the suites that spec names (comma-separated, or
// "all") in the order named, each once, or an error when one has nothing
// to tune.
func TuneSuites(spec string) ([]string, error) {
	var out []string
	for _, s := range strings.Split(strings.ToLower(spec), ",") {
		s = strings.TrimSpace(s)
		found := false
		for _, t := range tuners {
			if s == "all" || s == t.suite {
				found = true
				if !slices.Contains(out, t.suite) {
					out = append(out, t.suite)
				}
			}
		}
		if !found {
			names := make([]string, len(tuners))
			for i, t := range tuners {
				names[i] = t.suite
			}
			return nil, fmt.Errorf("suite %q has nothing to tune (tunable: %s, or all)", s, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// ErrNoTuneCache is Tune's error when it is to store the winners but the
// user has no cache folder for them.
var ErrNoTuneCache = errors.New("no cache folder to store the winners in (VKSTAT_TUNE_DIR is off, or the user has no cache dir)")

// ErrNothingToTune is Tune's error when no Vulkan device is among its
// devices.
var ErrNothingToTune = errors.New("no Vulkan device (the CPU path has nothing to tune)")

// TuneOptions shape a Tune run.
type TuneOptions struct {
	// Repeat is the number of timed rounds per candidate and case (the
	// median is kept); 0 means 5.
	Repeat int
	// Store writes each winner into the device's tune cache
	// (tune.CachePath), where every later run on the device reads it.
	Store bool
	// Version is the caller's vkstat version, recorded in the report and
	// the cache.
	Version string
	// Progress, when set, is told of each step as it ends.
	Progress func(TuneStep)
	// Log, when set, receives warnings (a malformed cache file replaced).
	Log func(line string)
}

// TuneStep is a step of a Tune run: a device's search starting (Pipeline
// empty, Done false), one pipeline searched on it (Pipeline: its table,
// choice or error are in Device), or the device done (Done).
type TuneStep struct {
	Device   *TuneDevice
	Pipeline string
	Done     bool
}

// TuneReport is what `vkstat bench --tune --json` writes: per device,
// each pipeline's table and winner, and the cache file it was stored in.
type TuneReport struct {
	Measured  string       `json:"measured"`
	Version   string       `json:"vkstat_version"`
	Devices   []TuneDevice `json:"devices"`
	LoadAvg   string       `json:"load_avg,omitempty"`
	Repeat    int          `json:"repeat"`
	Stored    bool         `json:"stored"`
	Pipelines []string     `json:"pipelines"`
}

// TuneDevice is one device's search.
type TuneDevice struct {
	Device string `json:"device"`
	Key    string `json:"key"`
	// Cache is the tune cache file the winners were stored in, empty
	// where none was.
	Cache string `json:"cache,omitempty"`
	// Tables are each pipeline's candidates and times (tune.Result's
	// Table), Chosen its winner, Errors why it has none.
	Tables map[string][]string `json:"tables"`
	Chosen map[string]string   `json:"chosen"`
	Errors map[string]string   `json:"errors,omitempty"`
}

// Tune searches the parameters of the tunable pipelines of suites (see
// TuneSuites) on every Vulkan device of devs (the CPU path, a nil entry,
// has nothing to tune) with tune.Search, and with opt.Store stores each
// winner in the device's tune cache as soon as it is found, so that a
// search stopped part way keeps what it measured. A malformed cache file
// is replaced when storing, and an error otherwise (the pipelines read
// it, so every candidate would fail). On an error the report holds the
// devices searched until then.
func Tune(ctx context.Context, devs []*engine.Device, suites []string, opt TuneOptions) (*TuneReport, error) {
	if opt.Repeat == 0 {
		opt.Repeat = 5
	}
	var picked []func(*engine.Device) tune.Tuner
	for _, s := range suites {
		var mk func(*engine.Device) tune.Tuner
		for _, t := range tuners {
			if t.suite == s {
				mk = t.new
			}
		}
		if mk == nil {
			_, err := TuneSuites(s)
			return nil, err
		}
		picked = append(picked, mk)
	}
	rep := &TuneReport{Measured: time.Now().UTC().Format(time.RFC3339), Version: opt.Version, LoadAvg: loadAvg(), Repeat: opt.Repeat,
		Stored: opt.Store, Pipelines: slices.Clone(suites)}
	progress := func(s TuneStep) {
		if opt.Progress != nil {
			opt.Progress(s)
		}
	}
	vulkan := false
	for _, dev := range devs {
		if dev == nil {
			continue
		}
		vulkan = true
		info := dev.Info
		if path, ok := tune.CachePath(info); ok {
			if _, err := tune.ReadCache(path); err != nil && !errors.Is(err, os.ErrNotExist) {
				if !opt.Store {
					return rep, err
				}
				if opt.Log != nil {
					opt.Log(fmt.Sprintf("%v; replacing it", err))
				}
				if err := os.Remove(path); err != nil {
					return rep, err
				}
			}
		}
		e := &TuneDevice{Device: info.Name, Key: tune.DeviceKey(info), Tables: map[string][]string{}, Chosen: map[string]string{}}
		progress(TuneStep{Device: e})
		for _, mk := range picked {
			tu := mk(dev)
			res, err := tune.Search(ctx, tu, opt.Repeat)
			if err != nil {
				return rep, err
			}
			lines := res.Table()
			e.Tables[tu.Pipeline] = lines
			if res.Winner < 0 {
				if e.Errors == nil {
					e.Errors = map[string]string{}
				}
				e.Errors[tu.Pipeline] = "every candidate failed"
			} else {
				e.Chosen[tu.Pipeline] = tune.Format(res.Rows[res.Winner].Candidate)
			}
			progress(TuneStep{Device: e, Pipeline: tu.Pipeline})
			if res.Winner < 0 || !opt.Store {
				continue
			}
			path, err := storeWinner(info, e.Key, rep.Measured, opt.Version, tu.Pipeline, res.Rows[res.Winner].Candidate, lines)
			if err != nil {
				return rep, err
			}
			e.Cache = path
		}
		progress(TuneStep{Device: e, Done: true})
		rep.Devices = append(rep.Devices, *e)
	}
	if !vulkan {
		return rep, ErrNothingToTune
	}
	return rep, nil
}

// storeWinner writes one pipeline's winner and its table into the
// device's tune cache, keeping the other pipelines' entries.
func storeWinner(info engine.DeviceInfo, key, measured, version, pipeline string, cand map[string]any, table []string) (string, error) {
	path, ok := tune.CachePath(info)
	if !ok {
		return "", ErrNoTuneCache
	}
	cache, err := tune.ReadCache(path)
	if err != nil {
		cache = &tune.Cache{}
	}
	cache.Device, cache.Key, cache.Measured, cache.Version = info.Name, key, measured, version
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
