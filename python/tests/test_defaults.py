"""The Python signatures' defaults are the library's: every parameter an
operation's workload gives a default is None (the library's, looked up by
the library) or that same default, and no parameter the library owns is
missing from the signature."""

from __future__ import annotations

import inspect

import numpy as np

import vkstat


def _same(py: object, lib: object) -> bool:
    if isinstance(py, (tuple, list)) and isinstance(lib, list):
        return list(py) == lib
    if isinstance(py, (str, float)) and isinstance(lib, list):  # one statistic named, one quantile as a number
        return [py] == lib
    return py == lib


def test_signature_defaults_are_the_librarys():
    lib = vkstat.defaults()
    # the library's workloads with a front end of their own (its registry,
    # workloads.Fronted; eig and spectra run under latent): each a Session
    # method and a module-level function
    assert {"map", "reduce", "cov", "chol", "latent", "stack", "paco"} <= set(lib)
    for op, params in lib.items():
        assert hasattr(vkstat.Session, op) and hasattr(vkstat, op), f"the library's workload {op} has no Python function"
        sig = inspect.signature(getattr(vkstat.Session, op))
        for name, want in params.items():
            assert name in sig.parameters, f"{op}: no parameter {name} for the library's default {want!r}"
            got = sig.parameters[name].default
            assert got is None or _same(got, want), f"{op}({name}={got!r}): the library's default is {want!r}"


def test_none_takes_the_librarys_default():
    """paco's radius and threshold left None are the library's."""
    rng = np.random.default_rng(3)
    cube = rng.standard_normal((6, 24, 24)).astype(np.float64)
    angles = np.linspace(0, 60, 6)
    with vkstat.open("cpu") as dev:
        r = dev.paco(cube, angles, fwhm=2.0, center=(12, 12))
    lib = vkstat.defaults()["paco"]
    assert (r.radius, r.threshold) == (lib["radius"], lib["threshold"])
