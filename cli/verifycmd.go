package cli

import (
	"errors"
	"fmt"
	"strings"

	ucli "github.com/urfave/cli/v2"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/suite"
)

func verifyCommand() *ucli.Command {
	return &ucli.Command{
		Name:  "verify",
		Usage: "check every operation on every device against the float64 reference",
		UsageText: `vkstat verify [--device all|cpu|lavapipe|N|name,...] [--op NAME,...] [--json report.json]
   vkstat verify --compare a.json b.json [--all]`,
		Description: `Runs every operation of the registry, on a set of shapes, in float32 and
float64 (and the latent operations in float16 and bfloat16 storage too,
against the reference of the same rounded values), on each selected device,
and compares each output with the float64 reference: max err is max|got−want|/max|want|, NMSE is Σ(got−want)²/Σwant²,
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
			&ucli.StringFlag{Name: "precision", Aliases: []string{"p"}, Usage: "f32, f64, f16 or bf16 (16-bit storage: the latent operations), or auto for every one an operation has (default: auto; the global --precision is used when given)"},
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
			ops, err := suite.SelectOps(suite.Ops(), strings.Split(c.String("op"), ","))
			if err != nil {
				return usageError{fmt.Errorf("--op: %w", err)}
			}
			if spec := c.String("plant-error"); spec != "" {
				name, where, _ := strings.Cut(spec, ":")
				if ops, err = suite.PlantIn(ops, name, where); err != nil {
					return usageError{fmt.Errorf("--plant-error: %w", err)}
				}
			}
			dts, err := suite.ParsePrecisions(c.String("precision"))
			if err != nil {
				return usageError{err}
			}
			if err := suite.CheckPrecisions(ops, dts); err != nil {
				return usageError{fmt.Errorf("--precision: %w", err)}
			}
			var rep *suite.VerifyReport
			if err := onDevices(c, "all", false, func(devs []*engine.Device) (err error) {
				rep, err = suite.Verify(c.Context, devs, ops, suite.VerifyOptions{Precisions: dts, Version: Version, Validation: c.Bool("validate")})
				return err
			}); err != nil {
				return err
			}
			rep.WriteText(c.App.Writer)
			if path := c.String("json"); path != "" {
				if err := formats.AtomicWriteContext(c.Context, path, formats.JSON(rep)); err != nil {
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

// ---- compare ----------------------------------------------------------------

// compareReports sets the devices of the reports side by side, one column
// per device, and prints the rows whose outcome differs between columns.
func compareReports(c *ucli.Context, paths []string) error {
	cmp, err := suite.CompareFiles(c.App.Writer, paths, c.Bool("all"))
	var me *suite.MissingReportsError
	if errors.As(err, &me) {
		return fmt.Errorf("verify --compare: %v: write each with `vkstat --device DEVICE verify --json FILE` on its machine first (the README's gpu.json needs a GPU)", err)
	}
	if err != nil {
		return err
	}
	if cmp.Differ > 0 {
		return fmt.Errorf("verify --compare: %d row(s) differ", cmp.Differ)
	}
	return nil
}
