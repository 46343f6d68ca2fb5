"""vkstat.quantile against np.quantile, np.nanquantile and np.median on the
same data, on the CPU path and lavapipe."""

import warnings

import numpy as np
import pytest

import vkstat

RNG = np.random.default_rng(20261207)


def tol(dt):
    # float32: NumPy 1.24 computes in float64 what vkstat stores in float32
    return dict(rtol=1e-6, atol=1e-6) if np.dtype(dt) == np.float32 else dict(rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("shape,axis", [((1,), 0), ((257,), 0), ((16, 9, 7), 0), ((16, 9, 7), 1), ((5, 300), -1),
                                        ((3, 1025, 4), 1), ((2, 9000), 1)])
def test_quantile_matches_numpy(dev, dt, shape, axis):
    x = RNG.standard_normal(shape).astype(dt)
    q = [0.0, 0.1, 0.25, 0.5, 0.9, 0.999, 1.0]
    got = dev.quantile(x, q, axis=axis)
    want = np.quantile(x, q, axis=axis)
    assert got.dtype == dt and got.shape == want.shape
    np.testing.assert_allclose(got, want, **tol(dt))
    one = dev.quantile(x, 0.3, axis=axis)  # one quantile: no leading axis, as NumPy
    assert np.shape(one) == np.shape(np.quantile(x, 0.3, axis=axis))
    np.testing.assert_allclose(one, np.quantile(x, 0.3, axis=axis), **tol(dt))


@pytest.mark.parametrize("dt", [np.float32, np.float64])
@pytest.mark.parametrize("axis", [0, 1, 2, -1])
def test_skip_nan_is_nanquantile(dev, dt, axis):
    x = RNG.standard_normal((12, 5, 70)).astype(dt)
    x[RNG.random(x.shape) < 0.2] = np.nan
    x[:, 1, 3] = np.nan  # all-NaN slices along axis 0,
    x[4, 2, :] = np.nan  # and along axis 2
    q = [0.05, 0.5, 0.95]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's All-NaN slice
        want_nan = np.nanquantile(x, q, axis=axis)
    np.testing.assert_allclose(dev.quantile(x, q, axis=axis, skip_nan=True), want_nan, **tol(dt))
    np.testing.assert_allclose(dev.quantile(x, q, axis=axis), np.quantile(x, q, axis=axis), **tol(dt))


def test_median_and_defaults(dev):
    x = RNG.standard_normal((8, 6, 5))
    np.testing.assert_allclose(dev.quantile(x), np.median(x, axis=0), rtol=1e-12, atol=1e-15)
    assert dev.quantile(np.arange(5.0)) == 2.0 and np.ndim(dev.quantile(np.arange(5.0))) == 0
    np.testing.assert_allclose(dev.quantile(x, 0.7, axis=None), np.quantile(x, 0.7), rtol=1e-12)
    np.testing.assert_allclose(vkstat.quantile(x, [0.2, 0.8], axis=2), np.quantile(x, [0.2, 0.8], axis=2), rtol=1e-12)
    # integers are read as float64
    i = RNG.integers(0, 100, (40, 3))
    np.testing.assert_allclose(dev.quantile(i, 0.5), np.quantile(i, 0.5, axis=0), rtol=1e-12)


def test_out(dev):
    x = RNG.standard_normal((20, 4, 3)).astype(np.float32)
    out = np.empty((2, 4, 3), np.float32)
    assert dev.quantile(x, [0.25, 0.75], out=out) is out
    np.testing.assert_allclose(out, np.quantile(x, [0.25, 0.75], axis=0), **tol(np.float32))
    one = np.empty((4, 3), np.float64)  # a one-quantile result cast into float64, as NumPy's out
    assert dev.quantile(x, 0.5, out=one) is one
    np.testing.assert_allclose(one, np.median(x, axis=0), **tol(np.float32))
    xs = x[:, :, 0].T.copy()
    col = np.zeros((4, 6), np.float32)[:, 2]  # not contiguous: written through a temporary
    assert dev.quantile(xs, 0.5, axis=1, out=col) is col
    np.testing.assert_allclose(col, np.median(xs, axis=1), **tol(np.float32))
    with pytest.raises(ValueError, match="shape"):
        dev.quantile(x, [0.25, 0.75], out=np.empty((3, 4, 3), np.float32))


def test_bad_input(dev):
    x = RNG.standard_normal((4, 5))
    with pytest.raises(ValueError, match=r"q must be in \[0, 1\], got 1.5"):
        dev.quantile(x, [0.5, 1.5])
    with pytest.raises(ValueError, match="got nan|got NaN"):
        dev.quantile(x, float("nan"))
    with pytest.raises(np.AxisError):
        dev.quantile(x, 0.5, axis=2)
    with pytest.raises(ValueError, match="length 0"):
        dev.quantile(np.empty((0, 3)), 0.5, axis=0)
