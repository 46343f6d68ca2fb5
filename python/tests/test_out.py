"""Results where the caller wants them: the library writes each output into
a NumPy array the package allocates (or the caller's out=), with nothing
copied out of library memory; out= follows NumPy's rules."""

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import vkstat

RNG = np.random.default_rng(20261129)
SENTINEL = 1234.5  # what an element the library did not write keeps


def filled(a, value=SENTINEL):
    """A new array of a's shape and dtype, every element value."""
    return np.full(np.shape(a), value, dtype=np.asarray(a).dtype)


def same(got, want, name=""):
    np.testing.assert_array_equal(got, want, err_msg=name)


def spd(n, p):
    g = RNG.normal(0, 1, (n, p, p))
    return g @ g.transpose(0, 2, 1) + p * np.eye(p)


def test_map_and_reduce_out(dev):
    x, y = RNG.normal(0, 1, (3, 40)), RNG.normal(0, 1, (3, 40))
    want = dev.map(x, y, 2, 3, 1)
    out = filled(want)
    assert dev.map(x, y, 2, 3, 1, out=out) is out and dev._last_out_copied == 0
    same(out, want)
    for kw in ({"axis": 1}, {"axis": None, "keepdims": True}, {"axis": 0, "keepdims": True}):
        want = dev.reduce(x, "std", **kw)
        out = filled(want)
        assert dev.reduce(x, "std", out=out, **kw) is out and dev._last_out_copied == 0
        same(out, want, str(kw))
    want = dev.reduce(x, "mean,max", axis=0)
    outs = {k: filled(v) for k, v in want.items()}
    got = dev.reduce(x, "mean,max", axis=0, out=outs)
    assert all(got[k] is outs[k] for k in want)
    for k in want:
        same(outs[k], want[k], k)


def test_cov_and_chol_out(dev):
    x = RNG.normal(0, 1, (4, 30, 5))
    want = dev.cov(x, "ledoit-wolf")
    out = tuple(filled(a) for a in want[:3])
    got = dev.cov(x, "ledoit-wolf", out=out)
    assert all(g is o for g, o in zip(got, out)) and dev._last_out_copied == 0
    for name, g, w in zip(want._fields, got, want):
        same(g, w, name)
    one = dev.cov(x[0], out={"cov": filled(want.cov[0])})  # one set: the outputs without the batch axis
    same(one.cov, dev.cov(x[0]).cov)
    a, b = spd(3, 4), RNG.normal(0, 1, (3, 4))
    want = dev.chol(a, b, inverse=True, logdet=True, quad=True)
    out = {k: filled(getattr(want, k)) for k in ("l", "x", "inverse", "logdet", "quad", "info")}
    got = dev.chol(a, b, inverse=True, logdet=True, quad=True, out=out)
    for k, o in out.items():
        assert getattr(got, k) is o
        same(o, getattr(want, k), k)
    l0 = filled(want.l[0])
    assert dev.chol(a[0], out=(l0,)).l is l0  # a tuple in CholResult's order
    same(l0, want.l[0])


def test_workloads_out(dev):
    lat = RNG.normal(0, 1, (2, 3, 4, 6, 6))
    want = dev.latent(lat, "moments,pca", axes=(3, 4))
    out = {"mean": filled(want.mean), "pca_components": filled(want.pca_components)}
    got = dev.latent(lat, "moments,pca", axes=(3, 4), out=out)
    assert got.mean is out["mean"] and got.pca_components is out["pca_components"]
    same(got.mean, want.mean)
    same(got.pca_components, want.pca_components)
    dates = (RNG.normal(0, 1, (5, 8, 8)) + 1j * RNG.normal(0, 1, (5, 8, 8))).astype(np.complex64)
    want = dev.stack(dates, looks=2)
    out = {"std": filled(want.std)}
    assert dev.stack(dates, looks=2, out=out).std is out["std"]
    same(out["std"], want.std)
    cube = RNG.normal(0, 1, (8, 16, 16))
    kw = {"fwhm": 2, "radius": 2, "center": (8, 8)}
    want = dev.paco(cube, np.linspace(0, 90, 8), **kw)
    out = {"snr": filled(want.snr)}
    assert dev.paco(cube, np.linspace(0, 90, 8), out=out, **kw).snr is out["snr"]
    same(out["snr"], want.snr)


def test_out_follows_numpys_rules(cpu):
    x = np.arange(5.0)
    out = np.full(5, -1.0, np.float32)  # float64 results cast into float32 (same_kind)
    assert cpu.map(x, x, 1, 0, 0, out=out) is out
    same(out, (x * x).astype(np.float32))
    strided = np.zeros(10)[::2]  # not contiguous: through a temporary
    assert cpu.map(x, x, 1, 0, 0, out=strided) is strided
    same(strided, x * x)
    f = np.asfortranarray(np.zeros((3, 2)))
    cpu.reduce(np.ones((3, 4, 2)), "sum", axis=1, out=f)
    same(f, np.full((3, 2), 4.0))
    with pytest.raises(ValueError, match=r"out has shape \(4,\); the output z has shape \(5,\)"):
        cpu.map(x, x, out=np.empty(4))
    ro = np.empty(5)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="out is read-only"):
        cpu.map(x, x, out=ro)
    with pytest.raises(TypeError, match="cannot cast the output z from float64"):
        cpu.map(x, x, out=np.empty(5, np.int64))
    with pytest.raises(TypeError, match="must be a NumPy array"):
        cpu.map(x, x, out=[0.0] * 5)
    with pytest.raises(ValueError, match=r"out: no output named inverse in this call \(it gives l, info\)"):
        cpu.chol(np.eye(2), out={"inverse": np.empty((2, 2))})
    with pytest.raises(TypeError, match="a dict by statistic"):
        cpu.reduce(x, ["mean", "std"], out=np.empty(()))
    with pytest.raises(ValueError, match="out: 7 arrays for 6 outputs"):
        cpu.chol(np.eye(2), out=(None,) * 7)


def test_map_out_overlapping_an_input(dev):
    """Issue 34, item 6: an out that partly overlaps an input is computed
    through a temporary, as NumPy does; one that is the input itself is
    written in place (an elementwise operation reads each element before it
    writes it)."""
    buf = np.arange(11.0)
    got = dev.map(buf[:-1], np.zeros(10), 1, 1, 0, out=buf[1:])
    same(got, np.arange(10.0) ** 2)
    same(buf, np.r_[0.0, np.arange(10.0) ** 2])
    big = np.arange(3_000_001, dtype=np.float64) / 3e6
    want = big[:-1] ** 2
    dev.map(big[:-1], np.zeros(3_000_000), 1, 1, 0, out=big[1:])
    np.testing.assert_allclose(big[1:], want, rtol=1e-15)
    x = np.arange(6.0)
    assert dev.map(x, x, 1, 0, 0, out=x) is x
    same(x, np.arange(6.0) ** 2)


def test_large_outputs_are_page_aligned(cpu):
    a = cpu.reduce(np.ones((2, 1 << 18)), "sum", axis=0)  # 2 MiB
    assert a.ctypes.data % 4096 == 0 and a.base is not None and a.base.flags.owndata
    assert cpu.reduce(np.ones((2, 8)), "sum", axis=0).flags.owndata  # small: a plain array


# The peak resident memory of one call, measured in a fresh process: the
# high-water mark (VmHWM) reset just before it (clear_refs 5) against the
# resident memory then. An output the library made in Go memory and the
# package then copied into a NumPy array would count twice.
PEAK = textwrap.dedent("""
    import sys
    import numpy as np
    import vkstat

    def status(key):
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024

    op, device = sys.argv[1], sys.argv[2]
    s = vkstat.open(device, memory="16MiB")  # device buffers, host memory on lavapipe, stay small
    n = 1 << 23  # outputs of 64 MiB
    if op == "map":
        x = np.ones(n)
        run = lambda: s.map(x, x)
    else:
        x = np.broadcast_to(np.eye(16) * 4, (n // 256, 16, 16)).copy()
        run = lambda: s.chol(x)
    s.map(np.ones(8), np.ones(8)), s.chol(np.eye(16)[None] * 4)  # pipelines built, heaps warm
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    base = status("VmRSS")
    r = run()
    print((status("VmHWM") - base) / (n * 8))
""")


@pytest.mark.parametrize("op", ["map", "chol"])
@pytest.mark.parametrize("device", ["cpu", "lavapipe"])
def test_results_are_written_in_place(op, device):
    """Issue 31, item 4: a call's peak resident memory grows by its
    output's size once (the array the result is written into), not twice
    (a result in library memory, then its copy)."""
    if not os.path.exists("/proc/self/clear_refs"):
        pytest.skip("no /proc/self/clear_refs to reset the peak resident memory")
    if device == "lavapipe" and not any(d["name"].startswith("llvmpipe") for d in vkstat.devices()[:-1]):
        pytest.skip("no lavapipe")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    p = subprocess.run([sys.executable, "-c", PEAK, op, device], capture_output=True, text=True, env=env, timeout=300)
    assert p.returncode == 0, p.stderr
    ratio = float(p.stdout.split()[-1])
    assert 0.9 < ratio < 1.4, f"{op} on {device}: peak resident memory grew by {ratio:.2f}× the output's size"
