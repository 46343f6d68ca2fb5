package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"reflect"
	"slices"
	"strconv"
	"testing"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/workloads"
)

// workloadParams are the parameter descriptions of the workloads whose
// command makes its flags from them (paramFlags): those whose Spec has
// Params.
func workloadParams() map[string][]engine.Param {
	out := map[string][]engine.Param{}
	for _, s := range workloads.All {
		if s.Params != nil {
			out[s.Name] = s.Params()
		}
	}
	return out
}

// TestFlagsAreTheParams: every described parameter's flag on its command
// is the flag the description makes (paramFlags): its default, what the
// default means and its help are the description's, so a flag that states
// a default, a range or a help text of its own fails here.
func TestFlagsAreTheParams(t *testing.T) {
	app := New(io.Discard, io.Discard)
	for name, params := range workloadParams() {
		flags := flagsOf(app.Command(name))
		if flags == nil {
			t.Errorf("no command %s", name)
			continue
		}
		want := paramFlags(params)
		for i, p := range params {
			if got := flags[paramFlag(p)]; !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%s --%s: %#v, the description's is %#v", name, paramFlag(p), got, want[i])
			}
		}
	}
}

// flagsOf are cmd's flags by name; nil without a command.
func flagsOf(cmd *ucli.Command) map[string]ucli.Flag {
	if cmd == nil {
		return nil
	}
	flags := map[string]ucli.Flag{}
	for _, f := range cmd.Flags {
		flags[f.Names()[0]] = f
	}
	return flags
}

// notWorkloads are the pipeline packages that are no workload of the front
// ends, and why.
var notWorkloads = map[string]string{"synth": "makes test data; vkstat synth's flags are its own"}

// TestEveryWorkloadListed: every package under pipelines/ is in the
// registry (workloads.All), or says why not, so a new workload's defaults
// are held to its command's flags from the start.
func TestEveryWorkloadListed(t *testing.T) {
	dirs, err := os.ReadDir("../pipelines")
	if errors.Is(err, fs.ErrNotExist) {
		t.Skip("needs the source tree's pipelines/, which a packed test binary (scripts/gpu-run.sh, CI's packed run) has not")
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range dirs {
		name := d.Name()
		if name == "mapx" { // the package of vkstat map
			name = "map"
		}
		if d.IsDir() && !slices.Contains(workloads.Names(), name) && notWorkloads[d.Name()] == "" {
			t.Errorf("pipelines/%s: not in workloads.All (nor notWorkloads)", d.Name())
		}
	}
}

// TestFlagDefaults: every parameter a workload gives a default (its
// Spec's Defaults, the one source the flags must show) has a flag on its
// command (named as flagName names it), whose default is the workload's; a
// flag that hard-codes another value fails here. A workload with no
// command of its own (Spec.RunBy) is held to its defaults once it has one.
func TestFlagDefaults(t *testing.T) {
	app := New(io.Discard, io.Discard)
	for _, spec := range workloads.All {
		name, defaults := spec.Name, spec.Defaults()
		cmd := app.Command(name)
		if by := spec.RunBy; by != "" {
			if cmd != nil {
				t.Errorf("%s has a command now: take RunBy out of its Spec (%s ran it)", name, by)
			}
			continue
		}
		flags := flagsOf(cmd)
		if flags == nil {
			t.Errorf("no command %s", name)
			continue
		}
		var params []engine.Param
		if spec.Params != nil {
			params = spec.Params()
		}
		for field, want := range defaults {
			flag := survey.ColumnName(field)
			p := engine.FindParam(params, field)
			if p != nil {
				flag = paramFlag(*p)
			}
			f, ok := flags[flag]
			if !ok {
				t.Errorf("%s: no flag --%s for the workload's %s", name, flag, field)
				continue
			}
			if p != nil && p.Output { // --out-<flag> FILE, no default
				want = ""
			}
			if got, want := flagDefault(f), shownDefault(want); got != want {
				t.Errorf("%s --%s: default %q, the workload's %s is %q", name, flag, got, field, want)
			}
		}
	}
}

// flagDefault is f's default as its flag takes it.
func flagDefault(f ucli.Flag) string {
	switch f := f.(type) {
	case *ucli.StringFlag:
		return f.Value
	case *ucli.IntFlag:
		return strconv.Itoa(f.Value)
	case *ucli.Float64Flag:
		return strconv.FormatFloat(f.Value, 'g', -1, 64)
	case *ucli.BoolFlag:
		return strconv.FormatBool(f.Value)
	case *ucli.Float64SliceFlag: // comma-separated, as a list's default is shown
		return shownDefault(f.Value.Value())
	}
	return fmt.Sprintf("%T", f)
}
