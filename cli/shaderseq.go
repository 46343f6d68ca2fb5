package cli

import (
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/shaderlab"
)

// sequenceJob is the job of --case's file, fc, which has steps; sc is the
// command line's case over it (its expect, tolerances and seed).
func sequenceJob(c *ucli.Context, sc shaderlab.Case, fc *shaderlab.Case) (job, error) {
	file := c.String("case")
	if c.NArg() > 0 {
		return job{}, usagef("--case %s has steps, each naming its shader: give no shader file (got %s)", file, strings.Join(c.Args().Slice(), " "))
	}
	for _, f := range []string{"bind", "push", "spec", "uniform", "groups", "global", "define", "include", "target-env", "optimize"} {
		if c.IsSet(f) {
			return job{}, usagef("--%s: the case %s has steps: set it per step in the case file", f, file)
		}
	}
	if err := checkRuns(c); err != nil {
		return job{}, err
	}
	fc.Seed = sc.Seed // the command line's, else the file's
	seq, err := fc.Sequence(file, runOptions(c))
	var ce *shaderlab.CaseError
	if errors.As(err, &ce) {
		return job{}, usagef("--case %s: %v", file, err)
	}
	if err != nil {
		return job{}, fmt.Errorf("--case %s: %w", file, err)
	}
	for _, w := range seq.Warnings() {
		fmt.Fprintln(c.App.ErrWriter, "warning: "+w)
	}
	outs, err := outFiles(c, seq)
	return job{seq, outs}, err
}
