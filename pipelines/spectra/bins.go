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

// SpatialSumsBytes bounds the device memory of the sums spatialGroupsOf
// keeps for b frames of h×w in groups of members on a device: per frame
// its K bins and three totals, plus four values for each further segment
// of binSegment values, and the groups' sums (K + 3 per unit), at most 8
// bytes each.
func SpatialSumsBytes(b, members, h, w int) int64 {
	nseg := (int64(h)*int64(w) + int64(binSegment) - 1) / int64(binSegment)
	k := int64(Bins(h, w))
	g := groupList{members: max(members, 1)}
	g.mseg, g.nsegm = groupUnits(g.members, int(nseg))
	return int64(b)*(k+4*nseg-1)*8 + int64(g.maxUnits(b))*(k+3)*8
}

// TemporalSumsBytes is the device memory of the sums temporalGroupsOf
// keeps for b series of f frames in groups of members: per series its
// f/2+1 bins, and as many per unit of a group, at most 8 bytes each.
func TemporalSumsBytes(b, members, f int) int64 {
	g := groupList{members: max(members, 1)}
	g.mseg, g.nsegm = groupUnits(g.members, 1)
	return (int64(b) + int64(g.maxUnits(b))) * int64(f/2+1) * 8
}

// groupSegment is the most members of a group one invocation of
// spectra_groups sums (fewer where a transform's outputs gather more
// slots: groupLoop bounds its loop iterations, well under the 65,535
// llvmpipe lets one invocation run). A variable so that tests can cut
// groups into many units.
var groupSegment = 4096

const groupLoop = 16384

// groupList is what spectra_groups needs to add transforms' slots into
// groups: per output (the bins, then the three totals where there are
// some) the list of slots of a transform it sums, and the units a group is
// cut into (nsegm of at most mseg members).
type groupList struct {
	tab                        []uint32 // nout+1 starts, then the lists
	nout, members, mseg, nsegm int
}

// groupUnits cuts groups of members into the fewest units of (nearly)
// equal size within groupSegment and groupLoop/(longest+1) members.
func groupUnits(members, longest int) (mseg, nsegm int) {
	most := max(1, min(groupSegment, groupLoop/(longest+1)))
	nsegm = (members + most - 1) / most
	return (members + nsegm - 1) / nsegm, nsegm
}

func newGroupList(t *binTable, totals bool, members int) *groupList {
	g := &groupList{nout: t.k, members: members}
	if totals && !t.perBin {
		g.nout += 3
	}
	lists := make([][]uint32, g.nout)
	if t.perBin {
		for j := range t.k {
			lists[j] = []uint32{uint32(j)}
		}
	} else {
		for s := 0; s < t.nseg; s++ {
			for j := 0; j < t.nb[s]; j++ {
				lists[t.first[s]+j] = append(lists[t.first[s]+j], uint32(t.slot[s]+j))
			}
			for c := t.k; c < g.nout; c++ {
				lists[c] = append(lists[c], uint32(t.slot[s]+t.nb[s]+c-t.k))
			}
		}
	}
	g.tab = make([]uint32, g.nout+1)
	longest := 0
	for o, l := range lists {
		g.tab[o] = uint32(len(g.tab))
		g.tab = append(g.tab, l...)
		longest = max(longest, len(l))
	}
	g.tab[g.nout] = uint32(len(g.tab))
	g.mseg, g.nsegm = groupUnits(members, longest)
	return g
}

// unit is the unit transform tt belongs to.
func (g *groupList) unit(tt int) int { return (tt/g.members)*g.nsegm + (tt%g.members)/g.mseg }

// maxUnits bounds the units a chunk of m transforms touches: the groups it
// touches (at most ⌈m/members⌉ + 1) times their units, and at most one per
// transform.
func (g *groupList) maxUnits(m int) int {
	return min(m, ((m+g.members-1)/g.members+1)*g.nsegm)
}

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

// spatialTable is the table of the half-plane spectrum of s's frames as a
// transform of n1 rows of n0 (the frame's rows, or one row of its H values
// when W = 1) lays it out: rows of n0/2+1 values in the real-to-complex
// layout, where column kx also stands for its mirror (−ky, −kx) (same bin,
// same ν, same power) except for column 0 and, for even n0, n0/2; every
// value once in the complex layout. Bins and ν come from radialTable, the
// host's own binning, which also fills s.Count and s.Radius.
func spatialTable(s *SpatialGroups, n1, n0 int, real bool) (*binTable, error) {
	cols := n0
	if real {
		cols = n0/2 + 1
	}
	bins := make([]int, n1*cols)
	flags := make([]uint32, n1*cols)
	nus := make([]float64, n1*cols)
	radialTable(s.H, s.W, s.K, s.Count, s.Radius, func(j, r int, nu float64) {
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
