package latent

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/vkstat/vkstat/internal/checks"
	"github.com/vkstat/vkstat/tensor"
)

// TestPartialMergeEqualsOnePass: a latent tensor cut into shards of random
// lengths, each shard's Partial computed on its own (its samples numbered
// from the shard's first), merged in a shuffled order and finished, gives
// what Run gives on the whole tensor: the per-sample statistics (moments
// over H, W, correlations, PCA, spectra) and the moments over axes with
// the sample axis to 1e-12 (relative for mean, var and std; absolute for
// the dimensionless skew, kurtosis and correlations), the spectral slopes
// (computed after the merge) to 1e-12 relative; the moments and
// correlations equal the float64 Reference likewise.
func TestPartialMergeEqualsOnePass(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(43, 5))
	x := latentData([]int{7, 3, 4, 8, 8}, 43, storages[3])
	x.F64[3*768+17] = math.NaN() // sample 3
	for _, axes := range [][]int{{0, -2, -1}, {-2, -1}, {0}} {
		for _, policy := range []NaNPolicy{Propagate, Skip} {
			opt := Options{Moments: true, Axes: axes, DDof: 1, Corr: true, CorrFrames: true, LagCorr: true, Lags: 2, PCA: true, Spectra: true, NaN: policy}
			whole, err := Run(ctx, nil, x, opt)
			if err != nil {
				t.Fatal(err)
			}
			ref, err := Reference(x, opt)
			if err != nil {
				t.Fatal(err)
			}
			for trial := range 3 {
				var parts []*Partial
				for lo := 0; lo < 7; {
					hi := min(7, lo+1+rng.IntN(4))
					p, err := RunPartial(ctx, nil, shardSource(x, lo, hi), opt)
					if err != nil {
						t.Fatal(err)
					}
					parts = append(parts, p)
					lo = hi
				}
				rng.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
				m, err := Merge(parts...)
				if err != nil {
					t.Fatal(err)
				}
				got, err := m.Finish()
				if err != nil {
					t.Fatal(err)
				}
				what := fmt.Sprintf("axes %v, %s, trial %d (%d shards)", axes, policy, trial, len(parts))
				mo := func(r *Result) []*tensor.Tensor {
					return []*tensor.Tensor{r.Moments.Mean, r.Moments.Var, r.Moments.Std, r.Moments.Min, r.Moments.Max}
				}
				for i, w := range mo(whole) {
					near(t, what+" moments", mo(got)[i], w, 1e-12, true)
					near(t, what+" moments vs reference", mo(got)[i], mo(ref)[i], 1e-12, true)
				}
				for i, w := range []*tensor.Tensor{whole.Moments.Skew, whole.Moments.Kurt, whole.Corr, whole.CorrFrames, whole.FrameCorr, whole.LagCorr,
					whole.PCA.Ratio, whole.Spectra.SpatialCentroid, whole.Spectra.TemporalCentroid} {
					g := []*tensor.Tensor{got.Moments.Skew, got.Moments.Kurt, got.Corr, got.CorrFrames, got.FrameCorr, got.LagCorr,
						got.PCA.Ratio, got.Spectra.SpatialCentroid, got.Spectra.TemporalCentroid}[i]
					near(t, fmt.Sprintf("%s output %d", what, i), g, w, 1e-12, false)
				}
				near(t, what+" corr vs reference", got.Corr, ref.Corr, 1e-12, false)
				near(t, what+" spatial slope", got.Spectra.SpatialSlope, whole.Spectra.SpatialSlope, 1e-12, true)
				near(t, what+" PCA values", got.PCA.Values, whole.PCA.Values, 1e-12, true)
				if fmt.Sprint(got.Notes) != fmt.Sprint(whole.Notes) {
					t.Errorf("%s: notes\n%q\nwant\n%q", what, got.Notes, whole.Notes)
				}
			}
		}
	}
}

// near fails unless got and want (float64) agree within tol, relative to
// the largest |want| when rel (checks.Within), absolute otherwise
// (checks.Close); NaN where NaN.
func near(t *testing.T, what string, got, want *tensor.Tensor, tol float64, rel bool) {
	t.Helper()
	if !tensor.SameShape(got.Shape, want.Shape) {
		t.Fatalf("%s: shape %v, want %v", what, got.Shape, want.Shape)
	}
	g, w := got.Float64s(), want.Float64s()
	if rel && !checks.Within(t, what, g, w, tol) || !rel && !checks.Close(t, what, g, w, 0, tol) {
		t.FailNow()
	}
}

// TestMergeRefusesMixedOrGappedPartials: partials of other options, or
// that leave out or repeat samples, do not merge.
func TestMergeRefusesMixedOrGappedPartials(t *testing.T) {
	ctx := context.Background()
	x := latentData([]int{4, 2, 2, 4, 4}, 3, storages[3])
	opt := Options{Moments: true, Axes: []int{0, -1}, Corr: true}
	part := func(lo, hi int, o Options) *Partial {
		p, err := RunPartial(ctx, nil, shardSource(x, lo, hi), o)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	skip := opt
	skip.NaN = Skip
	for name, ps := range map[string][]*Partial{
		"gap":     {part(0, 1, opt), part(2, 4, opt)},
		"overlap": {part(0, 2, opt), part(1, 4, opt)},
		"policy":  {part(0, 2, opt), part(2, 4, skip)},
	} {
		if _, err := Merge(ps...); err == nil {
			t.Errorf("%s: merged", name)
		}
	}
}

// TestPartialStoreRestore: a partial stored and restored (as a file would
// keep it) merges and finishes to what the partial itself gives.
func TestPartialStoreRestore(t *testing.T) {
	ctx := context.Background()
	x := latentData([]int{5, 3, 4, 8, 8}, 44, storages[3])
	for _, axes := range [][]int{{0, -2, -1}, {-2, -1}} {
		opt := Options{Moments: true, Axes: axes, Corr: true, LagCorr: true, PCA: true, Spectra: true}
		var direct, restored []*Partial
		for _, r := range [][2]int{{0, 2}, {2, 5}} {
			p, err := RunPartial(ctx, nil, shardSource(x, r[0], r[1]), opt)
			if err != nil {
				t.Fatal(err)
			}
			f, arrays := p.Store()
			q, err := RestorePartial(f, arrays)
			if err != nil {
				t.Fatal(err)
			}
			direct, restored = append(direct, p), append(restored, q)
		}
		finish := func(ps []*Partial) *Result {
			m, err := Merge(ps...)
			if err != nil {
				t.Fatal(err)
			}
			r, err := m.Finish()
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		want, got := finish(direct), finish(restored)
		wa, ga := want.Arrays(), got.Arrays()
		if len(wa) != len(ga) {
			t.Fatalf("axes %v: %d arrays, want %d", axes, len(ga), len(wa))
		}
		for i := range wa {
			near(t, fmt.Sprintf("axes %v %s", axes, wa[i].Name), ga[i].T, wa[i].T, 0, false)
		}
		if fmt.Sprint(got.Notes) != fmt.Sprint(want.Notes) {
			t.Errorf("notes %q, want %q", got.Notes, want.Notes)
		}
	}
	f, arrays := (&Partial{Shape: []int{2}, DType: tensor.F64, Opt: Options{Corr: true}, R: &Result{}}).Store()
	if _, err := RestorePartial(f, arrays); err == nil {
		t.Error("a partial without the correlations its options ask for was restored")
	}
}

// shardSource serves samples [lo, hi) of x as a shard of it.
func shardSource(x *tensor.Tensor, lo, hi int) Source {
	s := TensorSource(samplesOf(x, lo, hi))
	s.First = lo
	return s
}
