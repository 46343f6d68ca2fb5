package cli

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/vkstat/vkstat/formats"
	"github.com/vkstat/vkstat/pipelines/latent"
	"github.com/vkstat/vkstat/tensor"
)

// TestLatentPCA runs vkstat latent --stats pca on a synthetic latent on
// every device under test: pca_values.npy must hold the spectrum of
// T/(T−1)·D·R·D (R the AR(1) Toeplitz channel correlation, D the channel
// scales; eigenvalues from gonum) within 1e-5 of λ1, the ratios sum to 1,
// the vectors be (N, C, C), and the table, summary.json and pca.png be
// there. A NaN in sample 1 under --nan propagate makes its PCA NaN with a
// note.
func TestLatentPCA(t *testing.T) {
	dir := t.TempDir()
	cfg := latent.DefaultSynth()
	cfg.N, cfg.C, cfg.F, cfg.H, cfg.W = 2, 6, 3, 10, 8
	in := filepath.Join(dir, "lat.npy")
	if code, _, stderr := run(t, "synth", "latent", "--shape", "2,6,3,10,8", "--dtype", "f32", "--out", in, "--truth", in+".json"); code != 0 {
		t.Fatalf("synth latent: %s", stderr)
	}
	c, tt := cfg.C, cfg.F*cfg.H*cfg.W
	r := cfg.ChannelCorr()
	s := mat.NewSymDense(c, nil)
	for i := range c {
		for j := 0; j <= i; j++ {
			s.SetSym(i, j, float64(tt)/float64(tt-1)*latent.ChannelScale(i)*latent.ChannelScale(j)*r[i*c+j])
		}
	}
	var es mat.EigenSym
	if !es.Factorize(s, false) {
		t.Fatal("EigenSym failed")
	}
	want := es.Values(nil)
	for _, dev := range devicesUnderTest(t) {
		out := filepath.Join(dir, "out_"+dev)
		code, stdout, stderr := run(t, "--device", dev, "--validate="+boolStr(dev != "cpu"), "latent", "--in", in, "--stat", "pca", "--out-dir", out)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", dev, code, stderr)
		}
		vals, err := formats.ReadNPY(filepath.Join(out, "pca_values.npy"))
		if err != nil || !tensor.SameShape(vals.Shape, []int{2, c}) {
			t.Fatalf("%s: pca_values.npy: %v %v", dev, vals, err)
		}
		ratio, err := formats.ReadNPY(filepath.Join(out, "pca_ratio.npy"))
		if err != nil || !tensor.SameShape(ratio.Shape, []int{2, c}) {
			t.Fatalf("%s: pca_ratio.npy: %v %v", dev, ratio, err)
		}
		vecs, err := formats.ReadNPY(filepath.Join(out, "pca_vectors.npy"))
		if err != nil || !tensor.SameShape(vecs.Shape, []int{2, c, c}) {
			t.Fatalf("%s: pca_vectors.npy: %v %v", dev, vecs, err)
		}
		for n := range 2 {
			sum := 0.0
			for k := range c {
				if e := math.Abs(vals.F64[n*c+k] - want[c-1-k]); !(e <= 1e-5*want[c-1]) {
					t.Errorf("%s: sample %d λ%d = %.8g, want %.8g", dev, n, k+1, vals.F64[n*c+k], want[c-1-k])
				}
				sum += ratio.F64[n*c+k]
			}
			if math.Abs(sum-1) > 1e-6 {
				t.Errorf("%s: sample %d ratios sum to %v", dev, n, sum)
			}
		}
		if !strings.Contains(stdout, "pca ratio PC1") || !strings.Contains(stdout, "pca cumulative PC1..6") {
			t.Errorf("%s: table without PCA rows:\n%s", dev, stdout)
		}
		var sum map[string]any
		b, err := os.ReadFile(filepath.Join(out, "summary.json"))
		if err != nil || json.Unmarshal(b, &sum) != nil {
			t.Fatalf("summary.json: %v", err)
		}
		cum := sum["pca"].(map[string]any)["mean_cumulative"].([]any)
		if len(cum) != c || math.Abs(cum[c-1].(float64)-1) > 1e-6 {
			t.Errorf("%s: mean cumulative ratio %v", dev, cum)
		}
		if st, err := os.Stat(filepath.Join(out, "pca.png")); err != nil || st.Size() < 1000 {
			t.Errorf("%s: pca.png: %v", dev, err)
		}
	}

	// A NaN in sample 1.
	x, err := formats.ReadNPY(in)
	if err != nil {
		t.Fatal(err)
	}
	x.F32[len(x.F32)-3] = float32(math.NaN())
	nanIn := filepath.Join(dir, "nan.npy")
	f, err := os.Create(nanIn)
	if err != nil {
		t.Fatal(err)
	}
	if err := formats.EncodeNPY(f, x); err != nil {
		t.Fatal(err)
	}
	f.Close()
	out := filepath.Join(dir, "out_nan")
	code, stdout, stderr := run(t, "--device", "cpu", "latent", "--in", nanIn, "--stat", "pca", "--out-dir", out)
	if code != 0 {
		t.Fatalf("NaN input: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "pca: 1 samples with a NaN/Inf") || !strings.Contains(stdout, "sample 1") {
		t.Errorf("no note about sample 1's NaN:\n%s", stdout)
	}
	vals, err := formats.ReadNPY(filepath.Join(out, "pca_values.npy"))
	if err != nil {
		t.Fatal(err)
	}
	if math.IsNaN(vals.F64[0]) || !math.IsNaN(vals.F64[c]) {
		t.Errorf("NaN in sample 1: λ1 per sample %v, %v; want a number, NaN", vals.F64[0], vals.F64[c])
	}
}
