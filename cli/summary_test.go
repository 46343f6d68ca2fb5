package cli

import (
	"bytes"
	"encoding/json"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// TestJSONSummaries: --json prints one JSON object on stdout, naming the
// command and every file written with its type and shape (the arrays'
// shapes as the text gives them), for reduce, cov, chol, stack and latent.
func TestJSONSummaries(t *testing.T) {
	dir := t.TempDir()
	p := func(s string) string { return filepath.Join(dir, s) }
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(60), 3, 4, 5))
	spd := writeNPY(t, dir, "spd.npy", tensor.FromF64([]float64{4, 2, 2, 3, 1, 0, 0, -1}, 2, 2, 2))
	lat := p("lat.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,3,4,8,8", "--out", lat); code != 0 {
		t.Fatal(stderr)
	}
	cases := []struct {
		args   []string
		files  map[string]string // path → "dtype shape"
		fields []string          // other keys the object has
	}{
		{[]string{"reduce", "--in", x, "--axis", "1,2", "--stat", "mean,max", "--out-dir", p("r")},
			map[string]string{p("r/mean.npy"): "float64 [3]", p("r/max.npy"): "float64 [3]"}, []string{"device", "axis", "input"}},
		{[]string{"cov", "--in", x, "--estimator", "oas", "--out-cov", p("C.npy"), "--out-rho", p("rho.npy")},
			map[string]string{p("C.npy"): "float64 [3 5 5]", p("rho.npy"): "float64 [3]"}, []string{"sets", "samples", "variables", "rho", "nan_sets"}},
		{[]string{"chol", "--in", spd, "--out-logdet", p("ld.npy"), "--out-info", p("info.npy")},
			map[string]string{p("ld.npy"): "float64 [2]", p("info.npy"): "int32 [2]"}, []string{"matrices", "size", "failed", "failures"}},
		{[]string{"latent", "--in", lat, "--stat", "moments", "--out-dir", p("l")}, nil, []string{"input", "device", "files"}},
	}
	if formats.HaveGDAL {
		synthStack(t, p("slc"), "--dates", "2", "--shape", "12,10")
		cases = append(cases, struct {
			args   []string
			files  map[string]string
			fields []string
		}{[]string{"stack", "--stat", "mean", "--window", "1,2,3,4", "--out-dir", p("s"), "@" + p("slc/dates.txt")},
			map[string]string{p("s/mean.tif"): " "}, []string{"dates", "looks", "window", "columns", "rows", "empty_pixels"}})
	}
	for _, c := range cases {
		args := append([]string{"--device", "cpu", c.args[0], "--json"}, c.args[1:]...)
		code, stdout, stderr := run(t, args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, stderr)
		}
		var doc map[string]any
		if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
			t.Fatalf("%s --json: %v:\n%s", c.args[0], err, stdout)
		}
		if doc["command"] != c.args[0] {
			t.Errorf("%s --json: command %v", c.args[0], doc["command"])
		}
		for _, k := range c.fields {
			if _, ok := doc[k]; !ok {
				t.Errorf("%s --json lacks %q:\n%s", c.args[0], k, stdout)
			}
		}
		files, _ := doc["files"].([]any)
		got := map[string]string{}
		for _, f := range files {
			if m, ok := f.(map[string]any); ok {
				shape := ""
				if s, ok := m["shape"]; ok {
					shape = strings.ReplaceAll(strings.Trim(strings.ReplaceAll(jsonText(t, s), ",", " "), "[]"), "  ", " ")
					shape = "[" + shape + "]"
				}
				dt, _ := m["dtype"].(string)
				got[m["path"].(string)] = dt + " " + shape
			}
		}
		for path, want := range c.files {
			if got[path] != want {
				t.Errorf("%s --json: %s is %q, want %q (files %v)", c.args[0], path, got[path], want, got)
			}
		}
	}
}

func jsonText(t *testing.T, v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestQuiet: --quiet, before or after the command, draws no progress bar
// (one that has waited its two seconds draws otherwise); warnings still
// reach stderr.
func TestQuiet(t *testing.T) {
	var loud, hush bytes.Buffer
	for _, c := range []struct {
		w    *bytes.Buffer
		wrap bool
	}{{&loud, false}, {&hush, true}} {
		var w io.Writer = c.w
		if c.wrap {
			w = quietWriter{c.w}
		}
		p := newProgress(w)
		p.start = time.Now().Add(-time.Minute)
		p.update("date 1/2", 0.5)
		p.done()
	}
	if loud.Len() == 0 || hush.Len() != 0 {
		t.Errorf("progress drew %q, and %q under --quiet", loud.String(), hush.String())
	}
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(3), 3))
	for _, args := range [][]string{{"--quiet", "reduce"}, {"reduce", "-q"}} {
		code, _, stderr := run(t, append(append([]string{"--device", "cpu"}, args...), "--in", x, "--stat", "var", "--ddof", "3", "--out-dir", filepath.Join(dir, "o"))...)
		if code != 0 || !strings.Contains(stderr, "warning: --ddof 3") {
			t.Errorf("%v: exit %d, stderr %q: want the ddof warning still", args, code, stderr)
		}
	}
	app := New(&bytes.Buffer{}, &bytes.Buffer{})
	if err := app.Run([]string{"vkstat", "--device", "cpu", "reduce", "--quiet", "--in", x, "--out-dir", filepath.Join(dir, "p")}); err != nil {
		t.Fatal(err)
	}
	if _, ok := app.ErrWriter.(quietWriter); !ok {
		t.Errorf("reduce --quiet: stderr is %T, not the quiet writer progress bars check", app.ErrWriter)
	}
}

// TestNoValidationLayer: --validate without the validation layer installed
// is an error that names --validate and the package to install, not a
// usage error worded as if --device were wrong.
func TestNoValidationLayer(t *testing.T) {
	vulkanUnderTest(t)
	t.Setenv("VK_LAYER_PATH", t.TempDir()) // no layers there
	t.Setenv("VK_ADD_LAYER_PATH", "")
	dir := t.TempDir()
	x := writeNPY(t, dir, "x.npy", tensor.FromF64(ramp(4), 4))
	code, _, stderr := run(t, "--validate", "reduce", "--in", x, "--out-dir", filepath.Join(dir, "o"))
	if code != ExitError || !strings.Contains(stderr, "vkstat: --validate (or VKSTAT_VALIDATE=1): the Vulkan validation layer is not available") ||
		!strings.Contains(stderr, "vulkan-validationlayers") || strings.Contains(stderr, "--device validation") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}
