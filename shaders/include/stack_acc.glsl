// Per-pixel temporal statistics of a stack, one date at a time: Welford's
// single-pass update of (count, mean, M2) and the running min and max.
// The state lives in five float arrays at bindings ACC_BASE..ACC_BASE+4;
// the host zeroes count, mean and M2 before the first date (min and max
// are taken from the first valid sample). NaN samples (nodata, empty
// multilook cells) are skipped.

layout(std430, binding = ACC_BASE + 0) buffer AccN { float acc_n[]; };
layout(std430, binding = ACC_BASE + 1) buffer AccMean { float acc_mean[]; };
layout(std430, binding = ACC_BASE + 2) buffer AccM2 { float acc_m2[]; };
layout(std430, binding = ACC_BASE + 3) buffer AccMin { float acc_min[]; };
layout(std430, binding = ACC_BASE + 4) buffer AccMax { float acc_max[]; };

void accumulate(uint i, float x) {
	if (isnan(x)) {
		return;
	}
	float n = acc_n[i] + 1.0;
	float mean = acc_mean[i];
	float d = x - mean;
	mean += d / n;
	acc_m2[i] += d * (x - mean);
	acc_mean[i] = mean;
	if (n == 1.0) {
		acc_min[i] = x;
		acc_max[i] = x;
	} else {
		acc_min[i] = min(acc_min[i], x);
		acc_max[i] = max(acc_max[i], x);
	}
	acc_n[i] = n;
}
