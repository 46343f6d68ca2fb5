package latent

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/vkstat/vkstat/engine"
	"github.com/vkstat/vkstat/tensor"
)

// Input is what a report says of the tensor a run read: its file, the
// file's format ("npy", "safetensors", "fits"), the stored type, the
// tensor's name in a safetensors file, the shape of the samples computed
// and the type they were computed as.
type Input struct {
	Path, Format, DType, Tensor string
	Shape                       []int
	ComputedAs                  tensor.DType
}

// Report is the run's report for vkstat latent, and the merge of its
// partials: the table it prints (and writes as summary.txt) and
// summary.json's content (Summary with the input, the device and the
// files), for a run on in under opt on device, its batches worded as
// batches, that wrote files.
func (r *Result) Report(in Input, device, batches string, opt Options, files []string) (table string, summary map[string]any) {
	summary = r.Summary(in.Shape, opt)
	summary["input"] = map[string]any{"path": in.Path, "format": in.Format, "dtype": in.DType, "tensor": in.Tensor, "shape": in.Shape, "computed_as": in.ComputedAs.String()}
	summary["device"] = device
	summary["files"] = files
	return r.table(in, device, batches, opt.NaN, files), summary
}

// table is the summary table: the input, then each result's spread.
func (r *Result) table(in Input, device, batches string, policy NaNPolicy, files []string) string {
	var b bytes.Buffer
	name := ""
	if in.Tensor != "" {
		name = fmt.Sprintf(" tensor %q", in.Tensor)
	}
	fmt.Fprintf(&b, "input:   %s (%s%s, %s %s; computed as %s)\n", in.Path, in.Format, name, in.DType, tensor.ShapeString(in.Shape), in.ComputedAs)
	fmt.Fprintf(&b, "device:  %s\n", device)
	fmt.Fprintf(&b, "batches: %s\n", batches)
	fmt.Fprintf(&b, "NaN/Inf: %d NaN, %d ±Inf in the input (--nan %s)\n", r.NaNs, r.Infs, policy)
	tw := tabwriter.NewWriter(&b, 2, 4, 2, ' ', 0)
	fmt.Fprintf(tw, "result\tshape\tmin\tmedian\tmax\tNaN\t\n")
	for _, row := range r.Rows(in.Shape) {
		s := row.Spread
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t\n", row.Label, tensor.ShapeString(row.Shape), g4(s.Min), g4(s.Median), g4(s.Max), s.NaN)
	}
	tw.Flush()
	for _, n := range r.Notes {
		fmt.Fprintf(&b, "note:    %s\n", n)
	}
	for _, f := range files {
		fmt.Fprintf(&b, "wrote:   %s\n", f)
	}
	return b.String()
}

// g4 is v to 4 significant digits as the report prints it ("NaN" for NaN).
func g4(v float64) string {
	if math.IsNaN(v) {
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

// Words is the batch plan in the report's words; p.Budget.Source names
// where the budget came from as the caller's user knows it.
func (p Plan) Words() string {
	how := fmt.Sprintf("auto: %.0f%% of %s budget (%s), about %s per sample", 100*p.Margin,
		engine.SizeText(p.Budget.Bytes), p.Budget.Source, engine.SizeText(max(p.Footprint.Device, p.Footprint.Host)))
	if !p.Auto {
		how = fmt.Sprintf("--batch %d; %d would fit", p.Batch, p.Fit)
	}
	return fmt.Sprintf("%d of up to %d samples (%s)", p.Batches, p.Batch, how)
}

// ParseSamples reads a shard's samples, "LO:HI" (samples LO … HI−1 of a
// tensor of shape, whose n samples are shape[0], 1 for a scalar), or every
// sample when text is "". A range out of [0, n) or empty is a
// *engine.FieldError of samples.
func ParseSamples(text string, shape []int) (lo, hi int, err error) {
	n := 1
	if len(shape) > 0 {
		n = shape[0]
	}
	if text == "" {
		return 0, n, nil
	}
	a, b, ok := strings.Cut(text, ":")
	lo, err1 := strconv.Atoi(strings.TrimSpace(a))
	hi, err2 := strconv.Atoi(strings.TrimSpace(b))
	if !ok || err1 != nil || err2 != nil || lo < 0 || hi <= lo || hi > n {
		return 0, 0, engine.Fieldf("samples", " %q: want LO:HI with 0 <= LO < HI <= %d (the tensor's samples)", text, n)
	}
	return lo, hi, nil
}
