package cli

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/shaderlab"
)

// sequenceJob is a case's sequence and the files its buffers go to.
type sequenceJob struct {
	*shaderlab.Sequence
	outs []string // per buffer, its --out or --out-dir file, or ""
}

func (j *sequenceJob) files() []string { return j.outs }

// sequenceCase is the sequence of --case's file, which has steps; sc is
// the command line's case over it (its expect, tolerances and seed).
func sequenceCase(c *ucli.Context, sc shaderlab.Case, fc *shaderlab.Case) (*sequenceJob, error) {
	file := c.String("case")
	if c.NArg() > 0 {
		return nil, usagef("--case %s has steps, each naming its shader: give no shader file (got %s)", file, strings.Join(c.Args().Slice(), " "))
	}
	for _, f := range []string{"bind", "push", "spec", "uniform", "groups", "global", "define", "include", "target-env", "optimize"} {
		if c.IsSet(f) {
			return nil, usagef("--%s: the case %s has steps: set it per step in the case file", f, file)
		}
	}
	if err := checkRuns(c); err != nil {
		return nil, err
	}
	fc.Seed = sc.Seed // the command line's, else the file's
	seq, err := fc.Sequence(filepath.Dir(file), runOptions(c))
	var ce *shaderlab.CaseError
	if errors.As(err, &ce) {
		return nil, usagef("--case %s: %v", file, err)
	}
	if err != nil {
		return nil, fmt.Errorf("--case %s: %w", file, err)
	}
	for _, w := range seq.Warnings() {
		fmt.Fprintln(c.App.ErrWriter, "warning: "+w)
	}
	outs, err := outFiles(c, seq, len(seq.Buffers), func(i int) bool { return seq.Names[i] != "" })
	if err != nil {
		return nil, err
	}
	j := &sequenceJob{Sequence: seq, outs: outs}
	return j, checkOuts(c, j.outs)
}
