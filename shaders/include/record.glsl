// The partial statistics of one run of values (reduce_partial, reduce_rows;
// merged by reduce_finish or the host): mean and M2 (sum of squared
// deviations) of the n non-NaN values, their min and max, and the NaNs seen.
struct Record {
	ACC mean;
	ACC m2;
	ACC mn;
	ACC mx;
	uint n;
	uint nans;
};
