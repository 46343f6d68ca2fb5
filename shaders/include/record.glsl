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
