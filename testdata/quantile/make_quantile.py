#!/usr/bin/python3
"""Writes the NumPy side of pipelines/quantile's tests:

    x.npy              float64 (9, 4, 6): normal values, NaNs planted
    q.npy              the quantiles asked for
    quantile_axis<A>.npy     np.quantile(x, q, axis=A), A = 0, 1, 2
    nanquantile_axis<A>.npy  np.nanquantile(x, q, axis=A)
    ties_x.npy         float64 (5, 1001): integers 0..9, many ties
    ties_quantile.npy       np.quantile(ties_x, q, axis=-1) (odd length)
    ties_even_quantile.npy  np.quantile(ties_x[:, 1:], q, axis=-1) (even length)

The float32 tests cast x to float32 and hold the results to these float64
values within float32 rounding. Run from the repository root:
/usr/bin/python3 testdata/quantile/make_quantile.py
"""
import warnings

import numpy as np

rng = np.random.default_rng(42)
q = np.array([0.0, 0.1, 0.25, 0.5, 0.75, 0.9, 0.999, 1.0])
x = rng.standard_normal((9, 4, 6)) * 3.0 + 1.0
x[2, 1, 3] = np.nan        # one NaN in a slice along every axis
x[5, 0, 0] = np.nan
x[:, 3, 5] = np.nan        # an all-NaN slice along axis 0
x[7, 2, :] = np.nan        # an all-NaN slice along axis 2
np.save("testdata/quantile/x.npy", x)
np.save("testdata/quantile/q.npy", q)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", RuntimeWarning)  # All-NaN slice
    for a in range(3):
        np.save(f"testdata/quantile/quantile_axis{a}.npy", np.quantile(x, q, axis=a))
        np.save(f"testdata/quantile/nanquantile_axis{a}.npy", np.nanquantile(x, q, axis=a))
t = rng.integers(0, 10, size=(5, 1001)).astype(np.float64)
np.save("testdata/quantile/ties_x.npy", t)
w = np.quantile(t, q, axis=-1)
np.save("testdata/quantile/ties_quantile.npy", w)
np.save("testdata/quantile/ties_even_quantile.npy", np.quantile(t[:, 1:], q, axis=-1))
