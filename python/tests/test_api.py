"""The package's face as NumPy users expect it (issue 33, item 10): the
star import, NumPy's positional axis, keepdims and scalars; the
module-level functions made from the Session's methods."""

import builtins
import inspect

import numpy as np
import pytest

import vkstat


def test_star_import_leaves_the_builtins():
    ns = {}
    exec("from vkstat import *", ns)
    assert "open" not in ns and "map" not in ns
    assert {"reduce", "cov", "chol", "Session", "devices"} <= set(ns)
    exec("f, m = open, map", ns)
    assert ns["f"] is builtins.open and ns["m"] is builtins.map


def test_module_functions_are_the_methods():
    """Each module-level function has its Session method's signature (less
    self) and docstring: one definition of each, paco's 17 keywords
    included."""
    for name in ("map", "reduce", "cov", "chol", "cho_solve", "latent", "stack", "paco", "verify"):
        f, m = getattr(vkstat, name), getattr(vkstat.Session, name)
        params = list(inspect.signature(m).parameters.values())
        assert list(inspect.signature(f).parameters.values()) == params[1:], name
        assert params[0].name == "self" and f.__doc__ == m.__doc__ and f.__name__ == name


def test_reduce_reads_numpys_positional_axis(dev):
    a = np.arange(24.0).reshape(2, 3, 4)
    np.testing.assert_array_equal(dev.reduce(a, 0), np.mean(a, 0))
    np.testing.assert_array_equal(dev.reduce(a, -1), np.mean(a, -1))
    np.testing.assert_array_equal(dev.reduce(a, (1, 2)), np.mean(a, (1, 2)))
    np.testing.assert_array_equal(dev.reduce(a, np.int64(1)), np.mean(a, 1))
    with pytest.raises(TypeError, match="the axis twice"):
        dev.reduce(a, 0, axis=1)


def test_reduce_keepdims(dev):
    a = np.arange(24.0).reshape(2, 3, 4)
    for axis in (None, 0, 1, -1, (0, 1), (1, 2)):
        got = dev.reduce(a, "std", axis=axis, keepdims=True)
        want = np.std(a, axis=axis, keepdims=True)
        assert got.shape == want.shape, axis
        np.testing.assert_allclose(got, want, rtol=1e-14, err_msg=str(axis))
    both = dev.reduce(a, ["min", "max"], axis=1, keepdims=True)
    assert both["min"].shape == (2, 1, 4)


def test_reduce_axes_that_are_not_adjacent(dev):
    """axis=(0, 2) and the like, as NumPy's (issue 40, item 10): the kept
    axes in order, keepdims, float32 kept float32."""
    rng = np.random.default_rng(7)
    a = rng.normal(3.0, 2.0, (3, 4, 5, 6))
    for axis in ((0, 2), (2, 0), (0, -1), (1, 3), (0, 1, 3), (0, 2, 3)):
        for keepdims in (False, True):
            got = dev.reduce(a, "all", axis=axis, keepdims=keepdims)
            for name, f in (("sum", np.sum), ("mean", np.mean), ("var", np.var), ("std", np.std), ("min", np.min),
                            ("max", np.max)):
                want = f(a, axis=axis, keepdims=keepdims)
                assert got[name].shape == want.shape, (axis, name)
                np.testing.assert_allclose(got[name], want, rtol=1e-13, err_msg=f"{axis} {name}")
    f32 = a.astype(np.float32)
    got = dev.reduce(f32, "var", axis=(0, 2), ddof=1)
    assert got.dtype == np.float32 == np.var(f32, axis=(0, 2)).dtype
    np.testing.assert_allclose(got, np.var(a.astype(np.float32).astype(np.float64), axis=(0, 2), ddof=1), rtol=1e-6)


def test_reduce_gives_a_scalar_where_numpy_does(dev):
    a = np.arange(6.0)
    for axis in (None, 0):
        got = dev.reduce(a, "mean", axis=axis)
        assert isinstance(got, np.float64) and got == np.mean(a, axis=axis)
    assert isinstance(dev.reduce(a.astype(np.float32), "max"), np.float32)
    assert dev.reduce(a, "mean", keepdims=True).shape == (1,)
    assert dev.reduce(a.reshape(2, 3), "mean", axis=0).shape == (3,)


def test_reduce_takes_a_comma_string(dev):
    a = np.arange(6.0)
    got = dev.reduce(a, "mean,std")
    assert list(got) == ["mean", "std"]
    np.testing.assert_allclose(got["std"], np.std(a), rtol=1e-15)
    assert dev.reduce(a, " max ") == 5.0


@pytest.mark.parametrize("dt", [np.float32, np.float64])
def test_reduce_empty_axis_is_numpys(dev, dt):
    """A length-0 axis (issue 40, item 12): NumPy's sum of 0, NaN mean, var
    and std with a RuntimeWarning, and ValueError for min and max, the same
    on every device."""
    import warnings
    for shape, axis in (((0, 3), 0), ((3, 0), 1), ((0,), None), ((2, 0, 3), (0, 1)), ((4, 0, 2), (0, 1, 2))):
        a = np.ones(shape, dt)
        for stat, f in (("sum", np.sum), ("mean", np.mean), ("var", np.var), ("std", np.std)):
            with warnings.catch_warnings(record=True) as numpy_said:
                warnings.simplefilter("always")
                want = f(a, axis=axis)
            if numpy_said:
                with pytest.warns(RuntimeWarning, match="empty"):
                    got = dev.reduce(a, stat, axis=axis)
            else:
                got = dev.reduce(a, stat, axis=axis)
            assert np.shape(got) == np.shape(want) and got.dtype == want.dtype, (shape, axis, stat)
            np.testing.assert_array_equal(got, want, err_msg=f"{shape} {axis} {stat}")
        for stat, f in (("min", np.min), ("max", np.max)):
            with pytest.raises(ValueError):
                f(a, axis=axis)
            with pytest.raises(ValueError, match="no identity"):
                dev.reduce(a, stat, axis=axis)
    # nothing to reduce into: no warning, no error, as NumPy
    assert dev.reduce(np.ones((0, 3), dt), "min", axis=1).shape == (0,)
