"""Python's signatures are held to the library's description of each
operation's parameters (engine.Describe, exported by vks_params): every
public function's keywords are the description's names plus its own
arguments (the arrays and files it reads, where its results go, what only
Python takes), each documented; its defaults are the description's, or
None where None takes the library's default (or, where the description
says None is a value of its own, means what NumPy's None does); and a bad
choice is refused in words that name the description's choices."""

from __future__ import annotations

import inspect
import re

import numpy as np
import pytest

import vkstat
from vkstat import _lib

DESC = _lib.params()

# Each function's own arguments beside the described parameters: the arrays
# or files it reads, out= and dtype=/precision= (where results go, what
# the input is converted to), and the options only Python takes (NumPy's
# keepdims; the statistics latent and stack select, latent's bias; cov's
# patches and shrinkage weight, which the C ABI takes beside cov's
# options; stack's reading of files: band, nodata, db output, the old
# crop=; paco's star centre).
OWN = {
    "map": {"x", "y", "out", "dtype"},
    "reduce": {"a", "keepdims", "out", "dtype"},
    "cov": {"x", "radius", "shrinkage", "out", "dtype"},
    "chol": {"a", "b", "out", "dtype"},
    "latent": {"x", "stat", "bias", "precision", "out"},
    "stack": {"dates", "crop", "stat", "db", "nodata", "band", "out"},
    "paco": {"cube", "angles", "psf", "center", "precision", "out"},
    "quantile": {"a", "out", "dtype"},
}

rng = np.random.default_rng(7)
CUBE, ANGLES = rng.standard_normal((6, 24, 24)), np.linspace(0, 60, 6)

# a call of each operation on small valid inputs, with the keywords it
# needs (paco's PSF and centre) and those given
BASE = {"paco": {"fwhm": 2.0, "center": (12, 12)}}
CALLS = {
    "map": lambda s, **kw: s.map(np.ones(3), np.ones(3), **kw),
    "reduce": lambda s, **kw: s.reduce(np.ones((2, 3)), **kw),
    "cov": lambda s, **kw: s.cov(np.ones((2, 5, 3)), **kw),
    "chol": lambda s, **kw: s.chol(np.eye(3)[None], **kw),
    "latent": lambda s, **kw: s.latent(np.ones((2, 2, 4, 4)), "moments", **kw),
    "stack": lambda s, **kw: s.stack(np.ones((2, 6, 6), np.float32), **kw),
    "paco": lambda s, **kw: s.paco(CUBE, ANGLES, **{**BASE["paco"], **kw}),
    "quantile": lambda s, **kw: s.quantile(np.ones((4, 3)), **kw),
}


def _same(py: object, lib: object, kind: str) -> bool:
    """A Python default equal to the description's: a tuple as a list, one
    name or number as a list of one; for a text parameter, a number n as
    its text, "n", or as "nxn" (stack's looks: one number for both)."""
    if isinstance(py, (tuple, list)) and isinstance(lib, list):
        return list(py) == lib
    if isinstance(py, (str, int, float)) and isinstance(lib, list):
        return [py] == lib
    if kind == "text" and isinstance(py, int) and not isinstance(py, bool):
        return lib in (str(py), f"{py}x{py}")
    return py == lib


def test_every_operation_is_described_and_called():
    assert set(DESC) == set(vkstat.defaults()) == set(OWN) == set(CALLS)
    for op, params in DESC.items():
        assert params, f"{op}: no parameter described"
        for p in params:
            assert p["help"] and p["kind"] in {"float", "int", "bool", "string", "list", "text"}, (op, p)


@pytest.mark.parametrize("op", sorted(DESC))
def test_keywords_are_the_descriptions(op):
    described = [p["name"] for p in DESC[op]]
    doc = inspect.getdoc(getattr(vkstat.Session, op)) or ""
    for fn in (getattr(vkstat.Session, op), getattr(vkstat, op)):
        names = [n for n in inspect.signature(fn).parameters if n != "self"]
        assert set(names) - OWN[op] == set(described), (
            f"{op}: keywords beyond its own {sorted(set(names) - OWN[op] - set(described))}, "
            f"described but missing {sorted(set(described) - set(names))}")
        assert OWN[op] <= set(names), f"{op}: own arguments missing {sorted(OWN[op] - set(names))}"
        for n in names:
            assert re.search(rf"^(\w+, )*{n}(, \w+)* : ", doc, re.M), f"{op}: {n} is not documented in its docstring"


@pytest.mark.parametrize("op", sorted(DESC))
def test_defaults_are_the_descriptions(op):
    for fn in (getattr(vkstat.Session, op), getattr(vkstat, op)):
        sig = inspect.signature(fn)
        for p in DESC[op]:
            got = sig.parameters[p["name"]].default
            if got is None:  # the library's default, or NumPy's None where None is a value (reduce's axis)
                continue
            assert _same(got, p["default"], p["kind"]), f"{op}({p['name']}={got!r}): the description's default is {p['default']!r}"


def test_none_is_a_value_only_where_described():
    """reduce's axis=None is NumPy's every axis, which the description
    takes as a value of its own (the command line's all), not its default
    (axis 0, the command line's); no other parameter is so."""
    nones = {(op, p["name"]) for op, ps in DESC.items() for p in ps if p.get("none")}
    assert nones == {("reduce", "axis")}
    assert next(p for p in DESC["reduce"] if p["name"] == "axis")["default"] == 0
    x = np.arange(6.0).reshape(2, 3)
    with vkstat.open("cpu") as dev:
        assert float(dev.reduce(x, "sum")) == 15.0 == float(dev.reduce(x, "sum", axis=None))
        assert dev.reduce(x, "sum", axis=0).tolist() == [3.0, 5.0, 7.0]


CHOICES = [(op, p["name"], p["choices"]) for op, ps in sorted(DESC.items()) for p in ps if p.get("choices")]


def test_choices_are_described():
    assert {(op, n) for op, n, _ in CHOICES} >= {("reduce", "stat"), ("cov", "estimator"), ("latent", "nan"),
                                                 ("stack", "filter"), ("paco", "psf_norm")}


@pytest.mark.parametrize("op,name,choices", CHOICES, ids=[f"{op}-{n}" for op, n, _ in CHOICES])
def test_a_bad_choice_is_refused_in_the_descriptions_words(cpu, op, name, choices):
    with pytest.raises(ValueError) as e:
        CALLS[op](cpu, **{name: "bogus"})
    msg = str(e.value)
    assert "bogus" in msg and all(c in msg for c in choices), f"{op}({name}='bogus'): {msg}"


@pytest.mark.parametrize("op", sorted(DESC))
def test_each_call_takes_the_descriptions_defaults(cpu, op):
    """The described defaults of the keywords whose Python default is not
    None (None: not given, which some checks tell from a value: stack's
    filter_size without a filter), given as keywords, are taken, and give
    what the call without them does where they are Python's very values
    (quantile's q=[0.5] keeps the quantiles' axis that q=0.5 drops, as
    NumPy's)."""
    sig = inspect.signature(getattr(vkstat.Session, op))
    kw = {p["name"]: p["default"] for p in DESC[op]
          if sig.parameters[p["name"]].default is not None and p["name"] not in BASE.get(op, {})}
    assert kw, op
    got, want = CALLS[op](cpu, **kw), CALLS[op](cpu)
    if isinstance(want, np.ndarray) and all(sig.parameters[k].default == v for k, v in kw.items()):
        np.testing.assert_array_equal(got, want)
