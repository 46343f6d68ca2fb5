package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"text/tabwriter"

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
			dts, err := verifyPrecisions(c)
			if err == nil {
				err = checkPrecisions(ops, dts)
			}
			if err != nil {
				return err
			}
			if err := checkOutputFile("json", c.String("json")); err != nil {
				return err
			}
			var rep *suite.VerifyReport
			if err := onDevices(c, "all", false, func(devs []*engine.Device) (err error) {
				rep, err = suite.Verify(c.Context, devs, ops, suite.VerifyOptions{Precisions: dts, Version: Version, Validation: c.Bool("validate")})
				return err
			}); err != nil {
				return err
			}
			printVerify(c.App.Writer, rep)
			if path := c.String("json"); path != "" {
				if err := writeJSON(c.Context, path, rep); err != nil {
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

// verifyPrecisions reads --precision (the command's, else the global one):
// auto checks every precision an operation has (f32, f64, and f16 and bf16
// storage for the latent operations); f16 and bf16 alone check the
// operations that keep 16-bit storage.
func verifyPrecisions(c *ucli.Context) ([]tensor.DType, error) {
	p := c.String("precision")
	if p == "" || p == "auto" || p == "all" {
		return suite.AllPrecisions, nil
	}
	var dt tensor.DType
	switch p {
	case "f16", "float16":
		dt = tensor.F16
	case "bf16", "bfloat16":
		dt = tensor.BF16
	default:
		var err error
		if dt, err = parseFloatDType(p); err != nil {
			return nil, usageError{fmt.Errorf("%w; verify also takes f16 and bf16 (the latent operations' 16-bit storage)", err)}
		}
	}
	return []tensor.DType{dt}, nil
}

// checkPrecisions refuses precisions that none of ops is checked in (f16
// for the cov operations, say).
func checkPrecisions(ops []suite.Op, dts []tensor.DType) error {
	for _, op := range ops {
		if len(op.Precisions(dts)) > 0 {
			return nil
		}
	}
	return usageError{fmt.Errorf("--precision: none of the operations selected keeps %s storage (the latent operations do)", dts[0])}
}

// ---- reports --------------------------------------------------------------

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

func printVerify(w io.Writer, rep *suite.VerifyReport) {
	for _, d := range rep.Devices {
		fmt.Fprintf(w, "== %s\n", d.Device.Title())
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

func writeJSON(ctx context.Context, path string, v any) error {
	return formats.AtomicWriteContext(ctx, path, encodeJSON(v))
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

func readVerifyReport(path string) (*suite.VerifyReport, error) {
	b, err := formats.ReadText(path, 0, "a verify report")
	if err != nil {
		return nil, err
	}
	rep, err := suite.ParseVerifyReport(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// compareReports sets the devices of the reports side by side, one column
// per device, and prints the rows whose outcome differs between columns.
func compareReports(c *ucli.Context, paths []string) error {
	w := c.App.Writer
	var reps []*suite.VerifyReport
	var names []string
	var missing []string
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("verify --compare: no report %s: write each with `vkstat --device DEVICE verify --json FILE` on its machine first (the README's gpu.json needs a GPU)",
			strings.Join(missing, ", "))
	}
	for i, p := range paths {
		rep, err := readVerifyReport(p)
		if err != nil {
			return err
		}
		reps = append(reps, rep)
		tag := string(rune('A' + i))
		fmt.Fprintf(w, "%s: %s — vkstat %s, %s, %s/%s, %s, validation %v\n", tag, p, rep.VkstatVersion, rep.Date,
			rep.Host.OS, rep.Host.Arch, rep.Host.Hostname, rep.Validation)
		for j, d := range rep.Devices {
			names = append(names, fmt.Sprintf("%s%d", tag, j+1))
			fmt.Fprintf(w, "  %s = %s\n", names[len(names)-1], d.Device.Title())
		}
	}
	cmp := suite.CompareReports(reps...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nOPERATION\tCASE\tPRECISION\t%s\n", strings.Join(names, "\t"))
	shown := 0
	for _, row := range cmp.Rows {
		if !row.Differs && !c.Bool("all") {
			continue
		}
		shown++
		cells := make([]string, len(row.Cells))
		for i, r := range row.Cells {
			switch {
			case r == nil:
				cells[i] = "-"
			case r.Status == suite.Skip:
				cells[i] = "skip"
			default:
				cells[i] = fmt.Sprintf("%s %s/%s", statusWord(r.Status), fmtErr(r.MaxErr), fmtErr(r.NMSE))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", row.Op, row.Case, row.Precision, strings.Join(cells, "\t"))
	}
	if shown > 0 {
		tw.Flush()
	} else {
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "%d of %d rows differ in outcome (pass/FAIL) between the %d devices; cells are max err/NMSE, - where a device has no such row\n", cmp.Differ, len(cmp.Rows), len(cmp.Columns))
	if cmp.Skipped > 0 {
		fmt.Fprintf(w, "%d row(s) are skipped on some device that lacks what they need (float64); a skip is not a difference\n", cmp.Skipped)
	}
	if cmp.Partial > 0 {
		fmt.Fprintf(w, "%d row(s) are missing on some device (different vkstat versions or --op/--precision selections)\n", cmp.Partial)
	}
	if cmp.Differ > 0 {
		return fmt.Errorf("verify --compare: %d row(s) differ", cmp.Differ)
	}
	return nil
}
