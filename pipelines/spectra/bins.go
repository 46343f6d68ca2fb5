package spectra

import (
	"fmt"
)

// binSegment is how many values of a transform one invocation of
// spectra_bins sums: with the bins it spans (at most as many), well under
// the 65,535 loop iterations llvmpipe lets one invocation run. A variable
// so that tests can cut small spectra into many segments.
var binSegment = 4096

// binTable is what spectra_bins needs to reduce a transform's spectrum on
// the device (shaders/spectra_bins.comp): the transform's e complex values
// sorted by bin, each with its weight and ν > 1/4 flag, where each bin
// starts, and the segments one invocation each sums; and what the host
// needs to read the sums back.
type binTable struct {
	e, k   int       // values per transform, bins
	tab    []uint32  // ord (e), bstart (k+2), seg (4 per segment)
	nu     []float64 // ν of each value of ord
	boff   int       // bstart's offset in tab
	soff   int       // seg's offset in tab
	nseg   int
	perBin bool  // series: an invocation per bin, no list, no totals
	slots  int   // outputs per transform
	first  []int // per segment: its first bin, how many bins < k it
	nb     []int // writes and where (slot) in a transform's outputs
	slot   []int
}

// SpatialSumsBytes bounds the device memory of the sums SpatialSpectra
// keeps for b frames of h×w on a device: per frame its K bins and three
// totals, plus four values for each further segment of binSegment values,
// at most 8 bytes each.
func SpatialSumsBytes(b, h, w int) int64 {
	nseg := (int64(h)*int64(w) + int64(binSegment) - 1) / int64(binSegment)
	return int64(b) * (int64(Bins(h, w)) + 4*nseg - 1) * 8
}

// TemporalSumsBytes is the device memory of the sums TemporalSpectra keeps
// for b series of f frames: per series its f/2+1 bins, at most 8 bytes each.
func TemporalSumsBytes(b, f int) int64 { return int64(b) * int64(f/2+1) * 8 }

const (
	binIndexMask = 1<<30 - 1
	binDouble    = 1 << 30 // the value stands for its mirror too
	binHigh      = 1 << 31 // ν > 1/4
)

// newBinTable sorts the e = len(bins) values by bin (bin k: none, counted
// in the totals only), flags holding their weight and ν > 1/4 bits and nu
// their ν, and cuts the list into segments of at most seg values, each
// with its bins' sums and its totals (Σ P, Σ ν·P, Σ_{ν>1/4} P).
func newBinTable(bins []int, flags []uint32, nu []float64, k, seg int) (*binTable, error) {
	e := len(bins)
	if e > binIndexMask+1 {
		return nil, fmt.Errorf("spectra: %d frequencies in one transform, more than the device reduction indexes (%d)", e, binIndexMask+1)
	}
	t := &binTable{e: e, k: k}
	t.boff = e
	t.soff = e + k + 2
	t.nseg = (e + seg - 1) / seg
	t.tab = make([]uint32, t.soff+4*t.nseg)
	t.nu = make([]float64, e)
	bstart := t.tab[t.boff:t.soff]
	for _, b := range bins {
		bstart[b+1]++
	}
	for b := 1; b < len(bstart); b++ {
		bstart[b] += bstart[b-1]
	}
	next := make([]uint32, k+1)
	copy(next, bstart)
	for i, b := range bins {
		t.tab[next[b]] = uint32(i) | flags[i]
		t.nu[next[b]] = nu[i]
		next[b]++
	}
	t.first, t.nb, t.slot = make([]int, t.nseg), make([]int, t.nseg), make([]int, t.nseg)
	for g := 0; g < t.nseg; g++ {
		lo, hi := g*seg, min(e, (g+1)*seg)
		first := bins[t.tab[lo]&binIndexMask]
		last := bins[t.tab[hi-1]&binIndexMask]
		t.first[g], t.nb[g], t.slot[g] = first, min(last+1, k)-min(first, k), t.slots
		copy(t.tab[t.soff+4*g:], []uint32{uint32(lo), uint32(hi), uint32(t.slots), uint32(first)})
		t.slots += t.nb[g] + 3
	}
	return t, nil
}

// sums adds the outputs of one transform (slots values) into its bins
// (k values) and returns its totals Σ P, Σ ν·P, Σ_{ν>1/4} P (0 where
// t.perBin).
func (t *binTable) sums(out, bins []float64) (tot, nus, hi float64) {
	if t.perBin {
		for j := range bins {
			bins[j] += out[j]
		}
		return 0, 0, 0
	}
	for g := 0; g < t.nseg; g++ {
		o := out[t.slot[g]:]
		for j := 0; j < t.nb[g]; j++ {
			bins[t.first[g]+j] += o[j]
		}
		tot += o[t.nb[g]]
		nus += o[t.nb[g]+1]
		hi += o[t.nb[g]+2]
	}
	return tot, nus, hi
}

// spatialTable is the table of the half-plane spectrum of s's frames as a
// transform of n1 rows of n0 (the frame's rows, or one row of its H values
// when W = 1) lays it out: rows of n0/2+1 values in the real-to-complex
// layout, where column kx also stands for its mirror (−ky, −kx) (same bin,
// same ν, same power) except for column 0 and, for even n0, n0/2; every
// value once in the complex layout. Bins and ν come from radialTable, the
// host's own binning, which also fills s.Count and s.Radius.
func spatialTable(s *Spatial, n1, n0 int, real bool) (*binTable, error) {
	cols := n0
	if real {
		cols = n0/2 + 1
	}
	bins := make([]int, n1*cols)
	flags := make([]uint32, n1*cols)
	nus := make([]float64, n1*cols)
	radialTable(s, func(j, r int, nu float64) {
		t1, t0 := j/n0, j%n0
		if t0 >= cols {
			return
		}
		i := t1*cols + t0
		if r < 0 {
			r = s.K
		}
		bins[i], nus[i] = r, nu
		if real && t0 >= 1 && t0 <= (n0+1)/2-1 {
			flags[i] |= binDouble
		}
		if nu > 0.25 {
			flags[i] |= binHigh
		}
	})
	return newBinTable(bins, flags, nus, s.K, binSegment)
}

// temporalTable is the table of series of f frames (temporalFrom's
// one-sided spectrum), which spectra_bins needs no list for: one
// invocation per bin j = 0 … f/2 of each series reads value j, weight 2
// in the real-to-complex layout except j = 0 and, for even f, f/2, or
// values j and f − j in the complex layout, in place. No totals: ν is the
// bin's, so they follow from the bins (Temporal.sums).
func temporalTable(f int) *binTable {
	k := f/2 + 1
	return &binTable{k: k, perBin: true, slots: k, tab: []uint32{0}, nu: []float64{0}}
}
