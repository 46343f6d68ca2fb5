package latent

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/vkstat/vkstat/tensor"
)

// TestBlockMergeEqualsOnePass: a latent tensor cut into chunks at random
// cuts along each axis in turn (chunks of one element among them), and
// along several axes at once, each chunk's Block computed on its own,
// merged in shuffled groups (some stored and restored as a file keeps
// them) and finished, gives what Run gives on the whole tensor and what
// the float64 Reference and PCAReference give: moments over axes with
// and without the cut axis, corr, corr_frames, frame_corr, lagcorr and the
// PCA, to 1e-12 (relative for mean, var, std and the PCA's eigenvalues,
// absolute for the dimensionless rest), NaNs where NaN, under both NaN
// policies.
func TestBlockMergeEqualsOnePass(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(43, 6))
	full := []int{4, 3, 5, 6, 7}
	x := latentData(full, 43, storages[3])
	x.F64[1*630+2*210+3*42+4*7+5] = math.NaN() // sample 1, channel 2, frame 3
	x.F64[3*630+17] = math.Inf(1)
	for _, cut := range [][]int{{0}, {1}, {2}, {3}, {4}, {0, 3, 4}, {2, 4}} {
		for _, axes := range [][]int{{-2, -1}, {0, 2}, {1, 2, 3, 4}, {0}} {
			for _, policy := range []NaNPolicy{Propagate, Skip} {
				opt := Options{Moments: true, Axes: axes, DDof: 1, Corr: true, CorrFrames: true, LagCorr: true, Lags: 2, PCA: true, NaN: policy}
				if slices.Contains(cut, 1) { // the channels are the variables of corr, corr_frames and PCA
					opt.Corr, opt.CorrFrames, opt.PCA = false, false, false
				}
				if slices.Contains(cut, 2) { // the frames lagcorr's
					opt.LagCorr = false
				}
				what := fmt.Sprintf("cut %v, axes %v, %s", cut, axes, policy)
				got := mergeChunks(t, rng, x, cut, opt)
				whole, err := Run(ctx, nil, x, opt)
				if err != nil {
					t.Fatal(err)
				}
				ref, err := Reference(x, opt)
				if err != nil {
					t.Fatal(err)
				}
				if got.NaNs != 1 || got.Infs != 1 {
					t.Errorf("%s: %d NaNs, %d Infs counted, want 1 and 1", what, got.NaNs, got.Infs)
				}
				for _, want := range []*Result{whole, ref} {
					gm, wm := got.Moments, want.Moments
					for i, w := range []*tensor.Tensor{wm.Mean, wm.Var, wm.Std, wm.Min, wm.Max} {
						near(t, fmt.Sprintf("%s moment %d", what, i), []*tensor.Tensor{gm.Mean, gm.Var, gm.Std, gm.Min, gm.Max}[i], w, 1e-12, true)
					}
					near(t, what+" skew", gm.Skew, wm.Skew, 1e-12, false)
					near(t, what+" kurt", gm.Kurt, wm.Kurt, 1e-12, false)
					for i, w := range []*tensor.Tensor{want.Corr, want.CorrFrames, want.FrameCorr, want.LagCorr} {
						g := []*tensor.Tensor{got.Corr, got.CorrFrames, got.FrameCorr, got.LagCorr}[i]
						if (g == nil) != (w == nil) {
							t.Fatalf("%s: correlation %d: %v, want %v", what, i, g, w)
						}
						if w != nil {
							near(t, fmt.Sprintf("%s correlation %d", what, i), g, w, 1e-12, false)
						}
					}
				}
				if opt.PCA {
					pref, err := PCAReference(x, policy)
					if err != nil {
						t.Fatal(err)
					}
					for _, want := range []*PCA{whole.PCA, pref} {
						near(t, what+" PCA values", got.PCA.Values, want.Values, 1e-12, true)
						near(t, what+" PCA ratio", got.PCA.Ratio, want.Ratio, 1e-12, false)
					}
					near(t, what+" PCA vectors", got.PCA.Vectors, whole.PCA.Vectors, 1e-9, false)
				}
				if fmt.Sprint(got.Notes) != fmt.Sprint(whole.Notes) {
					t.Errorf("%s: notes\n%q\nwant\n%q", what, got.Notes, whole.Notes)
				}
			}
		}
	}
}

// mergeChunks cuts x at random along the axes cut (a chunk of one element
// first along each), computes each chunk's Block, merges them in shuffled
// groups of 1 to 3, a third of them stored and restored first, and
// finishes the merge.
func mergeChunks(t *testing.T, rng *rand.Rand, x *tensor.Tensor, cut []int, opt Options) *Result {
	t.Helper()
	ctx := context.Background()
	nd := len(x.Shape)
	edges := make([][]int, nd)
	for i, s := range x.Shape {
		edges[i] = []int{0, s}
		if slices.Contains(cut, i) {
			edges[i] = []int{0, 1}
			for e := 1; e < s; e += 1 + rng.IntN(3) {
				edges[i] = append(edges[i], e)
			}
			edges[i] = append(slices.Compact(edges[i]), s)
			edges[i] = slices.Compact(edges[i])
		}
	}
	var blocks []*Block
	idx := make([]int, nd)
	for {
		origin, shape := make([]int, nd), make([]int, nd)
		for i := range nd {
			origin[i], shape[i] = edges[i][idx[i]], edges[i][idx[i]+1]-edges[i][idx[i]]
		}
		b, err := RunBlock(ctx, nil, Chunk{boxOf(x, origin, shape), origin, x.Shape}, opt)
		if err != nil {
			t.Fatal(err)
		}
		if rng.IntN(3) == 0 {
			f, arrays := b.Store()
			if b, err = RestoreBlock(f, arrays); err != nil {
				t.Fatal(err)
			}
		}
		blocks = append(blocks, b)
		i := nd - 1
		for ; i >= 0; i-- {
			if idx[i]++; idx[i] < len(edges[i])-1 {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	for len(blocks) > 1 {
		rng.Shuffle(len(blocks), func(i, j int) { blocks[i], blocks[j] = blocks[j], blocks[i] })
		k := min(len(blocks), 1+rng.IntN(3))
		m, err := MergeBlocks(blocks[:k]...)
		if err != nil {
			t.Fatal(err)
		}
		blocks = append(blocks[k:], m)
	}
	r, err := blocks[0].Finish(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// boxOf is the chunk of x (float64) of shape at origin.
func boxOf(x *tensor.Tensor, origin, shape []int) *tensor.Tensor {
	out := tensor.New(tensor.F64, shape...)
	nd := len(shape)
	idx := make([]int, nd)
	for e := range out.F64 {
		o := 0
		for i := range nd {
			o = o*x.Shape[i] + origin[i] + idx[i]
		}
		out.F64[e] = x.F64[o]
		for i := nd - 1; i >= 0; i-- {
			if idx[i]++; idx[i] < shape[i] {
				break
			}
			idx[i] = 0
		}
	}
	return out
}

// TestMergeBlocksRefuses: chunks that overlap, leave elements out, were
// computed otherwise, or cut the variables of a correlation do not give a
// result.
func TestMergeBlocksRefuses(t *testing.T) {
	ctx := context.Background()
	full := []int{2, 3, 4, 5}
	x := latentData(full, 7, storages[3])
	opt := Options{Moments: true, Axes: []int{0, 3}, Corr: true}
	block := func(origin, shape []int, o Options) *Block {
		b, err := RunBlock(ctx, nil, Chunk{boxOf(x, origin, shape), origin, full}, o)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if _, err := RunBlock(ctx, nil, Chunk{boxOf(x, []int{0, 0, 0, 0}, []int{2, 2, 4, 5}), []int{0, 0, 0, 0}, full}, opt); err == nil {
		t.Error("a chunk of 2 of 3 channels gave corr's block")
	}
	if _, err := RunBlock(ctx, nil, Chunk{x, make([]int, 4), full}, Options{Spectra: true}); err == nil {
		t.Error("a block of spectra")
	}
	a := block([]int{0, 0, 0, 0}, []int{2, 3, 2, 5}, opt)
	skip := opt
	skip.NaN = Skip
	if _, err := MergeBlocks(a, block([]int{0, 0, 1, 0}, []int{2, 3, 3, 5}, opt)); err == nil {
		t.Error("overlapping chunks merged")
	}
	if _, err := MergeBlocks(a, block([]int{0, 0, 2, 0}, []int{2, 3, 2, 5}, skip)); err == nil {
		t.Error("chunks of two NaN policies merged")
	}
	if _, err := a.Finish(ctx); err == nil {
		t.Error("half the tensor finished")
	}
	m, err := MergeBlocks(a, block([]int{0, 0, 2, 0}, []int{2, 3, 2, 5}, opt))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Finish(ctx); err != nil {
		t.Error(err)
	}
	f, arrays := a.Store()
	delete(arrays, "mom.m3")
	if _, err := RestoreBlock(f, arrays); err == nil {
		t.Error("a block without its M3 restored")
	}
}
