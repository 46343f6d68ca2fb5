package survey_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/pipelines/synth"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

// TestRunStart: each target's analysis is heard by the progress its
// Start returned, and ends (end called once) before its outputs are
// written to Dir/<name>/ (Check asked of each before its files are read)
// and Done is called; a target that fails before its analysis (a missing
// cube) is never started and writes nothing.
func TestRunStart(t *testing.T) {
	dir := t.TempDir()
	ds, err := synth.Generate(synth.Config{H: 24, W: 24, Frames: 12, RotationDeg: 90, FWHM: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteNPY(filepath.Join(dir, "cube.npy"), ds.Cube); err != nil {
		t.Fatal(err)
	}
	if err := formats.WriteNPY(filepath.Join(dir, "angles.npy"), tensor.FromF64(ds.Angles, len(ds.Angles))); err != nil {
		t.Fatal(err)
	}
	manifest := filepath.Join(dir, "manifest.csv")
	csv := "name,cube,angles\na,cube.npy,angles.npy\nb,missing.npy,angles.npy\n"
	if err := os.WriteFile(manifest, []byte(csv), 0o644); err != nil {
		t.Fatal(err)
	}
	man, err := survey.ReadManifest(manifest, survey.Defaults{"fwhm": "3", "radius": "2", "quick-contrast": "true"})
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	heard := map[string]int{}
	var mu sync.Mutex // progress may be called from several goroutines at once
	out := filepath.Join(dir, "out")
	var checked []string
	opt := survey.RunOptions{
		Dir:   out,
		Check: func(d string) error { checked = append(checked, d); return nil },
		Start: func(tg *survey.Target, o *paco.Options) (func(string, float64), func()) {
			events = append(events, "start "+tg.Name)
			return func(string, float64) { mu.Lock(); heard[tg.Name]++; mu.Unlock() }, func() { events = append(events, "end "+tg.Name) }
		},
		Done: func(tg *survey.Target, _ *survey.Inputs, _ *paco.Result) error {
			if _, err := os.Stat(filepath.Join(out, tg.Name, "summary.txt")); err != nil {
				t.Errorf("%s done before its outputs: %v", tg.Name, err)
			}
			events = append(events, "done "+tg.Name)
			return nil
		},
	}
	table, err := survey.Run(context.Background(), nil, man, opt)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"start a", "end a", "done a"}; len(events) != 3 || events[0] != want[0] || events[1] != want[1] || events[2] != want[2] {
		t.Errorf("events %v, want %v", events, want)
	}
	if len(checked) != 2 || checked[0] != filepath.Join(out, "a") || checked[1] != filepath.Join(out, "b") {
		t.Errorf("checked %v, want a's and b's folders", checked)
	}
	if _, err := os.Stat(filepath.Join(out, "b")); !os.IsNotExist(err) {
		t.Errorf("the failed target's folder: %v", err)
	}
	if heard["a"] == 0 || heard["b"] != 0 {
		t.Errorf("progress heard %v, want a's stages only", heard)
	}
	if len(table.Rows) != 2 || table.Rows[0].Status != "ok" || table.Rows[1].Status == "ok" {
		t.Errorf("rows %+v", table.Rows)
	}
}

// TestAnalyseTruthWarnings: angles that are the truth file's negated are
// warned of through the options' Warn, before the run's own warnings, and
// returned beside the result; the right angles give no such warning.
func TestAnalyseTruthWarnings(t *testing.T) {
	ds, err := synth.Generate(synth.Config{H: 24, W: 24, Frames: 12, RotationDeg: 90, FWHM: 3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	truth := ds.TruthFile("test", "v", nil)
	opt := paco.DefaultOptions()
	opt.FWHM, opt.Radius, opt.QuickContrast = 3, 2, true
	tg := &survey.Target{Name: "a", Options: opt}
	for _, negate := range []bool{false, true} {
		angles := append([]float64(nil), ds.Angles...)
		for i := range angles {
			if negate {
				angles[i] = -angles[i]
			}
		}
		var heard []string
		start := func(_ *survey.Target, o *paco.Options) (func(string, float64), func()) {
			o.Warn = func(w engine.Warning) { heard = append(heard, w.Code) }
			return nil, nil
		}
		res, before, err := tg.Analyse(context.Background(), nil, &survey.Inputs{Cube: ds.Cube, Angles: angles, Truth: &truth}, start)
		if err != nil {
			t.Fatal(err)
		}
		if warned := len(before) == 1 && before[0].Code == paco.WarnTruthAngles && len(heard) > 0 && heard[0] == paco.WarnTruthAngles; warned != negate || (!negate && len(before) != 0) {
			t.Errorf("negated %v: returned %v, heard %v", negate, before, heard)
		}
		if res == nil || len(heard) != len(before)+len(res.Warnings) {
			t.Errorf("negated %v: heard %v, want the truth's %d warnings and the run's %d", negate, heard, len(before), len(res.Warnings))
		}
	}
}
