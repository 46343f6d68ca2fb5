package suite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/vkstat/vkstat/device/tune"
	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// tunable returns the registered operations that have a Tuning, by suite.
func tunable() []Op {
	var out []Op
	for _, op := range Ops() {
		if op.Tune != nil {
			out = append(out, op)
		}
	}
	return out
}

// TuneSuites returns the suites that spec names (comma-separated, or
// "all") in the order named, each once, or an error when one has nothing
// to tune.
func TuneSuites(spec string) ([]string, error) {
	ops := tunable()
	var out []string
	for _, s := range strings.Split(strings.ToLower(spec), ",") {
		s = strings.TrimSpace(s)
		found := false
		for _, op := range ops {
			if s == "all" || s == op.Suite {
				found = true
				if !slices.Contains(out, op.Suite) {
					out = append(out, op.Suite)
				}
			}
		}
		if !found {
			names := make([]string, len(ops))
			for i, op := range ops {
				names[i] = op.Suite
			}
			return nil, fmt.Errorf("suite %q has nothing to tune (tunable: %s, or all)", s, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// Tuner is op's search on dev for tune.Search: op.Tune's candidates, each
// checked (Verify's comparison against op's tolerance: a wrong but fast
// candidate is left out) and timed on op.Tune's cases for dev, and checked
// first on its hard cases where dev has float64. The kernel time (GPU
// timestamps, else the wall time) is what is compared. Each case's inputs
// and reference are built once, when first run.
func Tuner(op Op, dev *engine.Device) tune.Tuner {
	tu := op.Tune
	cases := tu.GPU
	if dev.Info.IsCPU() {
		cases = tu.CPU
	}
	t := tune.Tuner{Pipeline: tu.Pipeline, Candidates: tu.Candidates(dev)}
	var hard []BenchCase
	if dev.Info.Float64 {
		hard = tu.Hard
	}
	prepared := map[*BenchCase]*Prepared{}
	prepare := func(c *BenchCase) *Prepared {
		if prepared[c] == nil {
			prepared[c] = Prepare(op, c.Case, c.DType)
		}
		return prepared[c]
	}
	check := func(ctx context.Context, c *BenchCase) error {
		tol, ok := op.Tol[c.DType]
		if !ok && c.DType.Is16() {
			tol = op.Tol[tensor.F32]
		}
		if r := prepare(c).verify(ctx, dev, tol); r.Status != Pass {
			return fmt.Errorf("%s: a wrong result, left out", r.Detail)
		}
		return nil
	}
	for i := range cases {
		t.Cases = append(t.Cases, cases[i].Label()+" "+cases[i].DType.String())
	}
	for i := range hard {
		t.Hard = append(t.Hard, hard[i].Label()+" "+hard[i].DType.String())
	}
	t.Check = func(ctx context.Context, h int) error { return check(ctx, &hard[h]) }
	t.Run = func(ctx context.Context, c int, checkFirst bool) (time.Duration, error) {
		if checkFirst {
			return 0, check(ctx, &cases[c])
		}
		p := prepare(&cases[c])
		_, tm, err := op.Run(ctx, dev, p.Case, p.In)
		if err != nil {
			return 0, err
		}
		if tm.Kernel > 0 {
			return tm.Kernel, nil
		}
		return tm.Wall, nil
	}
	return t
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
	var picked []Op
	ops := tunable()
	for _, name := range suites {
		i := slices.IndexFunc(ops, func(op Op) bool { return op.Suite == name })
		if i < 0 {
			_, err := TuneSuites(name)
			return nil, err
		}
		picked = append(picked, ops[i])
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
		for _, op := range picked {
			tu := Tuner(op, dev)
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
