package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/spectra"
	"github.com/vkstat/vkstat/tensor"
)

// TestLatentSpectraSlope: on synthetic latents whose spatial spectrum is
// ∝ |k|^−β, vkstat latent --stats spectra fits a radial slope per
// (sample, channel), (N, C), within 0.25 of −β, and within 0.1 averaged
// over the samples, on every device under test.
func TestLatentSpectraSlope(t *testing.T) {
	dir := t.TempDir()
	for _, beta := range []float64{0, 1, 2, 3} {
		in := filepath.Join(dir, fmt.Sprintf("lat%g.npy", beta))
		code, _, stderr := run(t, "synth", "latent", "--shape", "4,4,8,32,32", "--time-rho", "0", "--slope", fmt.Sprint(-beta), "--seed", "3", "--out", in)
		if code != 0 {
			t.Fatalf("synth latent: %s", stderr)
		}
		for _, dev := range devicesUnderTest(t) {
			out := filepath.Join(dir, fmt.Sprintf("out%g_%s", beta, dev))
			code, stdout, stderr := run(t, "--device", dev, "--validate="+boolStr(dev != "cpu"), "latent", "--in", in, "--stat", "spectra", "--out-dir", out)
			if code != 0 {
				t.Fatalf("%s β %g: exit %d: %s", dev, beta, code, stderr)
			}
			slope, err := formats.ReadNPY(filepath.Join(out, "spatial_slope.npy"))
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("%s β %g: fitted slopes %.3f", dev, beta, slope.F64)
			if tensor.ShapeString(slope.Shape) != "(4, 4)" {
				t.Fatalf("%s: spatial_slope has shape %v, want (N, C) = (4, 4)", dev, slope.Shape)
			}
			for c := range 4 {
				mean := 0.0
				for n := range 4 {
					s := slope.F64[n*4+c]
					mean += s / 4
					if math.Abs(s+beta) > 0.25 {
						t.Errorf("%s β %g: sample %d channel %d's fitted slope %.3f, want %.1f ± 0.25", dev, beta, n, c, s, -beta)
					}
				}
				if math.Abs(mean+beta) > 0.1 {
					t.Errorf("%s β %g: channel %d's fitted slope averaged over samples %.3f, want %.1f ± 0.1", dev, beta, c, mean, -beta)
				}
			}
			if !strings.Contains(stdout, "spatial_slope") || !strings.Contains(stdout, "temporal_centroid") {
				t.Errorf("%s: the summary table lacks the spectra rows:\n%s", dev, stdout)
			}
			if fi, err := os.Stat(filepath.Join(out, "spectra.png")); err != nil || fi.Size() == 0 {
				t.Errorf("%s: no spectra.png: %v", dev, err)
			}
		}
	}
}

// TestLatentSpectraValues holds the command's outputs to pipelines/spectra's
// plain-DFT reference, averaged by hand, on a latent with a NaN planted in
// one frame: under propagate its (sample, channel) is NaN, under skip the
// average leaves that frame (and that pixel's series) out.
func TestLatentSpectraValues(t *testing.T) {
	const n, c, f, h, w = 2, 3, 5, 9, 8
	dir := t.TempDir()
	x := tensor.New(tensor.F64, n, c, f, h, w)
	for i := range x.F64 {
		x.F64[i] = math.Sin(float64(i)*0.37) + 0.5*math.Cos(float64(i*i%101)) + float64(i%7)*0.1
	}
	const badN, badC, badF, badP = 1, 2, 3, 13
	x.F64[((badN*c+badC)*f+badF)*h*w+badP] = math.NaN()
	in := writeNPY(t, dir, "x.npy", x)
	for _, dev := range devicesUnderTest(t) {
		for _, policy := range []string{"propagate", "skip"} {
			out := filepath.Join(dir, dev+"_"+policy)
			code, _, stderr := run(t, "--device", dev, "--validate="+boolStr(dev != "cpu"), "--precision", "f32",
				"latent", "--in", in, "--stat", "spectra", "--nan", policy, "--out-dir", out)
			if code != 0 {
				t.Fatalf("%s: exit %d: %s", dev, code, stderr)
			}
			read := func(name string) *tensor.Tensor {
				r, err := formats.ReadNPY(filepath.Join(out, name+".npy"))
				if err != nil {
					t.Fatal(err)
				}
				return r
			}
			sp, cen, tsp, tcen := read("spatial_spectrum"), read("spatial_centroid"), read("temporal_spectrum"), read("temporal_centroid")
			k, kt := spectra.Bins(h, w), f/2+1
			if !tensor.SameShape(sp.Shape, []int{n, c, k}) || !tensor.SameShape(tsp.Shape, []int{n, c, kt}) {
				t.Fatalf("shapes %v, %v", sp.Shape, tsp.Shape)
			}
			for i := range n * c {
				bad := i == badN*c+badC
				frames := make([]float64, 0, f*h*w)
				for ff := range f {
					if bad && ff == badF {
						continue
					}
					frames = append(frames, f32s(x.F64[(i*f+ff)*h*w:(i*f+ff+1)*h*w])...)
				}
				ref := spectra.Reference(frames, len(frames)/(h*w), h, w)
				var series []float64
				for p := range h * w {
					if bad && p == badP {
						continue
					}
					for ff := range f {
						series = append(series, float64(float32(x.F64[(i*f+ff)*h*w+p])))
					}
				}
				tref := spectra.ReferenceTemporal(series, len(series)/f, f)
				if bad && policy == "propagate" {
					if !math.IsNaN(sp.F64[i*k]) || !math.IsNaN(cen.F64[i]) || !math.IsNaN(tsp.F64[i*kt]) || !math.IsNaN(tcen.F64[i]) {
						t.Errorf("%s propagate: the NaN's (sample, channel) has finite spectra", dev)
					}
					continue
				}
				check := func(what string, got, want float64, scale float64) {
					if math.Abs(got-want) > 2e-5*scale {
						t.Errorf("%s %s pair %d: %s = %.8g, want %.8g", dev, policy, i, what, got, want)
					}
				}
				peak := 0.0
				for _, v := range ref.Radial {
					peak = max(peak, v)
				}
				for r := range k {
					check(fmt.Sprintf("spatial[%d]", r), sp.F64[i*k+r], meanCol(ref.Radial, ref.B, k, r), peak)
				}
				check("spatial centroid", cen.F64[i], sum(ref.NuSum)/sum(ref.Total), 1)
				tpeak := 0.0
				for _, v := range tref.Spectrum {
					tpeak = max(tpeak, v)
				}
				for j := range kt {
					check(fmt.Sprintf("temporal[%d]", j), tsp.F64[i*kt+j], meanCol(tref.Spectrum, tref.B, kt, j), tpeak)
				}
				check("temporal centroid", tcen.F64[i], sum(tref.NuSum)/sum(tref.Total), 1)
			}
			var summary map[string]any
			b, err := os.ReadFile(filepath.Join(out, "summary.json"))
			if err == nil {
				err = json.Unmarshal(b, &summary)
			}
			if err != nil || summary["spectra"] == nil {
				t.Errorf("%s: summary.json has no spectra entry (%v)", dev, err)
			}
		}
	}
}

// f32s rounds v to float32, as --precision f32 does.
func f32s(v []float64) []float64 {
	out := make([]float64, len(v))
	for i, e := range v {
		out[i] = float64(float32(e))
	}
	return out
}

func meanCol(v []float64, rows, cols, j int) float64 {
	s := 0.0
	for r := range rows {
		s += v[r*cols+j]
	}
	return s / float64(rows)
}

func sum(v []float64) float64 {
	s := 0.0
	for _, e := range v {
		s += e
	}
	return s
}

// TestLatentSpectraPlansSaved: VkFFT's plans are compiled once per machine.
// The first `vkstat latent --stat spectra` on a shape builds its plans
// (the frames' and the series'), saves their SPIR-V under
// VKSTAT_FFT_CACHE, and a second run, a device opened anew as by another
// process, loads them all and builds none: the "fft plans:" line of
// --time says so. The outputs are the same to the bit.
func TestLatentSpectraPlansSaved(t *testing.T) {
	dev := vulkanUnderTest(t)
	dir := t.TempDir()
	t.Setenv("VKSTAT_FFT_CACHE", filepath.Join(dir, "fft"))
	in := filepath.Join(dir, "lat.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,3,6,16,16", "--seed", "4", "--out", in); code != 0 {
		t.Fatalf("synth latent: %s", stderr)
	}
	plans := regexp.MustCompile(`fft plans: (\d+) built, (\d+) loaded from disk, (\d+) reused`)
	var outs [2][]byte
	first := ""
	for i := range 2 {
		out := filepath.Join(dir, fmt.Sprint("out", i))
		code, _, stderr := run(t, "--device", dev, "--validate", "--time", "latent", "--in", in, "--stat", "spectra", "--out-dir", out)
		if code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, code, stderr)
		}
		m := plans.FindStringSubmatch(stderr)
		if m == nil {
			t.Fatalf("run %d: no fft plans line in --time:\n%s", i, stderr)
		}
		t.Logf("run %d: %s", i, m[0])
		built, loaded := m[1], m[2]
		switch {
		case i == 0 && (built == "0" || loaded != "0"):
			t.Errorf("first run: %s, want the plans built", m[0])
		case i == 1 && (built != "0" || loaded != first):
			t.Errorf("second run: %s, want the first run's %s plans loaded from disk and none built", m[0], first)
		}
		first = built
		b, err := os.ReadFile(filepath.Join(out, "spatial_spectrum.npy"))
		if err != nil {
			t.Fatal(err)
		}
		outs[i] = b
	}
	if !bytes.Equal(outs[0], outs[1]) {
		t.Error("the spatial spectra of the second run differ from the first's")
	}
}
