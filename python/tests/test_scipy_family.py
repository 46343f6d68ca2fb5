"""What users of SciPy, scikit-learn and NumPy reach for (issue 40, item
14), held to those libraries' formulas written here in NumPy (SciPy and
scikit-learn need not be installed): cho_solve from an existing factor,
cov's assume_centered and a given shrinkage, unbiased skewness and
kurtosis, integer sums, minima and maxima, and np.AxisError."""

import warnings

import numpy as np
import pytest


def random_factors(rng, n, p):
    """Lower-triangular factors with a positive diagonal, junk above it."""
    l = np.tril(rng.uniform(-0.5, 0.5, (n, p, p)))
    l[:, np.arange(p), np.arange(p)] = rng.uniform(0.5, 1.5, (n, p))
    return l + np.triu(np.full((p, p), 1e30), 1)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_cho_solve_from_a_factor(dev, dt):
    """scipy.linalg.cho_solve((c, lower), b) is np.linalg.solve(L·Lᵀ, b);
    only the factor's triangle is read (the junk above it would spoil a
    refactorisation), upper factors (lower=False) are Lᵀ."""
    rng = np.random.default_rng(1)
    l = random_factors(rng, 3, 6)
    lo = np.tril(l)
    a = lo @ np.swapaxes(lo, -1, -2)
    b = rng.standard_normal((3, 6, 2))
    want = np.linalg.solve(a, b)
    rtol = 1e-5 if dt == np.float32 else 1e-12
    got = dev.cho_solve(l.astype(dt), b.astype(dt))
    assert got.dtype == dt and got.shape == b.shape
    np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)
    upper = np.swapaxes(lo, -1, -2) + np.tril(np.full((6, 6), -7e30), -1)
    np.testing.assert_allclose(dev.cho_solve((upper.astype(dt), False), b.astype(dt)), want, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(dev.cho_solve((l[0].astype(dt), True), b[0, :, 0].astype(dt)), want[0, :, 0],
                               rtol=rtol, atol=rtol)
    # the factor chol gives round-trips
    np.testing.assert_allclose(dev.cho_solve(dev.chol(a).l, b), want, rtol=1e-12)
    bad = l.copy()
    bad[1, 2, 2] = 0.0
    with pytest.warns(RuntimeWarning, match="1 factor"):
        x = dev.cho_solve(bad, b)
    assert np.isnan(x[1]).all() and np.allclose(x[0], want[0]) and np.allclose(x[2], want[2])
