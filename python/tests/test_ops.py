"""Every operation against NumPy on the same data, on the CPU path and
lavapipe."""

import numpy as np
import pytest

import vkstat

RNG = np.random.default_rng(20261126)


def rtol(dt):
    return 2e-6 if np.dtype(dt) == np.float32 else 1e-12


# ---- map --------------------------------------------------------------------

@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(1,), (1000,), (3, 257, 5), ()])
def test_map(dev, dt, shape):
    x = RNG.uniform(-2, 2, shape).astype(dt)
    y = RNG.uniform(-1, 1, shape).astype(dt)
    z = dev.map(x, y, a=3.5, b=2.8, c=10)
    a, b, c = (dt(v) for v in (3.5, 2.8, 10))  # float32 arithmetic for float32, as documented
    want = a * x * x + b * y + c
    assert z.dtype == dt and z.shape == shape
    np.testing.assert_allclose(z, want, rtol=rtol(dt))
    # a new array, or (a repeat) a view of the whole of one the session keeps for repeats
    assert z.flags.writeable and (z.flags.owndata or (z.base.flags.owndata and z.base.nbytes == z.nbytes))


def test_map_nan_and_defaults(dev):
    x = np.array([1.0, np.nan, 3.0])
    y = np.array([2.0, 0.0, np.nan])
    z = dev.map(x, y)  # a = 1, b = 1, c = 0
    np.testing.assert_array_equal(z, [3.0, np.nan, np.nan])


def test_map_mixed_dtypes_promote(dev):
    z = dev.map(np.float32([1, 2]), np.array([1, 2]), a=1, b=1, c=0)  # float32 with int64: float64
    assert z.dtype == np.float64
    np.testing.assert_array_equal(z, [2.0, 6.0])


# ---- reduce -----------------------------------------------------------------

NP = {"sum": np.sum, "mean": np.mean, "var": np.var, "std": np.std, "min": np.min, "max": np.max}
NPNAN = {"sum": np.nansum, "mean": np.nanmean, "var": np.nanvar, "std": np.nanstd, "min": np.nanmin, "max": np.nanmax}


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", [((37,), 0), ((5, 300), 1), ((64, 7, 9), 0), ((4, 5, 6), -2),
                                        ((4, 5, 6), None), ((4, 5, 6), (1, 2)), ((3, 1000), (0, 1))])
def test_reduce(dev, dt, shape, axis):
    a = RNG.normal(1000, 3, shape).astype(dt)
    got = dev.reduce(a, "all", axis=axis, ddof=1)
    ref = a.astype(np.float64)
    for name, f in NP.items():
        want = f(ref, axis=axis, ddof=1) if name in ("var", "std") else f(ref, axis=axis)
        assert got[name].dtype == dt and got[name].shape == np.shape(want), name
        np.testing.assert_allclose(got[name], want, rtol=rtol(dt) * 5, err_msg=name)


def test_reduce_single_stat_and_nan(dev):
    a = np.array([[1.0, np.nan, 3.0], [4.0, 5.0, 6.0]])
    np.testing.assert_array_equal(dev.reduce(a, "mean", axis=1), [np.nan, 5.0])
    got = dev.reduce(a, ["sum", "mean", "var", "min", "max"], axis=1, skipnan=True)
    for name in got:
        np.testing.assert_allclose(got[name], NPNAN[name](a, axis=1), rtol=1e-15, err_msg=name)


def test_reduce_float16_is_read_as_storage(dev):
    a = RNG.normal(0, 1, (8, 333)).astype(np.float16)
    got = dev.reduce(a, ["mean", "std"], axis=1)
    assert got["mean"].dtype == np.float32  # widened exactly, accumulated in float64
    np.testing.assert_allclose(got["mean"], a.astype(np.float64).mean(axis=1), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(got["std"], a.astype(np.float64).std(axis=1), rtol=1e-6)
    assert dev._last_copied == ()


def test_reduce_ddof_warns(dev):
    """The library's warning (reduce.Options.Warnings) in Python's words."""
    with pytest.warns(RuntimeWarning, match=r"^ddof 1 with 1 value\(s\) along the axis: var and std are NaN \(they divide by n − ddof\)$"):
        v = dev.reduce(np.ones((3, 1)), "var", axis=1, ddof=1)
    assert np.isnan(v).all()


# ---- cov --------------------------------------------------------------------

def shrink_ref(x, estimator):
    """(covariance with 1/T, ρ) of one (T, P) set, as scikit-learn writes
    ledoit_wolf_shrinkage and oas, and PACO.md the PACO weight."""
    t, p = x.shape
    xc = x - x.mean(axis=0)
    s = xc.T @ xc / t
    mu = np.trace(s) / p
    if estimator == "none":
        return s, 0.0
    if estimator == "paco":
        tr, fro, dsq = np.trace(s), np.sum(s * s), np.sum(np.diag(s) ** 2)
        rho = np.clip((fro + tr * tr - 2 * dsq) / ((t + 1) * (fro - dsq)), 0, 1)
        return (1 - rho) * s + rho * np.diag(np.diag(s)), rho
    if estimator == "ledoit-wolf":
        x2 = xc ** 2
        trace = x2.sum(axis=0) / t
        beta_ = np.sum(x2.T @ x2)
        delta_ = np.sum((xc.T @ xc) ** 2) / t ** 2
        delta = (delta_ - 2 * mu * trace.sum() + p * mu ** 2) / p
        beta = min(1 / (p * t) * (beta_ / t - delta_), delta)
        rho = 0.0 if beta == 0 else beta / delta
    else:  # oas
        alpha = np.mean(s ** 2)
        rho = min((alpha + mu ** 2) / ((t + 1) * (alpha - mu ** 2 / p)), 1.0)
    return (1 - rho) * s + rho * mu * np.eye(p), rho


@pytest.mark.parametrize("estimator", ["none", "paco", "ledoit-wolf", "oas"])
@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_cov(dev, estimator, dt):
    x = RNG.normal(0, 1, (6, 40, 9)) @ RNG.normal(0, 1, (9, 9))  # correlated variables
    x = x.astype(dt)
    r = dev.cov(x, estimator, ddof=1)
    assert r.cov.shape == (6, 9, 9) and r.mean.shape == (6, 9) and r.rho.shape == (6,) and r.cov.dtype == dt
    for n in range(6):
        c, rho = shrink_ref(x[n].astype(np.float64), estimator)
        np.testing.assert_allclose(r.cov[n], c * 40 / 39, rtol=rtol(dt) * 10, atol=rtol(dt) * 10 * np.abs(c).max())
        np.testing.assert_allclose(r.rho[n], rho, rtol=rtol(dt) * 100, atol=1e-12)
        np.testing.assert_allclose(r.mean[n], x[n].astype(np.float64).mean(axis=0), rtol=rtol(dt) * 10, atol=1e-6)
    if estimator == "none":
        np.testing.assert_allclose(r.cov[2], np.cov(x[2].astype(np.float64), rowvar=False), rtol=rtol(dt) * 10)


def test_cov_one_set_and_patches(dev):
    x = RNG.normal(0, 1, (50, 4))
    r = dev.cov(x)
    assert r.cov.shape == (4, 4) and r.rho.shape == () and r.locations is None
    np.testing.assert_allclose(r.cov, np.cov(x, rowvar=False, ddof=0), rtol=1e-12)
    cube = RNG.normal(0, 1, (30, 9, 10))
    r = dev.cov(cube, "paco", radius=1)  # offsets (0,0), (±1,0), (0,±1): 5 variables
    assert r.locations.dtype == np.int64 and r.cov.shape == (len(r.locations), 5, 5)
    offs = [(dy, dx) for dy in (-1, 0, 1) for dx in (-1, 0, 1) if dy * dy + dx * dx <= 1]
    for k in (0, len(r.locations) - 1):
        y0, x0 = r.locations[k]
        samples = np.stack([cube[:, y0 + dy, x0 + dx] for dy, dx in offs], axis=1)
        c, _ = shrink_ref(samples, "paco")
        # the patch's variables may be ordered otherwise: compare what does not depend on the order
        np.testing.assert_allclose(np.sort(np.linalg.eigvalsh(r.cov[k])), np.sort(np.linalg.eigvalsh(c)), rtol=1e-10)


# ---- chol -------------------------------------------------------------------

def spd(n, p, dt):
    g = RNG.normal(0, 1, (n, p, p))
    return (g @ g.transpose(0, 2, 1) + p * np.eye(p)).astype(dt)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("p", [1, 3, 17])
def test_chol(dev, dt, p):
    a = spd(5, p, dt)
    b = RNG.normal(0, 1, (5, p, 2)).astype(dt)
    r = dev.chol(a, b, inverse=True, logdet=True, quad=True)
    ref = a.astype(np.float64)
    tol = dict(rtol=rtol(dt) * 50, atol=rtol(dt) * 50)
    np.testing.assert_allclose(r.l, np.linalg.cholesky(ref), **tol)
    np.testing.assert_allclose(r.x, np.linalg.solve(ref, b.astype(np.float64)), **tol)
    np.testing.assert_allclose(r.inverse, np.linalg.inv(ref), **tol)
    np.testing.assert_allclose(r.logdet, np.linalg.slogdet(ref)[1], **tol)
    quad = np.einsum("npk,npk->nk", b.astype(np.float64), np.linalg.solve(ref, b.astype(np.float64)))
    np.testing.assert_allclose(r.quad, quad, **tol)
    np.testing.assert_array_equal(r.info, 0)
    assert r.info.dtype == np.int32 and r.l.dtype == dt


def test_chol_one_matrix_and_failure(dev):
    a = np.array([[4.0, 2.0], [2.0, 3.0]])
    r = dev.chol(a, np.array([1.0, 2.0]), l=False, logdet=True)
    assert r.l is None and r.inverse is None and r.info.shape == ()
    np.testing.assert_allclose(r.x, np.linalg.solve(a, [1.0, 2.0]), rtol=1e-14)
    np.testing.assert_allclose(r.logdet, np.log(8.0), rtol=1e-14)
    bad = np.stack([a, [[1.0, 2.0], [2.0, 1.0]]])  # the second has eigenvalue −1
    r = dev.chol(bad, logdet=True)
    np.testing.assert_array_equal(r.info, [0, 2])
    assert np.isnan(r.l[1]).all() and np.isnan(r.logdet[1]) and not np.isnan(r.l[0]).any()


# ---- verify and devices -------------------------------------------------------

def test_verify(dev):
    rep = dev.verify(["map", "chol"], "float32")
    assert rep.ok and rep.passed > 0 and rep.failed == 0
    assert {r["op"] for r in rep.results} == {"map", "chol"}
    assert all(r["precision"] == "float32" for r in rep.results)
    assert "passed" in str(rep)


def test_devices():
    ds = vkstat.devices()
    assert ds[-1]["path"] == "cpu" and ds[-1]["index"] == -1
    for d in ds[:-1]:
        assert d["path"] == "vulkan" and d["vulkan"]["api_version"]


def test_module_functions_use_one_default_session():
    x = np.arange(4.0)
    np.testing.assert_array_equal(vkstat.map(x, x, 1, 0, 0), x * x)
    s = vkstat.default_session()
    assert vkstat.default_session() is s
    np.testing.assert_allclose(vkstat.reduce(x, "std"), np.std(x))
    assert vkstat.chol(np.eye(2) * 4).l[1, 1] == 2.0
    assert vkstat.cov(np.eye(3)).cov.shape == (3, 3)


def test_last_timing(dev):
    x = np.ones(4096, np.float32)
    dev.map(x, x)
    t = dev.last_timing
    assert t["wall_ms"] >= t["kernel_ms"] >= 0
    if dev.device["path"] == "vulkan":  # x and y up, z down
        assert t["up_bytes"] == 2 * x.nbytes and t["down_bytes"] == x.nbytes
    else:
        assert t["up_bytes"] == t["down_bytes"] == 0
