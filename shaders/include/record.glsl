// The partial statistics of one run of values (reduce_partial, reduce_rows;
// merged by reduce_finish or the host): mean and M2 (sum of squared
// deviations) of the n non-NaN values, their min and max, and the NaNs seen.
// ±Inf values count in n, min and max, and may leave mean and M2 Inf or
// NaN (Inf − Inf): whoever finishes the statistics reads an infinity from
// min = −Inf or max = +Inf and ignores mean and M2 then (sum and mean are
// ±Inf, or NaN with both signs; var and std NaN, as NumPy gives).
// The mean is the unrounded sum mean + mlo (the run's shift and the mean of
// the deviations from it): rounded to one float32 it would lose the spread
// of runs whose mean is large against their spread.
struct Record {
	ACC mean;
	ACC m2;
	ACC mn;
	ACC mx;
	uint n;
	uint nans;
	ACC mlo;
};

// acc_add adds x to the running sum s. In the variants without float64
// (COMPENSATED) the sum is compensated (Kahan): c carries what rounding
// lost, and the error stays a few ulps however long the run, where a plain
// float32 sum of millions of values loses three digits.
#ifdef COMPENSATED
#define acc_add(s, c, x) { precise ACC y_ = (x) - c; precise ACC t_ = s + y_; c = (t_ - s) - y_; s = t_; }
#else
#define acc_add(s, c, x) { s += (x); }
#endif

// ACC_INF is +Inf in ACC.
#define ACC_INF ACC(uintBitsToFloat(0x7f800000u))

// record_m2 is a record's M2, Σd² − (Σd)·dm from sums shifted by one value
// (dm = Σd / n), clipped at 0 against rounding. Sums that overflowed (finite
// values whose squared deviations pass ACC's range) make it +Inf, as
// NumPy's variance is then: the test comes first because GLSL leaves max()
// of a NaN undefined (llvmpipe returns the other operand, 0).
ACC record_m2(ACC s1, ACC s2, ACC dm) {
	ACC m2 = s2 - s1 * dm;
	return (isnan(m2) || isinf(m2)) ? ACC_INF : max(m2, ACC(0));
}

// RESCUE is 2^-40: a plain sum of up to 2^32 values of ACC's range, each
// scaled by it, cannot overflow (float: 2^128 · 2^32 · 2^-40 < 2^128).
#define RESCUE ACC(1.0 / 1099511627776.0)

// record_rescued reports whether the shifted sum s1 of n > 0 values is
// not finite though every value is (mn, mx finite): it overflowed where the
// values' own sum may not, or with the other sign. [1e308, 1e308, 0, 0]
// shifted by 1e308 sums to −2e308 = −Inf where the sum is +Inf (issue 34).
bool record_rescued(ACC s1, uint n, ACC mn, ACC mx) {
	ACC dm = s1 / ACC(n);
	return (isinf(dm) || isnan(dm)) && !isinf(mn) && !isinf(mx);
}

// record_stats fills r's mean and M2 from the sums of its n > 0 values
// (r.mn and r.mx set): shifted by shift (s1, s2), or, where record_rescued,
// from s0, their plain sum scaled by RESCUE; M2 is then +Inf (deviations
// that large square past ACC's range).
void record_stats(inout Record r, ACC shift, ACC s1, ACC s2, ACC s0, uint n) {
	if (record_rescued(s1, n, r.mn, r.mx)) {
		r.mean = ACC(0);
		r.mlo = (s0 / ACC(n)) / RESCUE;
		r.m2 = ACC_INF;
	} else {
		ACC dm = s1 / ACC(n);
		r.mean = shift;
		r.mlo = dm;
		r.m2 = record_m2(s1, s2, dm);
	}
}
