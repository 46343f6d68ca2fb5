package shaderlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/vkstat/vkstat/engine"
)

// WriteInfo writes the shader's reflection as text (what vkstat shader
// info prints; NewReport is its JSON): the compiler's warnings, the local
// size, the bindings with their blocks' members, the push constants, the
// specialization constants, the capabilities with whether each of infos
// supports them, the extensions, and how each device splits a workgroup
// into subgroups where the shader uses them.
func (sh *Shader) WriteInfo(w io.Writer, infos []engine.DeviceInfo) {
	m := sh.Module
	for _, d := range sh.Warnings {
		fmt.Fprintln(w, d)
	}
	fmt.Fprintf(w, "%s: SPIR-V %s, entry point %s, %d bytes\n", sh.Path, m.Version, m.EntryPoint, len(sh.SPIRV))
	dims := make([]string, 3)
	for d := range dims {
		dims[d] = fmt.Sprint(m.LocalSize[d])
		if m.LocalSizeSpec[d] >= 0 {
			dims[d] += fmt.Sprintf(" (spec %d)", m.LocalSizeSpec[d])
		}
	}
	fmt.Fprintf(w, "local size:   %s\n", strings.Join(dims, " × "))
	if m.SharedBytes > 0 {
		fmt.Fprintf(w, "shared:       %d bytes\n", m.SharedBytes)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "\nbindings:")
	if len(m.Bindings) == 0 {
		fmt.Fprintln(w, "  (none)")
	} else {
		fmt.Fprintln(tw, "  SET\tBINDING\tNAME\tKIND\tACCESS\tMEMBERS")
		for _, b := range m.Bindings {
			access := "read-write"
			switch {
			case b.ReadOnly:
				access = "readonly"
			case b.WriteOnly:
				access = "writeonly"
			}
			fmt.Fprintf(tw, "  %d\t%d\t%s\t%s\t%s\t%s\n", b.Set, b.Binding, BindName(b), b.Kind, access, members(b.Block))
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\npush constants:")
	if m.Push == nil {
		fmt.Fprintln(w, "  (none)")
	} else {
		fmt.Fprintf(w, "  block %s, %d bytes\n", orDash(m.Push.Name), m.Push.Size)
		fmt.Fprintln(tw, "  OFFSET\tNAME\tTYPE\tSIZE")
		for _, mem := range m.Push.Members {
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%d\n", mem.Offset, orDash(mem.Name), mem.Type, mem.Size)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\nspecialization constants:")
	if len(m.SpecConstants) == 0 {
		fmt.Fprintln(w, "  (none)")
	} else {
		fmt.Fprintln(tw, "  ID\tNAME\tTYPE\tDEFAULT")
		for _, s := range m.SpecConstants {
			name := orDash(s.Name)
			if len(s.Aliases) > 0 {
				name += " (also " + strings.Join(s.Aliases, ", ") + ")"
			}
			fmt.Fprintf(tw, "  %d\t%s\t%s\t%s\n", s.ID, name, s.Type, s.Value)
		}
		tw.Flush()
	}
	fmt.Fprintln(w, "\ncapabilities:")
	head := "  CAPABILITY"
	for _, in := range infos {
		head += "\t" + in.Name
	}
	fmt.Fprintln(tw, head)
	for _, cp := range m.Capabilities {
		row := "  " + cp
		for _, in := range infos {
			row += "\t" + Supports(in, cp)
		}
		fmt.Fprintln(tw, row)
	}
	tw.Flush()
	if len(m.Extensions) > 0 {
		fmt.Fprintf(w, "\nextensions: %s\n", strings.Join(m.Extensions, ", "))
	}
	if UsesSubgroups(m) {
		fmt.Fprintln(w, "\nsubgroups (with the default constants):")
		for _, in := range infos {
			fmt.Fprintf(w, "  %s\n", SubgroupNote(m, m.LocalSize, in.Name, in.SubgroupSize))
		}
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// members is a block's members as TYPE NAME @OFFSET, in its name's braces.
func members(bl *Block) string {
	if bl == nil {
		return "-"
	}
	var parts []string
	for _, m := range bl.Members {
		parts = append(parts, fmt.Sprintf("%s %s @%d", m.Type, orDash(m.Name), m.Offset))
	}
	s := strings.Join(parts, ", ")
	if bl.Name != "" {
		s = bl.Name + " { " + s + " }"
	}
	return s
}

// Ms is a duration as milliseconds with three decimals: "1.250 ms".
func Ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }

// RateText writes bytes per second with the unit that keeps three
// significant figures in view: 12.3 MB/s, not 0.01 GB/s.
func RateText(bps float64) string {
	for _, u := range []struct {
		scale float64
		name  string
	}{{1e12, "TB/s"}, {1e9, "GB/s"}, {1e6, "MB/s"}, {1e3, "kB/s"}} {
		if bps >= u.scale {
			return fmt.Sprintf("%.3g %s", bps/u.scale, u.name)
		}
	}
	return fmt.Sprintf("%.3g B/s", bps)
}

// WriteTimes writes the run's median GPU time of the timed runs (after
// warmup untimed ones) and the rate of moved bytes, and apart the first
// run's wall time and the pipelines' build in it.
func (r *Result) WriteTimes(w io.Writer, moved int64, warmup int) {
	repeat := len(r.Kernel)
	if r.Timed {
		k := r.Median()
		bw := ""
		if k > 0 {
			bw = ", " + RateText(float64(moved)/k.Seconds())
		}
		warm := ""
		if warmup > 0 {
			warm = fmt.Sprintf(" after %d untimed", warmup)
		}
		fmt.Fprintf(w, "  GPU time %s (timestamps, median of %d%s), %s moved%s\n", Ms(k), repeat, warm, engine.SizeText(moved), bw)
	} else {
		fmt.Fprintf(w, "  GPU time n/a (no timestamps); wall %s for %d runs, %s moved per run\n", Ms(r.Wall), repeat, engine.SizeText(moved))
	}
	fmt.Fprintf(w, "  first run %s wall, building the pipeline %s of it (neither in the GPU time)\n", Ms(r.First), Ms(r.Build))
}

// WriteRun writes the plan's dispatch on r's device and r's times
// (WriteTimes).
func (p *Plan) WriteRun(w io.Writer, r *Result) {
	g, l := p.Groups, p.Local
	fmt.Fprintf(w, "%s on %s: %d×%d×%d workgroups of %d×%d×%d\n", p.Shader.Path, r.Device, g[0], g[1], g[2], l[0], l[1], l[2])
	r.WriteTimes(w, p.BytesMoved(), p.Warmup)
}

// WriteAgreement writes how the outputs of p's runs on other devices
// differ from those of the first, runs[0].
func (p *Plan) WriteAgreement(w io.Writer, runs []*Result) {
	for _, r := range runs[1:] {
		vs := p.Check(r, p.Written(runs[0]), Tol(0))
		for _, v := range vs {
			fmt.Fprintf(w, "  %s vs %s, %s: %s\n", r.Device, runs[0].Device, BindName(v.Binding), v.Diff)
		}
		fmt.Fprintf(w, "max error between %s and %s: %.3g of max |output|\n", r.Device, runs[0].Device, Worst(vs).MaxRel)
	}
}

// RunOn runs t on each of devs and writes each run (WriteRun) and how its
// arrays compare with want (WriteCheck): a sequence's right after the
// run; a plan's after how the devices' outputs agree (WriteAgreement),
// each device's under its name, then, where against is not nil, how each
// device's run compares with against's run there. It returns the runs
// and the number of arrays that differ beyond the tolerance; a failed run
// of against is an *EntryError of against.
func RunOn(ctx context.Context, w io.Writer, t Target, devs []*engine.Device, want map[int]*Array, tol func(int) Tolerance, against *Plan) ([]*Result, int, error) {
	var runs []*Result
	bad := 0
	p, plan := t.(*Plan)
	for _, d := range devs {
		r, err := t.Run(ctx, d)
		if err != nil {
			return nil, 0, fmt.Errorf("%s on %s: %w", t.what(), d.Info.Name, err)
		}
		runs = append(runs, r)
		t.WriteRun(w, r)
		if !plan {
			bad += WriteCheck(w, t, r, want, tol)
		}
	}
	if !plan {
		return runs, bad, nil
	}
	p.WriteAgreement(w, runs)
	for _, r := range runs {
		if len(want) > 0 {
			fmt.Fprintf(w, "%s:\n", r.Device)
			bad += WriteCheck(w, p, r, want, tol)
		}
	}
	for i := 0; against != nil && i < len(devs); i++ {
		d := devs[i].Info.Name
		ro, err := against.Run(ctx, devs[i])
		if err != nil {
			return nil, 0, &EntryError{"against", against.what() + " on " + d, err, false}
		}
		fmt.Fprintf(w, "%s against %s:\n", d, against.what())
		bad += WriteCheck(w, p, runs[i], p.Written(ro), tol)
	}
	return runs, bad, nil
}

// WriteCheck writes how run r of t compares with the expectations want
// (Check): per array the verdict, how many elements are beyond the
// tolerance, the worst of them and the first few others by index; it
// returns the number of arrays that fail.
func WriteCheck(w io.Writer, t Target, r *Result, want map[int]*Array, tol func(int) Tolerance) int {
	bad := 0
	for _, v := range t.Check(r, want, tol) {
		verdict := "PASS"
		if !v.Pass {
			verdict = "FAIL"
			bad++
		}
		name := v.Name
		if v.Err != nil {
			fmt.Fprintf(w, "  %s %s: %v\n", verdict, name, v.Err)
			continue
		}
		fmt.Fprintf(w, "  %s %s: %s (%s)\n", verdict, name, v.Diff, v.Tolerance)
		if v.Pass {
			continue
		}
		fmt.Fprintf(w, "    %d of %d elements (%.3g%%) beyond the tolerance\n", v.Beyond, v.Elements, 100*float64(v.Beyond)/float64(max(v.Elements, 1)))
		if note := t.Note(r); note != "" {
			fmt.Fprintf(w, "    note: %s\n", note)
		}
		if v.Worst != nil {
			fmt.Fprintf(w, "    worst: %s%s\n", name, v.Worst)
		}
		if len(v.First) > 0 {
			others := "    others:"
			if v.Beyond-1 > len(v.First) {
				others = fmt.Sprintf("    first %d of the %d others:", len(v.First), v.Beyond-1)
			}
			fmt.Fprintln(w, others)
			for _, m := range v.First {
				fmt.Fprintf(w, "      %s%s\n", name, m)
			}
		}
	}
	return bad
}

// SweepTable is what vkstat shader sweep prints: a row per variant and
// device with its verdict, the elements beyond the tolerance, the largest
// error as a fraction of max |expected|, the NMSE, the median GPU time,
// the bytes moved per second, GFLOP/s and the first run's wall time; an
// ERROR row's reason goes under the table.
type SweepTable struct {
	rows   [][]string
	errs   []string
	Failed int // the rows that FAIL or are ERROR
}

// Len is the number of rows.
func (t *SweepTable) Len() int { return len(t.rows) }

// Add adds run r of variant name: vs are its verdicts (nil where nothing
// is expected: RAN), moved the bytes it moves and flops the
// floating-point operations of one dispatch (0: not given).
func (t *SweepTable) Add(name string, r *Result, vs []Verdict, moved int64, flops float64) {
	verdict, beyond, rel, nmse := "RAN", "-", "-", "-"
	if vs != nil {
		sum := Summarize(vs)
		if verdict = "PASS"; !sum.Pass {
			verdict = "FAIL"
			t.Failed++
		}
		beyond, rel, nmse = fmt.Sprint(sum.Beyond), fmt.Sprintf("%.3g", sum.MaxRel), fmt.Sprintf("%.3g", sum.NMSE)
	}
	gpu, rate, gflops := "n/a", "n/a", "-"
	if r.Timed {
		k := r.Median()
		gpu = Ms(k)
		if k > 0 {
			rate = RateText(float64(moved) / k.Seconds())
			if flops > 0 {
				gflops = fmt.Sprintf("%.3g", flops/k.Seconds()/1e9)
			}
		}
	}
	t.rows = append(t.rows, []string{name, r.Device, verdict, beyond, rel, nmse, gpu, rate, gflops, Ms(r.First)})
}

// Run runs p, variant name's plan, on each of devs and adds its rows: an
// ERROR row where the device cannot run it, else its verdicts against
// want (none where want is empty) and its times (Add, with flops).
func (t *SweepTable) Run(ctx context.Context, name string, p *Plan, devs []*engine.Device, want map[int]*Array, tol func(int) Tolerance, flops float64) {
	for _, d := range devs {
		r, err := p.Run(ctx, d)
		if err != nil {
			t.Fail(name, d.Info.Name, err)
			continue
		}
		var vs []Verdict
		if len(want) > 0 {
			vs = p.Check(r, want, tol)
		}
		t.Add(name, r, vs, p.BytesMoved(), flops)
	}
}

// Fail adds variant name's ERROR row on device dev ("-" for an error
// before any device work), err's first lines under the table.
func (t *SweepTable) Fail(name, dev string, err error) {
	t.Failed++
	lines := strings.Split(err.Error(), "\n")
	msg := strings.Join(slices.DeleteFunc(lines[:min(len(lines), 2)], func(l string) bool { return l == "" }), " ")
	t.errs = append(t.errs, fmt.Sprintf("[%d] %s on %s: %s", len(t.errs)+1, name, dev, msg))
	t.rows = append(t.rows, []string{name, dev, "ERROR", fmt.Sprintf("[%d]", len(t.errs)), "-", "-", "-", "-", "-", "-"})
}

// Write writes the table, then the ERROR rows' reasons.
func (t *SweepTable) Write(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "CASE\tDEVICE\tRESULT\tBEYOND\tMAX REL ERR\tNMSE\tGPU TIME\tRATE\tGFLOP/S\tFIRST RUN")
	for _, r := range t.rows {
		fmt.Fprintln(tw, strings.Join(r, "\t"))
	}
	tw.Flush()
	for _, e := range t.errs {
		fmt.Fprintln(w, e)
	}
}

// WriteError writes err as a watch shows a round that failed: a shader
// that does not compile as "compile error:" and its diagnostics (the
// compiler's log where it gave none), anything else as "error: ERR".
func WriteError(w io.Writer, err error) {
	var ce *CompileError
	if !errors.As(err, &ce) {
		fmt.Fprintf(w, "error: %v\n", err)
		return
	}
	fmt.Fprintf(w, "compile error:\n")
	if len(ce.Diagnostics) == 0 {
		fmt.Fprintf(w, "  %s\n", strings.TrimSpace(ce.Log))
	}
	for _, d := range ce.Diagnostics {
		fmt.Fprintf(w, "  %s\n", d)
	}
}
