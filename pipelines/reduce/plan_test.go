package reduce

import "testing"

// TestPlanTiles checks that tiles cover every (outer, row, inner) element
// exactly once and respect the binding limits, for geometries on both sides
// of each limit.
func TestPlanTiles(t *testing.T) {
	geoms := []Geometry{
		{Outer: 1, N: 1, Inner: 1}, {Outer: 1, N: 1000, Inner: 1}, {Outer: 7, N: 13, Inner: 5},
		{Outer: 3, N: 40, Inner: 9}, {Outer: 1, N: 3, Inner: 250}, {Outer: 2, N: 5, Inner: 70},
		{Outer: 50, N: 2, Inner: 3}, {Outer: 1, N: 100, Inner: 100},
	}
	for _, g := range geoms {
		for _, lim := range [][2]int{{64, 64}, {100, 30}, {1000, 1000}, {7, 3}} {
			maxElems, maxRecords := lim[0], lim[1]
			seen := make([]int, g.Outer*g.N*g.Inner)
			for _, tl := range planTiles(g, maxElems, maxRecords, 32, 8) {
				first := (tl.o0*g.N+tl.r0)*g.Inner + tl.j0
				last := ((tl.o0+tl.oCount-1)*g.N+tl.r0+tl.rows-1)*g.Inner + tl.j0 + tl.jCount
				if tl.gather {
					last = first + tl.rows*tl.jCount // packed in the window
				}
				if last-first > maxElems {
					t.Errorf("%+v lim %v: tile %+v window %d > %d", g, lim, tl, last-first, maxElems)
				}
				if tl.records() > maxRecords {
					t.Errorf("%+v lim %v: tile %+v has %d records > %d", g, lim, tl, tl.records(), maxRecords)
				}
				if tl.chunk*tl.nchunks < tl.rows || tl.chunk*(tl.nchunks-1) >= tl.rows {
					t.Errorf("%+v: chunks %d×%d do not split %d rows", g, tl.nchunks, tl.chunk, tl.rows)
				}
				for o := tl.o0; o < tl.o0+tl.oCount; o++ {
					for r := tl.r0; r < tl.r0+tl.rows; r++ {
						for j := tl.j0; j < tl.j0+tl.jCount; j++ {
							seen[(o*g.N+r)*g.Inner+j]++
						}
					}
				}
			}
			for i, c := range seen {
				if c != 1 {
					t.Fatalf("%+v lim %v: element %d covered %d times", g, lim, i, c)
				}
			}
		}
	}
}
