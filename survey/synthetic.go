package survey

// A synthetic survey (vkstat synth survey): targets as synth paco writes
// them, and their manifest.

import (
	"context"
	"fmt"
	"io"
	"path/filepath"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/synth"
)

// SyntheticTarget is a synthetic survey's target: its name (its folder)
// and its companion.
type SyntheticTarget struct {
	Name      string
	Companion synth.Companion
}

// GenerateError is a synthetic target's configuration that synth.Generate
// refused.
type GenerateError struct{ Err error }

func (e *GenerateError) Error() string { return e.Err.Error() }
func (e *GenerateError) Unwrap() error { return e.Err }

// PrintSynthetic writes what vkstat synth survey prints of targets, the
// survey WriteSynthetic wrote to dir from base: the targets' sequences
// and seeds, then each target's companion.
func PrintSynthetic(w io.Writer, dir string, base synth.Config, targets []SyntheticTarget) {
	n := len(targets)
	fmt.Fprintf(w, "wrote %s: %d targets (%d frames of %d×%d %s, rotation %g°, FWHM %g px, seeds %d..%d), manifest.csv, manifest.json\n",
		dir, n, base.Frames, base.H, base.W, base.DType, base.RotationDeg, base.FWHM, base.Seed, base.Seed+uint64(n-1))
	for _, t := range targets {
		fmt.Fprintf(w, "%s: companion sep %g px, PA %g° east of north, flux %g\n", t.Name, t.Companion.SepPx, t.Companion.PA(), t.Companion.Flux)
	}
}

// WriteSynthetic writes a survey of n synthetic targets to dir, all or
// none: target k (from 0), named synth.SurveyName(k, n), is
// synth.SurveyTarget(base, k) in its folder as FITS (AddDataset, made by
// vkstat synth paco of version), and manifest.csv and manifest.json list
// them (datasetManifest). A target that synth.Generate refuses is a
// *GenerateError.
func WriteSynthetic(ctx context.Context, dir string, base synth.Config, n int, version string) ([]SyntheticTarget, error) {
	out := formats.Outputs{Ctx: ctx}
	defer out.Abort()
	out.CreateDir(dir)
	var targets []SyntheticTarget
	names := make([]string, n)
	for k := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		names[k] = synth.SurveyName(k, n)
		cfg := synth.SurveyTarget(base, k)
		ds, err := synth.Generate(cfg)
		if err != nil {
			return nil, &GenerateError{err}
		}
		if err := AddDataset(&out, filepath.Join(dir, names[k]), ds, []string{".fits"}, "vkstat synth paco", version); err != nil {
			return nil, err
		}
		targets = append(targets, SyntheticTarget{names[k], cfg.Companions[0]})
	}
	csvFile, jsonFile := datasetManifest(names)
	if err := out.Add(filepath.Join(dir, "manifest.csv"), csvFile); err != nil {
		return nil, err
	}
	if err := out.Add(filepath.Join(dir, "manifest.json"), jsonFile); err != nil {
		return nil, err
	}
	return targets, out.Commit()
}
