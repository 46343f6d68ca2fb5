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
    # chol's factored keyword is the same call, with the log-determinant
    # from the factor's diagonal
    r = dev.chol(l.astype(dt), b.astype(dt), l=False, logdet=True, factored=True)
    np.testing.assert_allclose(r.x, want, rtol=rtol, atol=rtol)
    np.testing.assert_allclose(r.logdet, np.linalg.slogdet(a)[1], rtol=rtol, atol=rtol)
    assert r.l is None and not r.info.any()
    bad = l.copy()
    bad[1, 2, 2] = 0.0
    with pytest.warns(RuntimeWarning, match="1 factor"):
        x = dev.cho_solve(bad, b)
    assert np.isnan(x[1]).all() and np.allclose(x[0], want[0]) and np.allclose(x[2], want[2])


# scikit-learn's formulas (sklearn/covariance/_shrunk_covariance.py,
# _empirical_covariance.py, 1.x), transcribed in NumPy.
def sk_empirical(x, assume_centered):
    if assume_centered:
        return x.T @ x / x.shape[0]
    return np.cov(x.T, bias=True)


def sk_shrunk(emp, shrinkage):
    p = emp.shape[0]
    out = (1 - shrinkage) * emp
    out.flat[:: p + 1] += shrinkage * np.trace(emp) / p
    return out


def sk_ledoit_wolf(x, assume_centered):
    n, p = x.shape
    if not assume_centered:
        x = x - x.mean(0)
    x2 = x ** 2
    tr = np.sum(x2, axis=0) / n
    mu = np.sum(tr) / p
    beta_ = np.sum(x2.T @ x2)
    delta_ = np.sum((x.T @ x) ** 2) / n ** 2
    beta = 1.0 / (p * n) * (beta_ / n - delta_)
    delta = (delta_ - 2.0 * mu * tr.sum() + p * mu ** 2) / p
    beta = min(beta, delta)
    rho = 0.0 if beta == 0 else beta / delta
    return sk_shrunk(sk_empirical(x, True), rho), rho


def sk_oas(x, assume_centered):
    n, p = x.shape
    emp = sk_empirical(x, assume_centered)
    alpha = np.mean(emp ** 2)
    mu = np.trace(emp) / p
    den = (n + 1) * (alpha - mu ** 2 / p)
    rho = 1.0 if den == 0 else min((alpha + mu ** 2) / den, 1.0)
    return sk_shrunk(emp, rho), rho


@pytest.mark.parametrize("centered", [False, True])
def test_cov_assume_centered_and_given_shrinkage(dev, centered):
    """scikit-learn's EmpiricalCovariance, ShrunkCovariance(shrinkage=),
    LedoitWolf and OAS, each with assume_centered, on sets whose means are
    far from 0 (so that centring matters)."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((4, 40, 5)) @ rng.standard_normal((5, 5)) + rng.uniform(1, 3, 5)
    r = dev.cov(x, assume_centered=centered)
    for k in range(4):
        np.testing.assert_allclose(r.cov[k], sk_empirical(x[k], centered), rtol=1e-12)
        np.testing.assert_allclose(r.mean[k], 0.0 if centered else x[k].mean(0), atol=1e-13)
    for shrinkage in (None, 0.0, 0.35, 1.0):
        kw = {} if shrinkage is None else {"shrinkage": shrinkage}
        r = dev.cov(x, "shrunk", assume_centered=centered, **kw)
        want_rho = 0.1 if shrinkage is None else shrinkage
        np.testing.assert_array_equal(r.rho, want_rho)
        for k in range(4):
            np.testing.assert_allclose(r.cov[k], sk_shrunk(sk_empirical(x[k], centered), want_rho), rtol=1e-12)
    for name, f in (("ledoit-wolf", sk_ledoit_wolf), ("oas", sk_oas)):
        r = dev.cov(x, name, assume_centered=centered)
        for k in range(4):
            c, rho = f(x[k], centered)
            np.testing.assert_allclose(r.rho[k], rho, rtol=1e-10, err_msg=name)
            np.testing.assert_allclose(r.cov[k], c, rtol=1e-10, atol=1e-14, err_msg=name)
    # ddof=1 rescales by T/(T−1), as before
    np.testing.assert_allclose(dev.cov(x[0], "shrunk", shrinkage=0.2, ddof=1, assume_centered=centered).cov,
                               sk_shrunk(sk_empirical(x[0], centered), 0.2) * 40 / 39, rtol=1e-12)


def test_cov_shrinkage_is_checked(dev):
    x = np.ones((10, 3))
    with pytest.raises(ValueError, match="give estimator shrunk"):
        dev.cov(x, "oas", shrinkage=0.2)
    with pytest.raises(ValueError, match=r"in \[0, 1\]"):
        dev.cov(x, "shrunk", shrinkage=1.5)
    with pytest.raises(TypeError):
        dev.cov(x, "shrunk", shrinkage="0.2")


def scipy_skew_kurt(x, axis, bias):
    """scipy.stats.skew and kurtosis (Fisher) along axis, from SciPy's
    formulas (scipy/stats/_stats_py.py), NaN-free x."""
    n = np.prod([x.shape[a] for a in axis])
    d = x - x.mean(axis=axis, keepdims=True)
    m2, m3, m4 = ((d ** k).mean(axis=axis) for k in (2, 3, 4))
    g1, g2 = m3 / m2 ** 1.5, m4 / m2 ** 2 - 3
    if not bias:
        if n > 2:
            g1 = np.sqrt((n - 1.0) * n) / (n - 2.0) * m3 / m2 ** 1.5
        if n > 3:
            g2 = 1.0 / (n - 2) / (n - 3) * ((n ** 2 - 1.0) * m4 / m2 ** 2.0 - 3 * (n - 1) ** 2.0)
    return g1, g2


@pytest.mark.parametrize("axes", [(3, 4), (1, 3), (0, 2, 4), (2,)])
def test_latent_unbiased_skew_and_kurtosis(dev, axes):
    """latent(bias=False) is scipy.stats.skew/kurtosis(bias=False), through
    every path the moments take (a run of last axes, a strided run, a
    permuted copy); bias=True is the default and SciPy's."""
    x = np.random.default_rng(5).gamma(2.0, size=(2, 3, 4, 5, 6))
    for bias in (True, False):
        r = dev.latent(x, "moments", axes=axes, bias=bias)
        g1, g2 = scipy_skew_kurt(x, axes, bias)
        np.testing.assert_allclose(r.skew, g1, rtol=1e-10, err_msg=f"bias={bias}")
        np.testing.assert_allclose(r.kurt, g2, rtol=1e-10, err_msg=f"bias={bias}")
    # batches of one sample, merged over the sample axis
    if 0 in axes:
        r = dev.latent(x, "moments", axes=axes, bias=False, batch=1)
        assert r.batches["batches"] == 2
        g1, g2 = scipy_skew_kurt(x, axes, False)
        np.testing.assert_allclose(r.skew, g1, rtol=1e-10)
        np.testing.assert_allclose(r.kurt, g2, rtol=1e-10)
    # n ≤ 3: SciPy leaves the kurtosis uncorrected (and the skewness for n ≤ 2)
    small = x[:, :, :3, :1, :1]
    r = dev.latent(small, "moments", axes=(2,), bias=False)
    g1, g2 = scipy_skew_kurt(small, (2,), False)
    np.testing.assert_allclose(r.skew, g1, rtol=1e-10)
    np.testing.assert_allclose(r.kurt, g2, rtol=1e-10)
    with pytest.raises(TypeError):
        dev.latent(x, "moments", bias="no")


def test_latent_unbiased_counts_the_values_left(dev):
    """Under nan="skip" n is each slice's count of values left, as SciPy's
    nan_policy="omit"."""
    x = np.random.default_rng(6).gamma(2.0, size=(2, 2, 3, 4, 5))
    x[0, 1, 2, :2, :3] = np.nan
    r = dev.latent(x, "moments", axes=(3, 4), nan="skip", bias=False)
    for idx in np.ndindex(x.shape[:3]):
        v = x[idx].ravel()
        v = v[~np.isnan(v)][:, None]
        g1, g2 = scipy_skew_kurt(v, (0,), False)
        np.testing.assert_allclose(r.skew[idx], g1[0], rtol=1e-10, err_msg=str(idx))
        np.testing.assert_allclose(r.kurt[idx], g2[0], rtol=1e-10, err_msg=str(idx))


@pytest.mark.parametrize("dt", [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint32])
def test_integer_sum_min_max_keep_numpys_types(dev, dt):
    """NumPy's sum of an integer array is int64 (uint64 unsigned), its min
    and max the array's own type; mean, var and std float64."""
    a = (np.arange(60) * 37 % 101).astype(dt).reshape(3, 4, 5)
    if np.dtype(dt).kind == "i":
        a = a - np.asarray(40, dt)
    for axis in (None, 0, (1, 2), (0, 2)):
        got = dev.reduce(a, "all", axis=axis)
        for name in ("sum", "min", "max", "mean", "var", "std"):
            want = getattr(np, name)(a, axis=axis)
            assert np.asarray(got[name]).dtype == want.dtype, (dt, axis, name)
            if name in ("sum", "min", "max"):
                np.testing.assert_array_equal(got[name], want, err_msg=f"{axis} {name}")
            else:
                np.testing.assert_allclose(got[name], want, rtol=1e-13, err_msg=f"{axis} {name}")
    if dt == np.int64:
        with pytest.raises(ValueError, match="2\\*\\*53"):
            dev.reduce(np.array([2 ** 62, 1], dt), "sum")


def test_bad_axis_is_numpys_axis_error(dev):
    import vkstat
    for f in (lambda: dev.reduce(np.ones((2, 3)), "mean", axis=2),
              lambda: dev.reduce(np.ones((2, 3)), "sum", axis=(0, -3)),
              lambda: dev.latent(np.ones((2, 3, 4, 5, 6)), "moments", axes=(7,))):
        with pytest.raises(np.AxisError) as e:
            f()
        assert isinstance(e.value, vkstat.InputError) and isinstance(e.value, IndexError)
        assert "out of range" in str(e.value)
