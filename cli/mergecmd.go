package cli

import (
	"errors"
	"fmt"
	"maps"
	"path/filepath"
	"time"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/outputs"
	"github.com/vkstat/vkstat/partials"
	"github.com/vkstat/vkstat/tensor"
)

func mergeCommand() *ucli.Command {
	return &ucli.Command{
		Name:      "merge",
		Usage:     "merge the partial results of the shards of one job (reduce, stack and latent with their partial flag) into the outputs one run gives",
		ArgsUsage: "PARTIAL_DIR...",
		UsageText: "vkstat merge --out-dir DIR PARTIAL_DIR...",
		Description: `Reads the folders that vkstat reduce --partial, vkstat stack --partial and
vkstat latent --partial wrote for the shards of one job (each holds
partial.json, which says how it was made, and float64 arrays), checks that
they were made alike (the same workload and settings; a folder given twice,
a date in two stack shards, and latent shards whose samples overlap or
leave a gap are refused), merges them exactly (counts and sums add; means
and central moments follow Chan, Golub and LeVeque's and Pébay's pairwise
updates; latent's per-sample results join in sample order, its spectral
slopes are fitted after the merge) and writes to --out-dir what one run
over all the shards' data writes, with the settings the shards were run
with. The order of the folders does not matter. docs/scale.md shows a Slurm array of shards and
its merge.

Examples:
   vkstat merge --out-dir stats/ parts/p1 parts/p2 parts/p3
   vkstat merge --out-dir stats/ parts/*/`,
		Flags: []ucli.Flag{
			&ucli.StringFlag{Name: "out-dir", Aliases: []string{"out", "o"}, Usage: "folder for the merged outputs (created if missing)"},
			jsonFlag(),
		},
		Action: mergeAction,
	}
}

func mergeAction(c *ucli.Context) error {
	if err := requireFlag(c, "out-dir"); err != nil {
		return err
	}
	if c.NArg() == 0 {
		return usagef("merge: give the folders of the shards' partials (reduce, stack or latent with --partial)")
	}
	dir := c.String("out-dir")
	var shards []*partials.Shard
	for _, a := range c.Args().Slice() {
		s, err := partials.Read(a)
		if err != nil {
			return fmt.Errorf("merge: %w", err)
		}
		shards = append(shards, s)
	}
	err := partials.Check(shards)
	var se *partials.SettingsError
	if errors.As(err, &se) {
		return errors.New("merge: " + se.Format(func(k, v string) string {
			if partials.Facts[k] {
				return k + " " + v
			}
			return "--" + k + " " + v
		}))
	}
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	switch w := shards[0].Header.Workload; w {
	case "reduce":
		return mergeReduce(c, dir, shards)
	case "stack":
		return mergeStack(c, dir, shards)
	case "latent":
		return mergeLatent(c, dir, shards)
	default:
		return fmt.Errorf("merge: %s: partials of %q, which this vkstat cannot merge", shards[0].Dir, w)
	}
}

// mergeReduce merges reduce's partials and writes the statistics their
// settings name.
func mergeReduce(c *ucli.Context, dir string, shards []*partials.Shard) error {
	t0 := time.Now()
	m, stats, out, err := partials.MergeReduce(shards)
	if err != nil {
		return fmt.Errorf("merge: %w", err)
	}
	set := shards[0].Header.Settings
	sum := newSummary(c)
	sum.set("partials", len(shards))
	sum.set("rows", m.Rows)
	sum.set("axis", set["axis"])
	sum.line("merged:\t%d partials of reduce, %d rows along the axis (%.3f s)", len(shards), m.Rows, time.Since(t0).Seconds())
	return writeReduce(c, dir, stats, out, sum)
}

// setFlags adds to settings every flag of c's command that its command
// line set, but those in skip, and the global flags named, as text.
func setFlags(c *ucli.Context, settings map[string]string, skip map[string]bool, globals ...string) {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if c.IsSet(name) && !skip[name] {
			settings[name] = fmt.Sprint(c.Value(name))
		}
	}
	for _, g := range globals {
		if c.IsSet(g) {
			settings[g] = c.String(g)
		}
	}
}

// writePartial writes the partial (h, arrays) of command by into dir, all
// or nothing, and prints the summary: figures, and line for the header.
func writePartial(c *ucli.Context, dir, by string, h partials.Header, arrays map[string]*tensor.Tensor, figures map[string]any, line string) error {
	h.Version = Version
	if err := partials.Write(c.Context, dir, by, h, arrays); err != nil {
		return err
	}
	sum := newSummary(c)
	maps.Copy(sum.doc, figures)
	hp := filepath.Join(dir, partials.HeaderName)
	sum.file(outputs.File{Path: hp, Line: hp + "\t" + line})
	return sum.print(c)
}
