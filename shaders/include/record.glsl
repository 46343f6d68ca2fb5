// The partial statistics of one run of values (reduce_partial, reduce_rows;
// merged by reduce_finish or the host): mean and M2 (sum of squared
// deviations) of the n non-NaN values, their min and max, and the NaNs seen.
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
