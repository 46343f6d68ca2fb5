package cov

// syrkLower sets the lower triangle (diagonal included) of the p×p matrix s
// to XᵀX·scale, X being the t×pp row-major panel x (pp a multiple of 8,
// columns from p on zero, len(x) ≥ t·pp), and returns the trace, the sum of
// the squares of every entry (both triangles) and of the diagonal entries
// of that matrix: the moments the shrinkage weights need, taken as the
// entries are stored. It walks the triangle in tiles of 4 rows by 8
// columns, each one pass over the t rows of the panel (kern4x8); the
// entries of a tile above the diagonal or beyond row p−1 are computed and
// dropped. tile is scratch.
func syrkLower(kern4x8 func(x []float64, pp, t, i0, jb int, tile *[32]float64), s, x []float64, p, t, pp int, scale float64, tile *[32]float64) (tr, fro, dsq float64) {
	if pp%8 != 0 || pp < p || len(x) < t*pp || len(s) < p*p {
		panic("cov: syrkLower: bad panel")
	}
	var off float64 // Σ of the squares below the diagonal
	for jb := 0; jb < p; jb += 8 {
		for i0 := jb; i0 < p; i0 += 4 {
			kern4x8(x, pp, t, i0, jb, tile)
			for r := 0; r < 4 && i0+r < p; r++ {
				i := i0 + r
				n := min(i-jb, 8) // columns jb..jb+n−1 are below the diagonal
				row := s[i*p+jb : i*p+jb+n]
				tv := tile[r*8 : r*8+n]
				for c, v := range tv {
					v *= scale
					row[c] = v
					off += v * v
				}
				if n < 8 { // the diagonal entry is in this tile
					v := tile[r*8+n] * scale
					s[i*p+i] = v
					tr += v
					dsq += v * v
				}
			}
		}
	}
	return tr, 2*off + dsq, dsq
}

// kernels are the inner loops of the CPU path: the SYRK tile (kern4x8) and,
// for float32 (N, T, P) arrays, the centred packing (the column sums are
// vec.AddRows).
type kernels struct {
	name      string
	kern4x8   func(x []float64, pp, t, i0, jb int, tile *[32]float64)
	centreF32 func(dst []float64, pp int, src []float32, p, t int, mean []float64)
}

// goKernels are plain Go, for every architecture.
var goKernels = kernels{"go", kern4x8Go, centreF32Go}

// impl is the set the CPU path uses: goKernels, or assembly where the
// processor has it (syrk_amd64.go); a test's Options.test may ask for
// another.
var impl = goKernels

// kern4x8Go sets tile[r*8+c] to Σ_tt x[tt*pp+i0+r]·x[tt*pp+jb+c] for
// r < 4, c < 8: the outer products of four panel columns with eight,
// accumulated over the t rows (i0+3 and jb+7 are below pp). It works in
// 2×2 sub-tiles, four independent accumulators each, so that every load
// feeds two multiply-adds and the additions do not wait on one another.
func kern4x8Go(x []float64, pp, t, i0, jb int, tile *[32]float64) {
	if t < 1 {
		clear(tile[:])
		return
	}
	_ = x[(t-1)*pp+max(i0+3, jb+7)]
	for r := 0; r < 4; r += 2 {
		for c := 0; c < 8; c += 2 {
			var s00, s01, s10, s11 float64
			for o := 0; o < t*pp; o += pp {
				a0, a1 := x[o+i0+r], x[o+i0+r+1]
				b0, b1 := x[o+jb+c], x[o+jb+c+1]
				s00 += a0 * b0
				s01 += a0 * b1
				s10 += a1 * b0
				s11 += a1 * b1
			}
			tile[r*8+c], tile[r*8+c+1] = s00, s01
			tile[(r+1)*8+c], tile[(r+1)*8+c+1] = s10, s11
		}
	}
}
