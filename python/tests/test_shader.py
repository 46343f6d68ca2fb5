"""vkstat.shader: your own compute shaders on NumPy arrays, one or a
sequence over arrays that stay on the device, on every Vulkan device
(lavapipe; SwiftShader where VK_ADD_DRIVER_FILES adds it), checked
against NumPy."""

import os
from pathlib import Path

import numpy as np
import pytest

import vkstat

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "shaders"

SAXPY = (EXAMPLES / "saxpy.comp").read_text()  # as source, not a path


def _vulkan():
    """Every Vulkan device, by index and name, or the reason there is none."""
    try:
        return [(d["index"], d["name"]) for d in vkstat.devices() if d.get("path") != "cpu"], "no Vulkan device"
    except vkstat.Error as e:
        return [], str(e)


_DEVICES, _WHY = _vulkan()


@pytest.fixture(scope="module", params=_DEVICES or [None], ids=lambda d: d[1] if d else "none")
def gpu(request):
    if request.param is None:
        if os.environ.get("CI") == "true":
            pytest.fail(_WHY)
        pytest.skip(_WHY)
    with vkstat.open(request.param[0], validate=True) as s:
        yield s


def test_saxpy_against_a_reference(gpu):
    rng = np.random.default_rng(45)
    x = rng.uniform(-1, 1, 1000).astype(np.float32)
    y = rng.uniform(-1, 1, 1000).astype(np.float32)
    r = gpu.shader(SAXPY, {"x": x, "y": y}, push={"a": 2.5, "n": 1000}, global_size=1000, repeat=3, warmup=1,
                   reference=lambda x, y, a, n: {"y": a * x.astype(np.float64) + y}, rtol=1e-6, atol=1e-6)
    assert r.device == gpu.device["name"] and r.dispatches == 1 and sorted(r) == ["x", "y"]
    assert r["y"].dtype == np.float32 and np.array_equal(r["x"], x)
    assert r.first_ms >= r.build_ms >= 0
    # y is the caller's, unchanged: the result is a new array
    assert not np.shares_memory(r["y"], y)
    with pytest.raises(AssertionError, match="Mismatched elements: 1000 / 1000"):
        gpu.shader(SAXPY, {"x": x, "y": y}, push={"a": 2.5, "n": 1000}, global_size=1000,
                   reference={"y": lambda x, y, **_: 3 * x + y}, rtol=1e-6, atol=1e-6)


def test_two_pass_reduction(gpu):
    """reduce_shared.comp twice, over NumPy's data: 16 partial sums, then
    their sum, the partial sums staying on the device."""
    data = np.load(EXAMPLES / "reduce_in.npy")
    red = EXAMPLES / "reduce_shared.comp"
    r = gpu.shader(None, {"data": data, "parts": np.zeros(16, np.float32), "total": np.zeros(1, np.float32)}, steps=[
        {"shader": red, "bind": {"data": "data", "sums": "parts"}, "push": {"n": 4000, "chunk": 250}, "groups": 16},
        {"shader": red, "bind": {"data": "parts", "sums": "total"}, "push": {"n": 16, "chunk": 16}, "groups": 1}])
    np.testing.assert_allclose(r["parts"], data.astype(np.float64).reshape(16, 250).sum(axis=1), rtol=1e-5)
    np.testing.assert_allclose(r["total"][0], data.astype(np.float64).sum(), rtol=1e-5)
    assert r.dispatches == 2


def test_iterative_logistic_regression(gpu):
    """Kompute's logistic regression: logreg_grad.comp then
    logreg_update.comp, 100 times over buffers on the device, against the
    same 100 steps in float64 NumPy."""
    rng = np.random.default_rng(3)
    x = rng.standard_normal((128, 2)).astype(np.float32)
    y = (x @ np.array([-1.0, 2.0]) + 0.5 * rng.standard_normal(128) > 0).astype(np.float32)
    r = gpu.shader(None, {"x": x, "y": y, "w": np.zeros(3, np.float32), "d": np.zeros(128, np.float32)}, times=100, steps=[
        {"shader": EXAMPLES / "logreg_grad.comp", "bind": {"x": "x", "y": "y", "w": "w", "d": "d"}, "push": {"m": 128}, "global_size": 128},
        {"shader": EXAMPLES / "logreg_update.comp", "bind": {"x": "x", "d": "d", "w": "w"}, "push": {"m": 128, "lr": 0.5}, "groups": 1}])
    w = np.zeros(3)
    xa = np.hstack([x.astype(np.float64), np.ones((128, 1))])
    for _ in range(100):
        w -= 0.5 * xa.T @ (1 / (1 + np.exp(-(xa @ w))) - y) / 128
    np.testing.assert_allclose(r["w"], w, rtol=1e-4, atol=1e-5)
    assert r.dispatches == 200


def test_float16_where_the_device_has_it(gpu):
    """A float16 shader (-D T) runs where the device has 16-bit storage
    (lavapipe); elsewhere it is refused naming the feature (SwiftShader)."""
    x = np.arange(-18, 19, dtype=np.float16) / 8
    args = dict(push={"a": 2.5, "n": x.size}, global_size=x.size, define={"T": "float16_t"})
    try:
        r = gpu.shader(EXAMPLES / "scale.comp", {"x": x, "y": np.zeros_like(x)}, **args)
    except vkstat.Error as e:
        assert "storageBuffer16BitAccess" in str(e) and "llvmpipe" not in gpu.device["name"]
    else:
        np.testing.assert_array_equal(r["y"], (2.5 * x.astype(np.float64)).astype(np.float16))


def test_bad_input(gpu, cpu):
    x = np.zeros(8, np.float32)
    with pytest.raises(vkstat.InputError, match='no buffer "z"; the sequence has x, y'):
        gpu.shader(None, {"x": x, "y": x}, steps=[{"shader": SAXPY, "bind": {"x": "x", "y": "z"}, "groups": 1}])
    with pytest.raises(vkstat.InputError, match="binding 1 \\(y\\) has no data"):
        gpu.shader(SAXPY, {"x": x}, groups=1)
    with pytest.raises(ValueError, match="one of the two"):
        gpu.shader(SAXPY, {"x": x, "y": x})
    with pytest.raises(ValueError, match="dtype complex64"):
        gpu.shader(SAXPY, {"x": x.astype(np.complex64), "y": x}, groups=1)
    with pytest.raises(vkstat.InputError, match="Vulkan devices"):
        cpu.shader(SAXPY, {"x": x, "y": x}, groups=1)
