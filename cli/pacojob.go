package cli

// What `vkstat paco` (one target, its flags) and `vkstat survey run` (many
// targets from a manifest, one device) share on the command line: the
// words of their options and errors, and what a target's analysis tells
// the terminal. The target, its files and its analysis are survey.Target
// (Read, Analyse), its outputs and report survey.WriteTarget and Report.

import (
	"errors"
	"fmt"
	"io"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/pipelines/paco"
	"github.com/vkstat/vkstat/survey"
	"github.com/vkstat/vkstat/tensor"
)

// parseFloatDType is tensor.ParseDType for the flags that take f32 or f64
// only: the 16-bit storage types are refused.
func parseFloatDType(s string) (tensor.DType, error) {
	dt, err := tensor.ParseDType(s)
	if err == nil && dt.Is16() {
		err = fmt.Errorf("unknown precision %q for this command (want f32 or f64; f16 and bf16 storage is for `vkstat latent` and `synth latent`)", s)
	}
	return dt, err
}

// precision is the dtype to compute in for an input of type dt under
// --precision.
func precision(c *ucli.Context, dt tensor.DType) (tensor.DType, error) {
	p := c.String("precision")
	if p == "" || p == "auto" {
		return dt, nil
	}
	d, err := tensor.ParseDType(p)
	if err != nil {
		return 0, usageError{err}
	}
	if d.Is16() {
		return 0, usagef("--precision %s: unknown precision for this command (want f32, f64 or auto); 16-bit storage is for `vkstat latent` only", p)
	}
	return d, nil
}

// pacoPrecision is --precision for PACO: the type to convert the cube to,
// or convert false for auto, the cube's own.
func pacoPrecision(c *ucli.Context) (convert bool, dt tensor.DType, err error) {
	if p := c.String("precision"); p != "" && p != "auto" {
		dt, err = precision(c, 0)
		return err == nil, dt, err
	}
	return false, 0, nil
}

// cpuPrecisionError refuses --precision p (not f64) on the CPU path.
func cpuPrecisionError(p string) error {
	return usagef("--precision %s: the PACO CPU path computes in float64 only; use --precision f64 (or auto) there, or a Vulkan device (--device lavapipe, gpu) for float32", p)
}

// reporter is a survey.Start that sets the options' warnings (prefixed by
// the target's name, if any) and notes to errw and draws the analysis's
// progress bar there.
func reporter(errw io.Writer) survey.Start {
	return func(t *survey.Target, opt *paco.Options) (func(string, float64), func()) {
		prefix := ""
		if t.Name != "" {
			prefix = t.Name + ": "
		}
		bar := newProgress(errw)
		opt.Warn = func(w engine.Warning) {
			fmt.Fprintf(errw, "vkstat: warning: %s%s\n", prefix, w.Words(flagSetting))
		}
		opt.Note = func(msg string) { fmt.Fprintln(errw, msg) }
		return bar.update, bar.done
	}
}

// pacoError words paco.Run's errors for t's options' names
// (Target.OptionErr): a centre asked of a header that has none is a usage
// error.
func pacoError(t *survey.Target, err error) error {
	if errors.Is(err, paco.ErrNoHeaderCenter) {
		return usageError{t.OptionErr(err)}
	}
	return t.OptionErr(err)
}
