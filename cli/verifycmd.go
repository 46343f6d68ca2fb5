package cli

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math"
	"os"
	"runtime"
	"strings"
	"text/tabwriter"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/suite"
	"github.com/vkstat/vkstat/tensor"
)

func verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "verify",
		Usage: "check every operation on every device against the float64 reference",
		UsageText: `vkstat verify [--device all|cpu|lavapipe|N|name,...] [--op NAME,...] [--json report.json]
   vkstat verify --compare a.json b.json [--all]`,
		Description: `Runs every operation of the registry, on a set of shapes, in float32 and
float64, on each selected device, and compares each output with the float64
reference: max err is max|got−want|/max|want|, NMSE is Σ(got−want)²/Σwant²,
and a NaN or Inf where the reference has none (or the other way round) is a
failure. Each operation has its own tolerances. A device without a feature
(float64 on a GPU without shaderFloat64) has those rows skipped, not failed.
Prints a table per device; the exit status is 1 when any row fails.

--device takes all (the default: the CPU path and every Vulkan device), vulkan
(every Vulkan device), or a comma-separated list of what --device takes
elsewhere (cpu, gpu, lavapipe, an index, part of a name). --validate turns the
Vulkan validation layer on: any message it reports fails the row.

--json writes a report with the device, driver, Vulkan API version, vkstat
version and host, so that reports from different machines and vendors can be
set side by side: --compare A.json B.json [C.json ...] prints the rows whose
outcome (pass or FAIL) differs between the devices of the reports (--all
prints every row), and exits 1 when there is any such row. A row a device
skips (it lacks float64) is not a difference.

Examples:
   vkstat verify
   vkstat verify --device lavapipe --json lavapipe.json
   vkstat --validate verify --device gpu --json h100.json
   vkstat verify --compare lavapipe.json h100.json
   vkstat --disable float64 verify --device lavapipe --json nofp64.json   # the kernels for devices without float64`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "device", Aliases: []string{"d"}, Usage: "devices to check: all, vulkan, or a comma-separated list (default: all; the global --device is used when given)"},
			&ucli.StringFlag{Name: "op", Usage: "comma-separated operations or suites to check (default: every one)"},
			&ucli.StringFlag{Name: "precision", Aliases: []string{"p"}, Usage: "f32, f64, or auto for both (default: auto; the global --precision is used when given)"},
			&ucli.StringFlag{Name: "json", Usage: "write the report to this file"},
			&ucli.BoolFlag{Name: "compare", Usage: "compare the reports given as arguments (two or more) instead of running"},
			&ucli.BoolFlag{Name: "all", Usage: "with --compare: print every row, not only the differences"},
			&ucli.StringFlag{Name: "plant-error", Hidden: true, Usage: "OP[:cpu|vulkan|NAME]: perturb one element of every output of OP, on those devices (checks that verify catches errors)"},
		},
		Action: func(c *ucli.Context) error {
			if !c.Bool("compare") && c.IsSet("all") {
				return usagef("verify: --all goes with --compare (it prints every row of the comparison, not only the differences)")
			}
			if c.Bool("compare") {
				for _, f := range []string{"device", "op", "precision", "json", "plant-error"} {
					if c.IsSet(f) {
						return usagef("verify --compare: --%s is for a run, not a comparison of reports", f)
					}
				}
				if c.NArg() < 2 {
					return usagef("verify --compare takes two or more report files, got %d argument(s)", c.NArg())
				}
				return compareReports(c, c.Args().Slice())
			}
			if c.NArg() > 0 {
				return usagef("verify: unexpected argument %q", c.Args().First())
			}
			ops, err := selectOps(suite.Ops(), c.String("op"))
			if err != nil {
				return err
			}
			if spec := c.String("plant-error"); spec != "" {
				if ops, err = plantError(ops, spec); err != nil {
					return err
				}
			}
			dts, err := verifyPrecisions(c)
			if err != nil {
				return err
			}
			if err := checkOutputFile("json", c.String("json")); err != nil {
				return err
			}
			ts, err := openTargets(c)
			if err != nil {
				return err
			}
			rep := runVerify(c, ts, ops, dts)
			if err := closeTargets(ts); err != nil {
				return err
			}
			printVerify(c.App.Writer, rep)
			if path := c.String("json"); path != "" {
				if err := writeJSON(path, rep); err != nil {
					return err
				}
			}
			if rep.Failed > 0 {
				return fmt.Errorf("verify: %d of %d checks failed", rep.Failed, rep.Passed+rep.Failed)
			}
			return nil
		},
	}
}

// plantError perturbs the outputs of the operation that spec names,
// OP or OP:WHERE, WHERE being cpu, vulkan, or part of a Vulkan device's
// name: the check that verify catches a wrong kernel.
func plantError(ops []suite.Op, spec string) ([]suite.Op, error) {
	name, where, _ := strings.Cut(spec, ":")
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
	out := append([]suite.Op(nil), ops...)
	for i, op := range out {
		if op.Name == name {
			out[i] = suite.Perturb(op, suite.PlantError, on)
			return out, nil
		}
	}
	return nil, usagef("--plant-error: no operation %q among those selected", name)
}

// selectOps keeps the operations named in spec (operation or suite names,
// comma-separated); empty keeps all.
func selectOps(all []suite.Op, spec string) ([]suite.Op, error) {
	if strings.TrimSpace(spec) == "" || spec == "all" {
		return all, nil
	}
	var out []suite.Op
	seen := map[string]bool{}
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(strings.ToLower(name))
		if name == "" {
			continue
		}
		n := len(out)
		for _, op := range all {
			if (op.Name == name || op.Suite == name) && !seen[op.Name] {
				out = append(out, op)
				seen[op.Name] = true
			}
		}
		if len(out) == n {
			var names []string
			for _, op := range all {
				names = append(names, op.Name)
			}
			return nil, usagef("--op: no operation or suite %q (have %s)", name, strings.Join(names, ", "))
		}
	}
	return out, nil
}

// verifyPrecisions reads --precision (the command's, else the global one):
// auto checks both.
func verifyPrecisions(c *ucli.Context) ([]tensor.DType, error) {
	p, _ := lineageString(c, "precision")
	if p == "" || p == "auto" || p == "all" {
		return []tensor.DType{tensor.F32, tensor.F64}, nil
	}
	dt, err := parseFloatDType(p)
	if err != nil {
		return nil, usageError{err}
	}
	return []tensor.DType{dt}, nil
}

// ---- devices --------------------------------------------------------------

// deviceRecord identifies a device in reports so that reports from
// different machines can be compared.
type deviceRecord struct {
	Label         string `json:"label"`
	Path          string `json:"path"` // "vulkan" or "cpu"
	Index         int    `json:"index"`
	Name          string `json:"name"`
	Type          string `json:"type"`
	Vendor        string `json:"vendor"`
	Driver        string `json:"driver,omitempty"`
	DriverInfo    string `json:"driver_info,omitempty"`
	DriverVersion string `json:"driver_version,omitempty"`
	APIVersion    string `json:"api_version,omitempty"`
	Float64       bool   `json:"float64"`
	Timestamps    bool   `json:"timestamps"`
	Threads       int    `json:"threads,omitempty"`
}

// title is the device's one-line description.
func (d deviceRecord) title() string {
	if d.Path == "cpu" {
		return fmt.Sprintf("cpu: %s (%s, %d threads)", d.Name, d.Driver, d.Threads)
	}
	drv := strings.TrimSpace(d.Driver + " " + d.DriverInfo)
	if drv == "" {
		drv = "driver " + d.DriverVersion
	}
	return fmt.Sprintf("%d: %s (%s, %s, %s, Vulkan %s)", d.Index, d.Name, d.Type, d.Vendor, drv, d.APIVersion)
}

func cpuRecord() deviceRecord {
	return deviceRecord{Label: "cpu", Path: "cpu", Index: engine.CPUPath, Name: "CPU path (native Go)", Type: "cpu",
		Vendor: cpuModel(), Driver: runtime.Version(), Float64: true, Timestamps: false, Threads: runtime.GOMAXPROCS(0)}
}

func vulkanRecord(in engine.DeviceInfo) deviceRecord {
	return deviceRecord{Label: in.Name, Path: "vulkan", Index: in.Index, Name: in.Name, Type: in.Type, Vendor: in.Vendor,
		Driver: in.Driver, DriverInfo: in.DriverInfo, DriverVersion: in.DriverVersion, APIVersion: in.APIVersion,
		Float64: in.Float64, Timestamps: in.Timestamps}
}

// target is one device a multi-device command runs on; dev is nil for the
// CPU path.
type target struct {
	rec  deviceRecord
	dev  *engine.Device
	inst *engine.Instance // set on the first Vulkan target: closed last
}

// lineageString returns the value of flag name from the innermost command
// where it was set (on the command line or by its environment variable).
func lineageString(c *ucli.Context, name string) (string, bool) {
	for _, x := range c.Lineage() {
		if x.IsSet(name) {
			return x.String(name), true
		}
	}
	return "", false
}

// lineageBool reports whether a boolean flag is on at any level.
func lineageBool(c *ucli.Context, name string) bool {
	for _, x := range c.Lineage() {
		if x.IsSet(name) && x.Bool(name) {
			return true
		}
	}
	return false
}

// openTargets opens the devices that --device names (the command's own
// flag, else the global one, else all): "all" is the CPU path and every
// Vulkan device, "vulkan" every Vulkan device, anything else a
// comma-separated list of what engine.Select takes. Without a Vulkan
// loader, all and auto fall back to the CPU path.
func openTargets(c *ucli.Context) ([]*target, error) {
	opt, err := deviceOptions(c) // a bad option is an error on every path
	if err != nil {
		return nil, err
	}
	spec, ok := lineageString(c, "device")
	if !ok || strings.TrimSpace(spec) == "" {
		spec = "all"
	}
	validate := lineageBool(c, "validate")
	var items []string
	needVulkan, fallback := false, true
	for _, s := range strings.Split(spec, ",") {
		if s = strings.TrimSpace(strings.ToLower(s)); s != "" {
			items = append(items, s)
			needVulkan = needVulkan || s != "cpu"
			fallback = fallback && (s == "all" || s == "auto" || s == "cpu")
		}
	}
	var inst *engine.Instance
	var infos []engine.DeviceInfo
	if needVulkan {
		var err error
		inst, err = engine.NewInstance(engine.Options{Validate: validate})
		if err != nil {
			if !fallback || validate || !(errors.Is(err, engine.ErrNoLoader) || errors.Is(err, engine.ErrNoDriver)) {
				return nil, deviceError(spec, err)
			}
			fmt.Fprintf(c.App.ErrWriter, "vkstat: %s, so the CPU path only: %v\n", vulkanCause(err), err)
			inst = nil
		} else {
			infos = inst.Devices()
		}
	}
	var idx []int
	seen := map[int]bool{}
	add := func(i int) {
		if !seen[i] {
			seen[i] = true
			idx = append(idx, i)
		}
	}
	for _, s := range items {
		switch {
		case s == "cpu":
			add(engine.CPUPath)
		case s == "all":
			add(engine.CPUPath)
			for _, in := range infos {
				add(in.Index)
			}
		case s == "vulkan":
			if len(infos) == 0 {
				inst.Close()
				return nil, fmt.Errorf("--device vulkan: the Vulkan loader found no device")
			}
			for _, in := range infos {
				add(in.Index)
			}
		case inst == nil: // auto without a loader
			add(engine.CPUPath)
		default:
			i, err := engine.Select(infos, s)
			if err != nil {
				inst.Close()
				return nil, deviceError(s, err)
			}
			add(i)
		}
	}
	var ts []*target
	owner := false // a target holds inst
	for _, i := range idx {
		if i == engine.CPUPath {
			ts = append(ts, &target{rec: cpuRecord()})
			continue
		}
		d, err := inst.OpenWith(i, opt)
		if err != nil {
			closeTargets(ts)
			if !owner {
				inst.Close()
			}
			return nil, err
		}
		t := &target{rec: vulkanRecord(d.Info), dev: d}
		if !owner {
			t.inst, owner = inst, true
		}
		ts = append(ts, t)
	}
	if inst != nil && !owner {
		if err := inst.Close(); err != nil {
			return nil, err
		}
	}
	return ts, nil
}

// closeTargets closes every device, then the instance; validation messages
// raised on the way (leaks) are returned.
func closeTargets(ts []*target) error {
	var err error
	var inst *engine.Instance
	for _, t := range ts {
		if t.dev != nil {
			err = errors.Join(err, t.dev.Close())
			t.dev = nil
		}
		if t.inst != nil {
			inst, t.inst = t.inst, nil
		}
	}
	if inst != nil {
		err = errors.Join(err, inst.Close())
	}
	return err
}

// ---- reports --------------------------------------------------------------

type hostRecord struct {
	Hostname string `json:"hostname"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPU      string `json:"cpu"`
	CPUs     int    `json:"cpus"`
	Go       string `json:"go"`
}

func hostInfo() hostRecord {
	h, _ := os.Hostname()
	return hostRecord{Hostname: h, OS: runtime.GOOS, Arch: runtime.GOARCH, CPU: cpuModel(), CPUs: runtime.NumCPU(), Go: runtime.Version()}
}

func cpuModel() string {
	b, err := os.ReadFile("/proc/cpuinfo")
	if err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(line, ":"); ok && strings.TrimSpace(k) == "model name" {
				return strings.TrimSpace(v)
			}
		}
	}
	return runtime.GOARCH
}

type verifyDevice struct {
	Device  deviceRecord   `json:"device"`
	Results []suite.Result `json:"results"`
	Passed  int            `json:"passed"`
	Failed  int            `json:"failed"`
	Skipped int            `json:"skipped"`
}

type verifyReport struct {
	Kind          string          `json:"kind"`
	VkstatVersion string          `json:"vkstat_version"`
	Date          string          `json:"date"`
	Host          hostRecord      `json:"host"`
	Validation    bool            `json:"validation"`
	Devices       []*verifyDevice `json:"devices"`
	Passed        int             `json:"passed"`
	Failed        int             `json:"failed"`
	Skipped       int             `json:"skipped"`
}

const verifyKind = "vkstat-verify-report"

// runVerify checks each case once per precision on every target: inputs and
// reference are built once and shared by the devices.
func runVerify(c *ucli.Context, ts []*target, ops []suite.Op, dts []tensor.DType) *verifyReport {
	rep := &verifyReport{Kind: verifyKind, VkstatVersion: Version, Date: time.Now().UTC().Format(time.RFC3339),
		Host: hostInfo(), Validation: lineageBool(c, "validate")}
	for _, t := range ts {
		rep.Devices = append(rep.Devices, &verifyDevice{Device: t.rec})
	}
	for _, op := range ops {
		for _, cs := range op.Verify {
			for _, dt := range dts {
				if c.Context.Err() != nil {
					return rep
				}
				p := suite.Prepare(op, cs, dt)
				for i, t := range ts {
					r := p.Verify(c.Context, t.dev)
					r.MaxErr, r.NMSE = finite(r.MaxErr), finite(r.NMSE)
					slog.Debug("verify", "device", t.rec.Label, "op", r.Op, "case", r.Case, "precision", r.Precision, "status", r.Status, "max_err", r.MaxErr, "nmse", r.NMSE)
					d := rep.Devices[i]
					d.Results = append(d.Results, r)
					switch r.Status {
					case suite.Pass:
						d.Passed++
						rep.Passed++
					case suite.Fail:
						d.Failed++
						rep.Failed++
					default:
						d.Skipped++
						rep.Skipped++
					}
				}
			}
		}
	}
	return rep
}

// finite keeps a JSON-encodable number: ±Inf and NaN become the largest
// float64.
func finite(v float64) float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return math.MaxFloat64
	}
	return v
}

func fmtErr(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.2e", v)
}

func statusWord(s suite.Status) string {
	if s == suite.Fail {
		return "FAIL"
	}
	return string(s)
}

func printVerify(w io.Writer, rep *verifyReport) {
	for _, d := range rep.Devices {
		fmt.Fprintf(w, "== %s\n", d.Device.title())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "OPERATION\tCASE\tPRECISION\tMAX ERR\tNMSE\tTOL (MAX/NMSE)\tRESULT\tDETAIL")
		for _, r := range d.Results {
			detail := r.Detail
			if r.Status == suite.Pass {
				detail = ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.0e/%.0e\t%s\t%s\n", r.Op, r.Case, r.Precision,
				fmtErr(r.MaxErr), fmtErr(r.NMSE), r.Tol.MaxErr, r.Tol.NMSE, statusWord(r.Status), detail)
		}
		tw.Flush()
		fmt.Fprintf(w, "%d passed, %d failed, %d skipped\n\n", d.Passed, d.Failed, d.Skipped)
	}
	verdict := "all passed"
	if rep.Failed > 0 {
		verdict = "FAILED"
	}
	fmt.Fprintf(w, "verify: %s: %d passed, %d failed, %d skipped on %d device(s); vkstat %s\n",
		verdict, rep.Passed, rep.Failed, rep.Skipped, len(rep.Devices), rep.VkstatVersion)
}

func writeJSON(path string, v any) error {
	return formats.AtomicWrite(path, encodeJSON(v))
}

// encodeJSON writes v as indented JSON.
func encodeJSON(v any) func(w io.Writer) error {
	return func(w io.Writer) error {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
}

// ---- compare ----------------------------------------------------------------

func readVerifyReport(path string) (*verifyReport, error) {
	b, err := formats.ReadText(path, 0, "a verify report")
	if err != nil {
		return nil, err
	}
	var rep verifyReport
	if err := json.Unmarshal(b, &rep); err != nil {
		return nil, fmt.Errorf("%s: not a verify report: %w", path, err)
	}
	if rep.Kind != verifyKind {
		return nil, fmt.Errorf("%s: not a verify report (kind %q, want %q)", path, rep.Kind, verifyKind)
	}
	return &rep, nil
}

// compareReports sets the devices of the reports side by side, one column
// per device, and prints the rows whose outcome differs between columns.
func compareReports(c *ucli.Context, paths []string) error {
	w := c.App.Writer
	var cols []*verifyDevice
	var names []string
	var keys []string
	seen := map[string]bool{}
	for i, p := range paths {
		rep, err := readVerifyReport(p)
		if err != nil {
			return err
		}
		tag := string(rune('A' + i))
		fmt.Fprintf(w, "%s: %s — vkstat %s, %s, %s/%s, %s, validation %v\n", tag, p, rep.VkstatVersion, rep.Date,
			rep.Host.OS, rep.Host.Arch, rep.Host.Hostname, rep.Validation)
		for j, d := range rep.Devices {
			name := fmt.Sprintf("%s%d", tag, j+1)
			fmt.Fprintf(w, "  %s = %s\n", name, d.Device.title())
			cols = append(cols, d)
			names = append(names, name)
			for _, r := range d.Results {
				if k := r.Key(); !seen[k] {
					seen[k] = true
					keys = append(keys, k)
				}
			}
		}
	}
	type cell struct {
		r  suite.Result
		ok bool
	}
	grid := make([]map[string]cell, len(cols))
	for i, d := range cols {
		grid[i] = map[string]cell{}
		for _, r := range d.Results {
			grid[i][r.Key()] = cell{r, true}
		}
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nOPERATION\tCASE\tPRECISION\t%s\n", strings.Join(names, "\t"))
	differ, shown, partial, skipped := 0, 0, 0, 0
	for _, k := range keys {
		var first suite.Result
		statuses := map[suite.Status]bool{}
		missing, skip := false, false
		for i := range cols {
			x, ok := grid[i][k]
			switch {
			case !ok:
				missing = true
				continue
			case x.r.Status == suite.Skip: // the device cannot run it (no float64): no outcome to compare
				skip = true
			default:
				statuses[x.r.Status] = true
			}
			first = x.r
		}
		diff := len(statuses) > 1
		if diff {
			differ++
		}
		if missing {
			partial++
		}
		if skip {
			skipped++
		}
		if !diff && !c.Bool("all") {
			continue
		}
		shown++
		cells := make([]string, len(cols))
		for i := range cols {
			x, ok := grid[i][k]
			switch {
			case !ok:
				cells[i] = "-"
			case x.r.Status == suite.Skip:
				cells[i] = "skip"
			default:
				cells[i] = fmt.Sprintf("%s %s/%s", statusWord(x.r.Status), fmtErr(x.r.MaxErr), fmtErr(x.r.NMSE))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", first.Op, first.Case, first.Precision, strings.Join(cells, "\t"))
	}
	if shown > 0 {
		tw.Flush()
	} else {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d rows differ in outcome (pass/FAIL) between the %d devices; cells are max err/NMSE, - where a device has no such row\n", differ, len(keys), len(cols))
	if skipped > 0 {
		fmt.Fprintf(w, "%d row(s) are skipped on some device that lacks what they need (float64); a skip is not a difference\n", skipped)
	}
	if partial > 0 {
		fmt.Fprintf(w, "%d row(s) are missing on some device (different vkstat versions or --op/--precision selections)\n", partial)
	}
	if differ > 0 {
		return fmt.Errorf("verify --compare: %d row(s) differ", differ)
	}
	return nil
}
