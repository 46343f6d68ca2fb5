package suite

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/tensor"
)

// The textual forms of the runs' results: `vkstat verify`'s tables and
// verdict, verify --compare's side-by-side rows, `vkstat bench`'s Markdown
// tables and `bench --tune`'s steps.

// fmtErr is an error figure: 0, or three significant digits.
func fmtErr(v float64) string {
	if v == 0 {
		return "0"
	}
	return fmt.Sprintf("%.2e", v)
}

// Word is s as the tables print it: FAIL stands out.
func (s Status) Word() string {
	if s == Fail {
		return "FAIL"
	}
	return string(s)
}

// WriteText writes the report as `vkstat verify` prints it: a table per
// device (max err, NMSE, tolerance, result, and why a row did not pass),
// its counts, and the verdict over every device.
func (rep *VerifyReport) WriteText(w io.Writer) {
	for _, d := range rep.Devices {
		fmt.Fprintf(w, "== %s\n", d.Device.Title())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "OPERATION\tCASE\tPRECISION\tMAX ERR\tNMSE\tTOL (MAX/NMSE)\tRESULT\tDETAIL")
		for _, r := range d.Results {
			detail := r.Detail
			if r.Status == Pass {
				detail = ""
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.0e/%.0e\t%s\t%s\n", r.Op, r.Case, r.Precision,
				fmtErr(r.MaxErr), fmtErr(r.NMSE), r.Tol.MaxErr, r.Tol.NMSE, r.Status.Word(), detail)
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

// ParsePrecisions reads a choice of precisions: auto, all or "" is
// AllPrecisions (each operation in every one it has), f32, f64, f16 or
// bf16 (or a longer name tensor.ParseDType takes) that one alone.
func ParsePrecisions(p string) ([]tensor.DType, error) {
	if p == "" || p == "auto" || p == "all" {
		return AllPrecisions, nil
	}
	dt, err := tensor.ParseDType(p)
	if err != nil {
		return nil, fmt.Errorf("%w; verify also takes f16 and bf16 (the latent operations' 16-bit storage)", err)
	}
	return []tensor.DType{dt}, nil
}

// CheckPrecisions returns an error when none of ops is checked in any of
// dts (f16 for the cov operations, say).
func CheckPrecisions(ops []Op, dts []tensor.DType) error {
	for _, op := range ops {
		if len(op.Precisions(dts)) > 0 {
			return nil
		}
	}
	return fmt.Errorf("none of the operations selected keeps %s storage (the latent operations do)", dts[0])
}

// MissingReportsError names the reports to compare that do not exist.
type MissingReportsError struct{ Paths []string }

func (e *MissingReportsError) Error() string { return "no report " + strings.Join(e.Paths, ", ") }

// CompareFiles reads the reports a verify run wrote (--json) from paths
// and writes their comparison (WriteComparison). Reports missing are one
// *MissingReportsError naming them all, before any is read.
func CompareFiles(w io.Writer, paths []string, all bool) (Comparison, error) {
	var missing []string
	for _, p := range paths {
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			missing = append(missing, p)
		}
	}
	if len(missing) > 0 {
		return Comparison{}, &MissingReportsError{missing}
	}
	reps := make([]*VerifyReport, len(paths))
	for i, p := range paths {
		var err error
		if reps[i], err = ReadVerifyReport(p); err != nil {
			return Comparison{}, err
		}
	}
	return WriteComparison(w, paths, reps, all), nil
}

// ReadVerifyReport reads the report a verify run wrote (--json) from path.
func ReadVerifyReport(path string) (*VerifyReport, error) {
	b, err := formats.ReadText(path, 0, "a verify report")
	if err != nil {
		return nil, err
	}
	rep, err := ParseVerifyReport(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return rep, nil
}

// WriteComparison sets the devices of reps (read from paths) side by
// side, one column per device (A1, A2, B1, ...), writes the rows whose
// outcome differs between columns (every row with all) and what the
// comparison found, and returns it.
func WriteComparison(w io.Writer, paths []string, reps []*VerifyReport, all bool) Comparison {
	var names []string
	for i, rep := range reps {
		tag := string(rune('A' + i))
		fmt.Fprintf(w, "%s: %s — vkstat %s, %s, %s/%s, %s, validation %v\n", tag, paths[i], rep.VkstatVersion, rep.Date,
			rep.Host.OS, rep.Host.Arch, rep.Host.Hostname, rep.Validation)
		for j, d := range rep.Devices {
			names = append(names, fmt.Sprintf("%s%d", tag, j+1))
			fmt.Fprintf(w, "  %s = %s\n", names[len(names)-1], d.Device.Title())
		}
	}
	cmp := CompareReports(reps...)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "\nOPERATION\tCASE\tPRECISION\t%s\n", strings.Join(names, "\t"))
	shown := 0
	for _, row := range cmp.Rows {
		if !row.Differs && !all {
			continue
		}
		shown++
		cells := make([]string, len(row.Cells))
		for i, r := range row.Cells {
			switch {
			case r == nil:
				cells[i] = "-"
			case r.Status == Skip:
				cells[i] = "skip"
			default:
				cells[i] = fmt.Sprintf("%s %s/%s", r.Status.Word(), fmtErr(r.MaxErr), fmtErr(r.NMSE))
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
	return cmp
}

// fmtNum is a figure of a bench table: – for none, three significant
// digits below 10.
func fmtNum(v float64) string {
	switch {
	case v == 0:
		return "–"
	case v >= 100:
		return fmt.Sprintf("%.0f", v)
	case v >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.3g", v)
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// WriteMarkdown writes the report as `vkstat bench` prints it: a heading,
// a table of each device's copy and link bandwidth, and a table of every
// case, the devices' rows of a case together.
func (rep *BenchReport) WriteMarkdown(w io.Writer) {
	warm := fmt.Sprintf("%d warm-up", rep.Warmup)
	if rep.Warmup == WarmupByTime {
		warm = "warm-up for a time"
	}
	fmt.Fprintf(w, "# vkstat bench (%s size, median of %d after %s)\n\n", rep.Size, rep.Repeat, warm)
	fmt.Fprintf(w, "vkstat %s, %s, %s\n\n", rep.VkstatVersion, rep.Date, rep.Host.CPU)
	fmt.Fprintln(w, "| device | copy bandwidth | measured with | host→device | device→host |")
	fmt.Fprintln(w, "|---|---:|---|---:|---:|")
	rows := 0
	for _, d := range rep.Devices {
		h2d, d2h := "–", "–"
		if d.Link != nil {
			h2d, d2h = fmt.Sprintf("%.1f GB/s", d.Link.HostToDevice), fmt.Sprintf("%.1f GB/s", d.Link.DeviceToHost)
		}
		fmt.Fprintf(w, "| %s | %.1f GB/s | %s, %d MiB | %s | %s |\n", d.Device.Title(), d.Copy.GBs, d.Copy.Method, d.Copy.Bytes>>20, h2d, d2h)
		rows = max(rows, len(d.Results))
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| operation | case | precision | device | upload ms | kernel ms | download ms | wall ms | throughput (kernel) | throughput (wall) | % of copy BW | warm-up |")
	fmt.Fprintln(w, "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
	for i := range rows {
		for _, d := range rep.Devices {
			if i >= len(d.Results) {
				continue
			}
			r := d.Results[i]
			if r.Status != "ok" {
				fmt.Fprintf(w, "| %s | %s | %s | %s | %s: %s | | | | | | | |\n", r.Op, r.Case, r.Precision, d.Device.Label, r.Status, r.Detail)
				continue
			}
			kernel, frac := fmtNum(r.KernelMs), "–"
			if !r.GPUTimed {
				kernel = "n/a"
			}
			if r.CopyFraction > 0 {
				frac = fmt.Sprintf("%.0f%%", 100*r.CopyFraction)
			}
			up, down := fmtNum(r.UploadMs), fmtNum(r.DownloadMs)
			if d.Device.Path == "cpu" {
				up, down = "–", "–"
			}
			prec := r.Precision
			if r.ComputedAs != "" {
				prec += " (computed in " + r.ComputedAs + ")"
			}
			fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s %s | %s %s | %s | %d run%s, %s ms (%s) |\n", r.Op, r.Case, prec, d.Device.Label,
				up, kernel, down, fmtNum(r.WallMs), fmtNum(r.Throughput), r.Unit, fmtNum(r.ThroughputWall), r.Unit, frac,
				r.WarmupRuns, plural(r.WarmupRuns), fmtNum(r.WarmupMs), r.WarmedBy)
		}
	}
}

// WriteText writes the step as `vkstat bench --tune` prints it: a
// device's heading, a pipeline's table (and that nothing was stored when
// every candidate failed), or where the device's winners went.
func (s TuneStep) WriteText(w io.Writer) {
	e := s.Device
	switch {
	case s.Done && e.Cache != "":
		fmt.Fprintf(w, "stored in %s: %s\n\n", e.Cache, formatChosen(e.Chosen))
	case s.Done:
		fmt.Fprintf(w, "chosen (not stored): %s\n\n", formatChosen(e.Chosen))
	case s.Pipeline == "":
		fmt.Fprintf(w, "## %s (tune key %s)\n\n", e.Device, e.Key)
	default:
		fmt.Fprintf(w, "%s\n\n", strings.Join(e.Tables[s.Pipeline], "\n"))
		if e.Errors[s.Pipeline] != "" {
			fmt.Fprintf(w, "%s: every candidate failed; nothing stored\n\n", s.Pipeline)
		}
	}
}

// formatChosen is the winners, "name: value; ..." by name.
func formatChosen(m map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, k+": "+m[k])
	}
	return strings.Join(parts, "; ")
}
