"""Outputs allocated once per shape (issue 39, item 1): a repeated small
call (map, reduce, cov, chol) writes into memory kept from its earlier
calls, but only memory no result the caller still holds lives in. A result
held in any form keeps its values through later calls; a dropped one's
memory is written again instead of allocating. Values are checked against
NumPy's answers for each call's own inputs."""

import threading
import weakref

import numpy as np
import pytest
from test_callpath import _np_cov, _spd

import vkstat
from vkstat import _session

rng = np.random.default_rng(3939)


# (name, fresh inputs, the call on a session giving an array, NumPy's answer)
CASES = [
    ("map", lambda: (rng.standard_normal(1000), rng.standard_normal(1000)),
     lambda s, v: s.map(v[0], v[1], 3.5, 2.8, 10.0), lambda v: 3.5 * v[0] ** 2 + 2.8 * v[1] + 10.0),
    ("reduce", lambda: rng.standard_normal((10, 100)),
     lambda s, v: s.reduce(v, "mean", axis=-1), lambda v: np.mean(v, -1)),
    ("cov", lambda: rng.standard_normal((4, 32, 8)), lambda s, v: s.cov(v).cov, _np_cov),
    ("chol", lambda: _spd(15, 8), lambda s, v: s.chol(v).l, np.linalg.cholesky),
]
IDS = [c[0] for c in CASES]


@pytest.fixture(scope="module")
def cpu():
    """A CPU session of this file's own: what it keeps is these tests'."""
    with vkstat.open("cpu") as s:
        yield s


def _close(got, v, want):
    np.testing.assert_allclose(got, want(v), rtol=1e-10, atol=1e-12)


def _base(a):
    """The array that owns a's memory."""
    while a.base is not None:
        a = a.base
    return a


def _ptr(a):
    return a.__array_interface__["data"][0]


# Ways to hold a result: each takes the result and gives (what holds it,
# the held values as an array). The result's own name is dropped after.
HOLDS = {
    "name": lambda r: (r, lambda h: h),
    "list": lambda r: ([r], lambda h: h[0]),
    "dict": lambda r: ({"k": r}, lambda h: h["k"]),
    "slice": lambda r: (r[1:], lambda h: h),
    "view of a view": lambda r: (r.reshape(-1)[2:][::2], lambda h: h),
    "memoryview": lambda r: (memoryview(r), lambda h: np.asarray(h)),
    "asarray": lambda r: (np.asarray(r), lambda h: h),
    "ufunc out": lambda r: (np.negative(r, out=r), lambda h: -h),
    "passed on": lambda r: (_Keeper(r), lambda h: h.kept),
}


class _Keeper:
    def __init__(self, a):
        self.kept = a


def _expected(form, r):
    """What HOLDS[form] gives back for the result r, computed at once."""
    held, read = HOLDS[form](r.copy())
    return np.array(read(held))


@pytest.mark.parametrize("case", CASES, ids=IDS)
@pytest.mark.parametrize("form", list(HOLDS))
def test_a_held_result_is_never_overwritten(cpu, case, form):
    """A result held (as a name, in a list, as a slice, ...) keeps its
    values through four later calls on other inputs of the same shapes, each
    of which is right too; the first two calls make the call a fast repeat."""
    _, make, call, want = case
    for _ in range(2):
        v = make()
        _close(call(cpu, v), v, want)
    v = make()
    r = call(cpu, v)
    _close(r, v, want)
    expect = _expected(form, r)
    held, read = HOLDS[form](r)
    del r
    for _ in range(4):
        w = make()
        _close(call(cpu, w), w, want)
    np.testing.assert_array_equal(np.asarray(read(held)), expect)


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_held_results_in_a_loop(cpu, case):
    """`m = call(...)` in a loop (the last result held while the next call
    runs) and every result kept in a list: all right at the end, no two
    sharing memory; the loop alone alternates between two arrays' memory."""
    _, make, call, want = case
    ins, kept = [], []
    for _ in range(6):
        ins.append(make())
        kept.append(call(cpu, ins[-1]))
    for v, r in zip(ins, kept):
        _close(r, v, want)
    assert len({_ptr(r) for r in kept}) == len(kept)
    seen = []
    m = None
    for _ in range(8):
        v = make()
        m = call(cpu, v)
        _close(m, v, want)
        seen.append(_ptr(m))
    assert len(set(seen[1:])) == 2, seen


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_a_dropped_result_is_reused(cpu, case, monkeypatch):
    """Results dropped after use: after the first repeat, no output array
    is allocated again (np.empty counted), and the results live in the
    memory of the two sets kept at most, right every time."""
    _, make, call, want = case
    v = make()
    call(cpu, v)
    call(cpu, v)  # the call is kept and repeated from now on
    made = []
    empty = _session._np_empty
    monkeypatch.setattr(_session, "_np_empty", lambda *a: made.append(a) or empty(*a))
    ptrs = set()
    for _ in range(10):
        v = make()
        r = call(cpu, v)
        _close(r, v, want)
        ptrs.add(_ptr(r))
        del r
    assert made == [] and len(ptrs) <= 2


def test_cov_and_chol_fields(cpu):
    """A named tuple's field kept (the tuple dropped) keeps its values,
    while its other fields' memory is not reused either (a set is reused
    whole); chol's info and cov's mean stay right."""
    x = rng.standard_normal((4, 32, 8))
    cpu.cov(x)
    cpu.cov(x)
    mean = cpu.cov(x).mean
    a = _spd(15, 8)
    cpu.chol(a)
    cpu.chol(a)
    info = cpu.chol(a).info
    for _ in range(4):
        y, b = rng.standard_normal((4, 32, 8)), _spd(15, 8)
        r, c = cpu.cov(y), cpu.chol(b)
        _close(r.mean, y, lambda v: v.mean(axis=-2))
        _close(r.cov, y, _np_cov)
        _close(c.l, b, np.linalg.cholesky)
        assert c.info.tolist() == [0] * 15
    _close(mean, x, lambda v: v.mean(axis=-2))
    a[3] = -np.eye(8)  # not positive definite: info 1, the others 0
    bad = cpu.chol(a).info
    for _ in range(3):
        assert cpu.chol(_spd(15, 8)).info.tolist() == [0] * 15
    assert bad.tolist() == [0, 0, 0, 1] + [0] * 11 and info.tolist() == [0] * 15


def test_what_a_caller_does_to_a_result_stays_with_it(cpu):
    """A result is a new view each call: its shape changed, made
    read-only or watched by a weak reference, then dropped, the next
    result is as always (and the weak reference dead)."""
    x, y = rng.standard_normal(1000), rng.standard_normal(1000)
    for _ in range(3):
        z = cpu.map(x, y, 1.0, 0.0, 0.0)
    z.shape = (10, 100)
    z.flags.writeable = False
    w = weakref.ref(z)
    del z
    assert w() is None
    for _ in range(3):
        z = cpu.map(x, y, 1.0, 0.0, 0.0)
        assert z.shape == (1000,) and z.flags.writeable
        np.testing.assert_array_equal(z, x * x)
        z[:] = 7  # the caller's to write
    np.testing.assert_array_equal(cpu.map(x, y, 1.0, 0.0, 0.0), x * x)


def test_a_result_passed_back_in(cpu):
    """A result l passed back as the input of four calls whose results are
    dropped (chol reads l's lower triangle as a symmetric matrix, SPD
    here): l's set is held while they read it, so none writes into it."""
    a = _spd(15, 8) + 30 * np.eye(8)
    for _ in range(2):
        cpu.chol(a)
    l = cpu.chol(a).l
    want = np.linalg.cholesky(np.tril(l) + np.swapaxes(np.tril(l, -1), -1, -2))
    for _ in range(4):
        np.testing.assert_allclose(cpu.chol(l).l, want, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(l, np.linalg.cholesky(a), rtol=1e-12, atol=1e-14)


def test_out_calls_are_untouched(cpu):
    """out= is written as given, between repeats that keep their own
    memory: held results keep their values, out= is the array returned."""
    x, y = rng.standard_normal(1000), rng.standard_normal(1000)
    for _ in range(2):
        cpu.map(x, y, 2.0, 1.0, 0.0)
    held = cpu.map(x, y, 2.0, 1.0, 0.0)
    z = np.empty(1000)
    for _ in range(3):
        assert cpu.map(y, x, 2.0, 1.0, 0.0, out=z) is z
        np.testing.assert_allclose(z, 2 * y * y + x, rtol=1e-15)
        assert not np.shares_memory(z, held)
    np.testing.assert_allclose(held, 2 * x * x + y, rtol=1e-15)


def test_threads_on_one_session(cpu):
    """Four threads repeat the same calls on one session, each holding
    some results and dropping others: every result right when returned and
    at the end, no two held ones sharing memory."""
    cases = [CASES[0], CASES[1]]
    for _, make, call, _ in cases:
        v = make()
        call(cpu, v)
        call(cpu, v)
    inputs = {name: [make() for _ in range(8)] for name, make, _, _ in cases}
    wrong, kept = [], []

    def work(k):
        mine = []
        for i in range(300):
            name, _, call, want = cases[i % 2]
            v = inputs[name][(i + k) % 8]
            r = call(cpu, v)
            if not np.allclose(r, want(v), rtol=1e-10, atol=1e-12):
                wrong.append((k, i))
            if i % 7 == 0:
                mine.append((r, v, want))
        kept.extend(mine)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    for r, v, want in kept:
        _close(r, v, want)
    assert len({_ptr(r) for r, _, _ in kept}) == len(kept)


def test_many_shapes_keep_the_others_fast(monkeypatch):
    """Past the calls a session keeps (64), the oldest goes, and only it:
    the calls still kept repeat on their kept outputs (before, every
    call's fast repeat was forgotten, and each allocated anew from then on)."""
    with vkstat.open("cpu") as s:
        xs = [rng.standard_normal((k, 10)) for k in range(1, _session._MAX_PREPARED + 4)]
        for x in xs:
            s.reduce(x, "mean", axis=1)  # prepared: kept, and the oldest forgotten past 64
        made = []
        empty = _session._np_empty
        monkeypatch.setattr(_session, "_np_empty", lambda *a: made.append(a) or empty(*a))
        for x in xs[-3:]:
            for _ in range(3):
                r = s.reduce(x, "mean", axis=1)
                assert r.base is not None  # a kept set's
                _close(r, x, lambda v: v.mean(axis=1))
                del r
        assert len(made) == 3  # one set each, the first repeat's


def test_reference_count_calibrated():
    """The count the reuse rests on was found at import and seen to grow
    for a held view: reuse is on (on CPython); a set with an array held in
    any of HOLDS' forms is held."""
    assert _session._IDLE > 0
    for form, hold in HOLDS.items():
        bases = (np.empty(8),)
        assert not _session._held(bases), form
        view = _session._VIEW(bases[0])
        held, _ = hold(view)
        del view
        assert _session._held(bases), form
        del held
        assert not _session._held(bases), form
