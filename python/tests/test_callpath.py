"""The repeated call (issue 39): a call repeated with equal parameters on
arrays of the same dtypes and shapes encodes no JSON on either side and
asks for no output memory through the callback, and gives what the first
call's path gives (results, out=, warnings, errors, last_timing); Ctrl-C in
a loop of small calls is KeyboardInterrupt every time (issue 41, defect 4)."""

import os
import signal
import subprocess
import sys
import textwrap
import warnings

import numpy as np
import pytest

import vkstat
from vkstat import _lib

rng = np.random.default_rng(39)


def _spd(n, p):
    a = rng.standard_normal((n, p, p))
    return a @ a.transpose(0, 2, 1) + p * np.eye(p)


def _np_cov(x):
    d = x - x.mean(axis=-2, keepdims=True)
    return np.swapaxes(d, -1, -2) @ d / x.shape[-2]


# (name, the call on a session and fresh inputs, NumPy's answer, fresh inputs)
CASES = [
    ("map", lambda s, v: s.map(v[0], v[1], 3.5, 2.8, 10.0), lambda v: 3.5 * v[0] ** 2 + 2.8 * v[1] + 10.0,
     lambda: (rng.standard_normal(1000), rng.standard_normal(1000))),
    ("mean", lambda s, v: s.reduce(v, "mean"), lambda v: np.mean(v), lambda: rng.standard_normal(1000)),
    ("mean/-1", lambda s, v: s.reduce(v, "mean", axis=-1), lambda v: np.mean(v, -1), lambda: rng.standard_normal((10, 100))),
    ("std/0", lambda s, v: s.reduce(v, "std", axis=0, ddof=1), lambda v: np.std(v, 0, ddof=1),
     lambda: rng.standard_normal((10, 100)).astype(np.float32)),
    ("cov", lambda s, v: s.cov(v).cov, _np_cov, lambda: rng.standard_normal((4, 32, 8))),
    ("chol", lambda s, v: s.chol(v, logdet=True).logdet, lambda v: np.linalg.slogdet(v)[1], lambda: _spd(16, 8)),
    # the library's plans (capi's prepared.repeat) for keepdims with NaNs skipped, one set, right-hand sides
    ("nanvar/keepdims", lambda s, v: s.reduce(v, "var", axis=1, keepdims=True, skipnan=True),
     lambda v: np.nanvar(v, 1, keepdims=True), lambda: np.where(rng.random((6, 50)) < 0.1, np.nan, rng.standard_normal((6, 50)))),
    ("cov/one set", lambda s, v: s.cov(v).cov, _np_cov, lambda: rng.standard_normal((32, 8))),
    ("chol/b", lambda s, v: s.chol(v[0], v[1]).x, lambda v: np.linalg.solve(v[0], v[1][..., None])[..., 0],
     lambda: (_spd(5, 6), rng.standard_normal((5, 6)))),
]


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_repeat_encodes_no_json(dev, case):
    """After the first call, repeats on new arrays of the same shapes
    encode and decode no JSON, in Python or in the library, and their
    results are NumPy's."""
    _, call, ref, make = case
    v = make()
    call(dev, v)
    before = _lib.json_codings()
    for _ in range(5):
        v = make()
        got = call(dev, v)
        np.testing.assert_allclose(got, ref(v), rtol=1e-5 if np.asarray(got).dtype == np.float32 else 1e-10, atol=1e-6)
    assert _lib.json_codings() == before


def test_repeat_asks_no_memory_through_the_callback(cpu, monkeypatch):
    """A repeat allocates its outputs before the call: the library never
    calls back for memory."""
    x = rng.standard_normal(1000)
    cpu.reduce(x, "max")
    asked = []
    give = _lib._give

    def counting(*args):
        asked.append(args)
        return give(*args)

    monkeypatch.setattr(_lib, "_give", counting)  # the C callback calls _give through the module
    monkeypatch.setattr(_lib, "_give_c", _lib._ALLOC(lambda *a: _lib._give(*a)))
    assert cpu.reduce(x, "max") == x.max()
    assert asked == []
    cpu.reduce(x[:999], "max")  # new shape: the callback once
    assert len(asked) == 1


def test_repeat_keys_tell_values_apart(cpu):
    """Parameters that read alike are one call, those that differ (1 and
    1.0, 0.0 and -0.0, another statistic or axis) are not."""
    x = rng.standard_normal((10, 100))
    y = np.zeros((10, 100))
    assert np.array_equal(cpu.map(x, y, 0, 1, 0.0), y)
    assert np.signbit(cpu.map(x, -y, -0.0, 1, -0.0)).all()  # −0 + −0 + −0
    assert not np.signbit(cpu.map(x, -y, -0.0, 1, 0.0)).any()
    assert np.signbit(cpu.map(x, -y, -0.0, 1, -0.0)).all()
    np.testing.assert_allclose(cpu.reduce(x, "mean", axis=0), x.mean(0))
    np.testing.assert_allclose(cpu.reduce(x, "mean", axis=1), x.mean(1))
    np.testing.assert_allclose(cpu.reduce(x, "max", axis=1), x.max(1))
    for _ in range(2):
        with pytest.raises(vkstat.InputError, match="axis"):
            cpu.reduce(x, "mean", axis=1.0)


def test_repeat_out(cpu):
    """out= on a repeat: in place, through a same_kind cast, elementwise in
    place over an input, refused as on the first call."""
    for _ in range(3):
        x, y = rng.standard_normal(1000), rng.standard_normal(1000)
        want = 2 * x * x + y
        z = np.empty(1000)
        assert cpu.map(x, y, 2, 1, 0, out=z) is z
        np.testing.assert_allclose(z, want)
        z32 = np.empty(1000, np.float32)
        cpu.map(x, y, 2, 1, 0, out=z32)
        np.testing.assert_allclose(z32, want, rtol=1e-6)
        cpu.map(x, y, 2, 1, 0, out=x)  # x itself: elementwise, in place
        np.testing.assert_allclose(x, want)
        with pytest.raises(ValueError, match="shape"):
            cpu.map(x, y, out=np.empty(999))
        with pytest.raises(TypeError, match="same_kind"):
            cpu.map(x, y, out=np.empty(1000, np.int64))
        m = np.empty(())
        cpu.reduce(x, "mean", out=m)
        assert m == pytest.approx(x.mean())
        with pytest.raises(vkstat.InputError, match="no output named"):
            cpu.reduce(x, "mean", out={"mean": m, "nope": m})


def test_repeat_warns_every_time(cpu):
    """ddof ≥ n warns on every call, the repeats too."""
    x = np.ones((3, 1))
    for _ in range(3):
        with pytest.warns(RuntimeWarning, match="ddof 1 with 1 value"):
            r = cpu.reduce(x, "var", axis=1, ddof=1)
        assert np.isnan(r).all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cpu.reduce(x, "var", axis=0, ddof=1)


def test_repeat_timing(dev):
    """last_timing after a repeat is the repeat's: its wall and phases."""
    x = rng.standard_normal(1000)
    dev.reduce(x, "mean")
    first = dev.last_timing
    dev.reduce(x, "mean")
    t = dev.last_timing
    assert set(t) == set(first)
    assert t["wall_ms"] > 0 and t["phases"]
    assert t["other_ms"] == pytest.approx(t["wall_ms"] - sum(p["ms"] for p in t["phases"]), abs=1e-6)


def test_repeat_many_shapes(cpu):
    """More shapes than a session keeps: the oldest are forgotten (in the
    library too) and every call still gives NumPy's answer."""
    for k in range(3):
        for n in range(1, 90):
            x = rng.standard_normal(n)
            assert cpu.reduce(x, "sum") == pytest.approx(x.sum())
    assert len(cpu._prepared) <= 64


CHILD = textwrap.dedent("""
    import random, signal, sys, threading, os
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    import vkstat
    s = vkstat.open("cpu")
    xs = [np.ones(n) for n in range(900, 1000)]  # new shapes now and then: the callback's path too
    got = []
    for run in range(int(sys.argv[1])):
        t = threading.Timer(random.uniform(0.005, 0.04), os.kill, (os.getpid(), signal.SIGINT))
        try:
            t.start()
            i = 0
            while True:
                x = xs[(i // 7) % len(xs)]
                s.map(x, x, 1, 2, 3)
                s.reduce(x, "mean")
                i += 1
        except KeyboardInterrupt:
            got.append("KeyboardInterrupt")
        except BaseException as e:
            got.append(f"{type(e).__name__}: {e}")
        t.join()
    s.map(xs[0], xs[0])
    print("\\n".join(got))
""")


def test_ctrl_c_in_a_loop_of_small_calls():
    """SIGINT from a timer into a loop of small calls, 30 times: always
    KeyboardInterrupt, never an InputError (issue 41, defect 4)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-c", CHILD, "30"], capture_output=True, text=True, env=env, timeout=120)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 30, (p.stdout, p.stderr)
    assert [ln for ln in lines if ln != "KeyboardInterrupt"] == [], p.stderr


def test_fast_path_forms(cpu):
    """The forms a repeat may take give what the first call gives: several
    statistics, a statistic's name in capitals, a view that is not
    contiguous (copied, so not the fast path), a 0-d result as a NumPy
    scalar, chol's and cov's named tuples, and a closed session."""
    x = rng.standard_normal((20, 50))
    for _ in range(3):
        r = cpu.reduce(x, "all", axis=0)
        assert set(r) == {"sum", "mean", "var", "std", "min", "max"}
        np.testing.assert_allclose(r["std"], x.std(0))
        np.testing.assert_allclose(cpu.reduce(x, "MEAN", axis=1), x.mean(1))
        np.testing.assert_allclose(cpu.reduce(x[:, ::2], "max", axis=1), x[:, ::2].max(1))
        m = cpu.reduce(x, "min")
        assert isinstance(m, np.float64) and m == x.min()
        a = _spd(3, 4)
        c = cpu.chol(a, inverse=True)
        assert type(c) is vkstat.CholResult and c.x is None and c.logdet is None and c.quad is None
        np.testing.assert_allclose(c.l, np.linalg.cholesky(a), rtol=1e-12)
        np.testing.assert_allclose(c.inverse, np.linalg.inv(a), rtol=1e-9)
        assert c.info.dtype == np.int32 and c.info.tolist() == [0, 0, 0]
        v = cpu.cov(x)
        assert type(v) is vkstat.CovResult and v.locations is None and v.cov.shape == (50, 50)
        np.testing.assert_allclose(v.mean, x.mean(0), rtol=1e-12)
        np.testing.assert_allclose(v.cov, np.cov(x, rowvar=False, ddof=0), rtol=1e-10, atol=1e-14)
        assert v.rho.shape == () and v.rho == 0
    with vkstat.open("cpu") as s:
        s.reduce(x, "mean")
        s.reduce(x, "mean")
    with pytest.raises(ValueError, match="closed"):
        s.reduce(x, "mean")


def test_cpu_session_runs_map_and_reduce_inline():
    """On the CPU path map and reduce of a few MiB run on the calling
    thread (the worker's hand-off cost more than such a call): no worker
    thread is started for them; cov of as much still goes to it."""
    with vkstat.open("cpu") as s:
        x = np.arange(2.0 ** 18)  # 2 MiB
        for _ in range(2):
            assert s.reduce(x) == (2 ** 18 - 1) / 2
            np.testing.assert_array_equal(s.map(x, x, 1, 0, 0), x * x)
        assert s._q is None
        s.cov(x.reshape(-1, 32, 8))
        assert s._q is not None


def test_import_leaves_annotation_modules_unloaded():
    """import vkstat, and a first map and reduce, load nothing that only
    annotations or other calls' results name: numpy.typing alone is 4-6 ms
    of a 25 ms import, typing 5 ms, the result classes' dataclasses 8 ms
    (issue 39, item 4). What the interpreter had loaded before (pytest's
    own, here or in a program) does not count."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), VKSTAT_DEVICE="cpu")
    code = ("import sys, numpy; before = set(sys.modules); import vkstat; "
            "x = numpy.ones(1000); vkstat.reduce(x); vkstat.map(x, x, 1, 2, 3); "
            "print(sorted(m for m in set(sys.modules) - before "
            "if m.startswith('numpy') or m in ('typing', 'dataclasses', 'vkstat._results')))")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "[]", p.stdout


def test_result_classes_load_at_first_use():
    """The result classes are vkstat's attributes all the same, and cov's
    first call returns one."""
    names = {"CholResult", "CovResult", "LatentResult", "PacoResult", "StackResult", "VerifyReport"}
    assert names <= set(dir(vkstat)) and names <= set(vkstat.__all__)
    for n in names:
        assert getattr(vkstat, n).__module__ == "vkstat._results"
    r = vkstat.cov(np.eye(3)[None])
    assert type(r) is vkstat.CovResult and r._fields[:3] == ("cov", "mean", "rho")
    with pytest.raises(AttributeError, match="no attribute 'NoResult'"):
        vkstat.NoResult  # noqa: B018
